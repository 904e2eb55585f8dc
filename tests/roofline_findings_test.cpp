// The roofline's findings on real H200 traces, with their numbers checked against hand counts:
// fp32_matmul, low_efficiency, unfused_elementwise. (Which fixtures each fires on, and which it
// stays silent on, is in findings_test.cpp's expected sets.)
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.hpp"

namespace whyslow {
namespace {

const Finding* find(const std::vector<Finding>& findings, const std::string& id) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return std::string(to_string(f.id)) == id; });
  return it == findings.end() ? nullptr : &*it;
}

double evidence(const Finding& f, const std::string& key) {
  for (const Evidence& e : f.evidence)
    if (e.key == key) return e.value;
  throw std::runtime_error(std::string(to_string(f.id)) + " has no evidence " + key);
}

testing::Explained roofline_fixture(const std::string& name) {
  return testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/roofline/" + name + ".json.gz");
}

TEST(RooflineFindings, Fp32MatmulOnThe4096Gemm) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_4096_fp32.json.gz"));
  const Finding* f = find(e.findings, "fp32_matmul");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning);  // the GEMMs are ~97 % of the profiled time
  EXPECT_EQ(evidence(*f, "calls"), 3);
  EXPECT_NEAR(evidence(*f, "fp32_gemm_us"), 3 * 2686, 10);          // three ~2.69 ms calls
  EXPECT_NEAR(evidence(*f, "tf32_speedup"), 494.5 / 67, 1e-9);      // H200 datasheet rates
  EXPECT_NEAR(evidence(*f, "achieved_tflops"), 2 * 4096.0 * 4096 * 4096 / 2.686e-3 / 1e12, 0.5);
  // The tf32 run of the same workload: TF32 kernels, so no finding; nor on bf16 or at 64×64.
  EXPECT_EQ(find(roofline_fixture("mm_bias_4096_tf32").findings, "fp32_matmul"), nullptr);
  EXPECT_EQ(find(roofline_fixture("mm_bias_4096_bf16").findings, "fp32_matmul"), nullptr);
  EXPECT_EQ(find(roofline_fixture("mm_bias_64_fp32").findings, "fp32_matmul"), nullptr);  // latency-bound
}

TEST(RooflineFindings, Fp32MatmulUsesMeasuredCeilingsWhenGiven) {
  const Ceilings measured = load_ceilings_file(std::string(WHYSLOW_FIXTURES) + "/../../data/peaks/h200_measured.json");
  const Trace t = load_trace(testing::fixture("mm_bias_4096_fp32.json.gz"));
  const Facts facts = analyze(t, {&measured});
  const std::vector<Finding> findings = explain(t, facts);
  const Finding* f = find(findings, "fp32_matmul");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(evidence(*f, "tf32_speedup"), measured.flops(Precision::TF32) / measured.flops(Precision::FP32), 1e-9);
}

TEST(RooflineFindings, UnfusedElementwiseCountsTheIntermediates) {
  // relu(sin(x * 2 + 1) * x) - 0.5 on 2^26 floats, 3 steps: six kernels per step, each link an
  // intermediate of 256 MiB written and read back: 5 links × 2 × 256 MiB per step.
  const auto e = testing::explain_file(testing::fixture("pointwise_chain.json.gz"));
  const Finding* f = find(e.findings, "unfused_elementwise");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(evidence(*f, "chains"), 3);  // one per step: a chain never crosses a step
  EXPECT_EQ(evidence(*f, "kernels"), 18);
  EXPECT_EQ(evidence(*f, "bytes_saved"), 3.0 * 5 * 2 * (1 << 28));
  // torch.compile's version runs one Triton kernel per step: nothing to fuse.
  EXPECT_EQ(find(testing::explain_file(testing::fixture("pointwise_chain_compiled.json.gz")).findings,
                 "unfused_elementwise"),
            nullptr);
}

TEST(RooflineFindings, LowEfficiencyOnTheAmpereAttentionKernel) {
  // The memory-efficient attention kernel is an sm80 CUTLASS design: on the H200 it reaches
  // 121 TFLOP/s, 12 % of the bf16 roof, on a compute-bound 8×16×1024×1024×64 problem.
  const auto e = roofline_fixture("ops_zoo");
  const Finding* f = find(e.findings, "low_efficiency");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(e.trace.name_of(f->events.front().event).find("fmha_cutlassF_bf16"), std::string::npos);
  EXPECT_NEAR(evidence(*f, "pct_of_peak"), 100 * (2.0 * 8 * 16 * 1024 * 1024 * 128 / 285e-6) / 989.5e12, 0.5);
  // Tuned kernels stay silent: the sweep's GEMMs and adds are all over a quarter of their roof.
  for (const char* n : {"mm_bias_4096_fp32", "mm_bias_8192_bf16", "l2_sweep_contiguous"})
    EXPECT_EQ(find(roofline_fixture(n).findings, "low_efficiency"), nullptr) << n;
}

}  // namespace
}  // namespace whyslow
