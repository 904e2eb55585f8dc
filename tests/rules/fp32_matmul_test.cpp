// fp32_matmul at its edges: GEMM-like kernels (matrix ops, not latency-bound) in plain fp32 on a
// GPU whose TF32 rate exceeds its fp32 rate, for ≥ 10 % of GPU busy time, fire; a warning when
// they take ≥ half the trace window (docs/JSON.md).
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

// A GPU of round numbers: 50 TFLOP/s fp32, 400 TFLOP/s TF32, 800 TFLOP/s bf16.
Ceilings test_gpu(double tf32 = 400e12) {
  Ceilings c;
  c.name = "Test GPU";
  c.source = "hand-built for the test";
  c.flop_per_s[static_cast<size_t>(Precision::FP32)] = 50e12;
  c.flop_per_s[static_cast<size_t>(Precision::TF32)] = tf32;
  c.flop_per_s[static_cast<size_t>(Precision::BF16)] = 800e12;
  return c;
}

struct Case {
  const char* name;
  int64_t gemm_ns, window_ns;  // of 1 ms GPU busy time
  MathUnit unit;
  Precision roof;
  Bound bound;
  double tf32_flop_per_s;
  Outcome want;
  // The kernel's name: an FP32 SIMT GEMM's unless the case is about another (the name decides the
  // unit where it says one: analysis/core/gemm_precision.hpp).
  const char* kernel = "ampere_sgemm_128x64_nn";
};

constexpr Outcome kInfo = fires(FindingId::fp32_matmul, Severity::Info);
constexpr Outcome kWarning = fires(FindingId::fp32_matmul, Severity::Warning);
constexpr int64_t kGpuBusyNs = 1'000'000;
constexpr auto M = MathUnit::Matrix;
constexpr auto FP32 = Precision::FP32;

const Case kCases[] = {
    // kMinShareOfGpu = 0.10 of GPU busy time
    {"99_999_ns_of_1_ms_busy_is_silent", 99'999, 10'000'000, M, FP32, Bound::Compute, 400e12, kSilent},
    {"100_us_of_1_ms_busy_fires", 100'000, 10'000'000, M, FP32, Bound::Compute, 400e12, kInfo},
    // kWarningShareOfWindow = 0.5
    {"500_us_of_a_1_000_001_ns_window_is_info", 500'000, 1'000'001, M, FP32, Bound::Compute, 400e12, kInfo},
    {"500_us_of_a_1_ms_window_is_a_warning", 500'000, 1'000'000, M, FP32, Bound::Compute, 400e12, kWarning},
    {"memory_bound_gemms_count", 500'000, 10'000'000, M, FP32, Bound::Memory, 400e12, kInfo},
    // Only plain-fp32 matrix work that tensor cores would speed up.
    {"latency_bound_gemms_are_silent", 500'000, 10'000'000, M, FP32, Bound::Latency, 400e12, kSilent},
    {"unknown_bound_gemms_are_silent", 500'000, 10'000'000, M, FP32, Bound::Unknown, 400e12, kSilent},
    {"tf32_gemms_are_silent", 500'000, 10'000'000, M, Precision::TF32, Bound::Compute, 400e12, kSilent,
     "cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4"},
    // A name that says tensor cores is never counted, whatever the model's inputs (an FP8 GEMM's
    // fp32 scales).
    {"tensor_core_names_are_silent", 500'000, 10'000'000, M, FP32, Bound::Compute, 400e12, kSilent,
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"},
    // A name that is silent (cuBLASLt's nvjet on fp32 inputs) counts by its model.
    {"silent_names_count_by_their_model", 500'000, 10'000'000, M, FP32, Bound::Compute, 400e12, kInfo,
     "nvjet_sm90_sss_128x128_64x4_1x2_h_bz_coopA_NNT"},
    {"vector_work_is_silent", 500'000, 10'000'000, MathUnit::Vector, FP32, Bound::Compute, 400e12, kSilent,
     "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >"},
    {"no_tf32_faster_than_fp32_is_silent", 500'000, 10'000'000, M, FP32, Bound::Compute, 50e12, kSilent},
    {"tf32_just_faster_than_fp32_fires", 500'000, 10'000'000, M, FP32, Bound::Compute, 50.001e12, kInfo},
};

class Fp32MatmulEdges : public ::testing::TestWithParam<Case> {};

TEST_P(Fp32MatmulEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  const Ceilings gpu = test_gpu(c.tf32_flop_per_s);
  Trace t;
  Facts f;
  f.gpu_busy_ns = kGpuBusyNs;
  f.window.duration_ns = c.window_ns;
  f.roofline.devices.push_back({0, gpu.name, &gpu, std::nullopt, 132, ""});
  RooflineVerdict v;
  v.ns = c.gemm_ns;
  v.flops = 10e12 * c.gemm_ns * 1e-9;  // 10 TFLOP/s
  v.roof_precision = c.roof;
  v.bound = c.bound;
  const RooflineGroup& g = add_kernel_group(t, f, c.kernel, "aten::mm", 4, v, c.unit, 0);
  const auto x = expect_outcome(run_rule(rule_fp32_matmul, t, f), c.want, t);
  if (!x) return;
  const double speedup = c.tf32_flop_per_s / 50e12;
  EXPECT_DOUBLE_EQ(evidence(*x, "fp32_gemm_us"), c.gemm_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "calls"), 4);
  EXPECT_DOUBLE_EQ(evidence(*x, "achieved_tflops"), 10);
  EXPECT_DOUBLE_EQ(evidence(*x, "fp32_peak_tflops"), 50);
  EXPECT_DOUBLE_EQ(evidence(*x, "tf32_peak_tflops"), c.tf32_flop_per_s / 1e12);
  EXPECT_DOUBLE_EQ(evidence(*x, "tf32_speedup"), speedup);
  EXPECT_DOUBLE_EQ(evidence(*x, "tf32_estimate_us"), static_cast<int64_t>(c.gemm_ns * 50e12 / c.tf32_flop_per_s) / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_share"), 100.0 * c.gemm_ns / kGpuBusyNs);
  EXPECT_DOUBLE_EQ(evidence(*x, "bf16_speedup"), 16);
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{g.example});
}

INSTANTIATE_TEST_SUITE_P(Rules, Fp32MatmulEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// Measured ceilings (--peaks) replace the datasheet's when they have both the fp32 and the TF32
// rate; a GPU with no bf16 rate gets no bf16 estimate.
TEST(Fp32Matmul, MeasuredCeilingsWhenTheyHaveBothRates) {
  const Ceilings datasheet = test_gpu();
  Ceilings measured;
  measured.flop_per_s[static_cast<size_t>(Precision::FP32)] = 40e12;
  measured.flop_per_s[static_cast<size_t>(Precision::TF32)] = 200e12;
  for (bool with_tf32 : {true, false}) {
    if (!with_tf32) measured.flop_per_s[static_cast<size_t>(Precision::TF32)] = 0;
    Trace t;
    Facts f;
    f.gpu_busy_ns = kGpuBusyNs;
    f.window.duration_ns = 10'000'000;
    f.roofline.devices.push_back({0, "Test GPU", &datasheet, measured, 132, ""});
    RooflineVerdict v;
    v.ns = 500'000;
    v.flops = 1e9;
    v.roof_precision = Precision::FP32;
    v.bound = Bound::Compute;
    add_kernel_group(t, f, "ampere_sgemm_128x64_nn", "aten::mm", 1, v, MathUnit::Matrix, 0);
    const auto x = expect_outcome(run_rule(rule_fp32_matmul, t, f), kInfo, t);
    ASSERT_TRUE(x);
    EXPECT_DOUBLE_EQ(evidence(*x, "fp32_peak_tflops"), with_tf32 ? 40 : 50);
    EXPECT_DOUBLE_EQ(evidence(*x, "tf32_peak_tflops"), with_tf32 ? 200 : 400);
    EXPECT_EQ(has_evidence(*x, "bf16_speedup"), !with_tf32);  // the measured set has no bf16 rate
  }
}

}  // namespace
}  // namespace whyslow
