// Issue 44 class 3: an expert-parallel MoE step as DeepSeek's published profile shows it
// (deepseek-ai/profile-data's train.json, H800, EP64; not committed: the repository has no licence):
// DeepEP's dispatch and combine under DeepSeek's own namespace (dpsk::ep::) on one stream, FP8
// grouped GEMMs on another, GPU work longer than the step that launched it. The expert's reading of
// that trace's raw events: 113 ms of its 244 ms of kernel time is DeepEP's all-to-all, 4 ms of it
// exposed; the GEMMs already run in FP8; the GPU is saturated. Generated here with the same names.
#include <gtest/gtest.h>

#include <string>

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

constexpr const char* kGroupedFp8Gemm =
    "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>"
    "(dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)";
constexpr const char* kDispatch =
    "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, int*, int*)";
constexpr const char* kCombine = "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*)";

// Four 1 ms steps; each launches four 290 µs FP8 GEMMs on stream 7 and a dispatch and a combine of
// 200 µs on stream 27 beside them: 1.16 ms of GEMMs a step, so the GPU falls behind the CPU.
std::string expert_parallel_steps() {
  testing::GeneratedTrace t;
  int64_t correlation = 0, gemm_free = 0;
  auto launch = [&](const char* kernel, int64_t stream, int64_t at, int64_t start, int64_t dur) {
    const std::string c = std::to_string(++correlation);
    t.event("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 2, "{\"correlation\":" + c + "}");
    t.event("kernel", kernel, 0, stream, start, dur, "{\"correlation\":" + c + ",\"device\":0,\"stream\":" +
                                                          std::to_string(stream) + "}");
  };
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t at = 1000 * s;
    t.event("user_annotation", "ProfilerStep#" + std::to_string(s), 1, 1, at, 1000);
    for (int64_t g = 0; g < 4; ++g) {
      const int64_t launched = at + 10 + 100 * g;
      const int64_t start = std::max(launched + 5, gemm_free);
      launch(kGroupedFp8Gemm, 7, launched, start, 290);
      gemm_free = start + 290;
      if (g == 1) launch(kDispatch, 27, launched + 3, start + 20, 200);
      if (g == 3) launch(kCombine, 27, launched + 3, start + 20, 200);
    }
  }
  return t.take();
}

TEST(ExpertParallel, DeepEpUnderDeepSeeksNamespaceIsCommunication) {
  testing::TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("ep.json", expert_parallel_steps()));
  const Finding* x = testing::find(e, FindingId::gpu_bound);
  ASSERT_NE(x, nullptr);
  // Communication is counted: the dispatch and combine, 400 µs a step (compute is reported beside
  // it only then).
  ASSERT_EQ(e.facts.steps.size(), 4u);
  for (const StepFacts& s : e.facts.steps) EXPECT_EQ(s.comm_ns, 400'000);
  EXPECT_GT(testing::evidence(*x, "compute_us"), 0);
  // The GEMMs already run in FP8: no advice to lower their precision.
  for (const std::string& line : x->try_next) EXPECT_EQ(line.find("bf16/TF32"), std::string::npos) << line;
  // GPU work longer than its step is said in words, never as a share over 100 %.
  EXPECT_GT(testing::evidence(*x, "gpu_busy_us"), testing::evidence(*x, "step_us"));
  EXPECT_LE(testing::evidence(*x, "gpu_busy_pct"), 100.0);
  EXPECT_EQ(x->detail.find("merged) covers"), std::string::npos) << x->detail;
  EXPECT_NE(x->detail.find("longer than"), std::string::npos) << x->detail;
}

}  // namespace
}  // namespace whyslow
