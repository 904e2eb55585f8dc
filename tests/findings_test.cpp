// Each finding fires on the real trace that shows it and stays silent on those that do not. The
// expected sets were decided from what each workload does (tools/record_fixtures.py), not from
// whyslow's output: e.g. a 64×64 matmul + add per step cannot keep an H200 busy (overhead-bound),
// a 4096×4096 fp32 GEMM can (GPU-bound, and the CPU waits in the synchronize at the step's end).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::evidence;

std::set<std::string> ids(const std::vector<Finding>& findings) {
  std::set<std::string> out;
  for (const Finding& f : findings) out.insert(std::string(to_string(f.id)));
  return out;
}

const Finding& find(const std::vector<Finding>& findings, const std::string& id) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return std::string(to_string(f.id)) == id; });
  if (it == findings.end()) throw std::runtime_error("no finding " + id);
  return *it;
}


struct Case {
  const char* fixture;
  std::set<std::string> expected;
};

class FindingSets : public ::testing::TestWithParam<Case> {};

TEST_P(FindingSets, FireExactlyWhereTheTraceShowsThem) {
  const Case& c = GetParam();
  const auto e = testing::explain_file(testing::fixture(std::string(c.fixture) + ".json.gz"));
  EXPECT_EQ(ids(e.findings), c.expected);
  for (const Finding& f : e.findings) {
    EXPECT_FALSE(f.title.empty()) << std::string(to_string(f.id));
    EXPECT_FALSE(f.detail.empty()) << std::string(to_string(f.id));
    EXPECT_FALSE(f.evidence.empty()) << std::string(to_string(f.id)) << ": no finding without evidence";
    EXPECT_FALSE(f.try_next.empty()) << std::string(to_string(f.id));
  }
}

INSTANTIATE_TEST_SUITE_P(
    TorchFixtures, FindingSets,
    ::testing::Values(
        // Tiny GEMM + add, warmed up: the GPU idles while Python and the dispatcher launch; the
        // step splits between its `matmul` and `bias_add` blocks (48 % and 24 %: the hotspot's split).
        Case{"mm_bias_64_fp32", {"overhead_bound", "hotspot"}},
        Case{"mm_bias_64_bf16", {"overhead_bound", "hotspot"}},
        Case{"mm_bias_64_fp32_noscopes", {"overhead_bound", "no_annotations"}},
        Case{"mlp_bf16", {"overhead_bound", "hotspot"}},
        // 4096² fp32 GEMM: ~2.7 ms of GPU per ~2.8 ms step; the CPU waits in the final synchronize
        // and the kernels start long after their launch. The GEMM is an FFMA kernel (fp32 on the
        // CUDA cores, torch's default) at 51 TFLOP/s, where TF32 tensor cores would do ~7× that.
        Case{"mm_bias_4096_fp32", {"gpu_bound", "sync_wait", "launch_queue", "fp32_matmul"}},
        // 4096² bf16: ~0.22 ms GEMM in a ~0.3 ms step; the rest of the step the GPU waits for the
        // launches that follow the synchronize at its end (37 % of it): overhead-bound, mixed with a
        // busy GPU, and the wait for the GEMM still takes over a third of the step.
        Case{"mm_bias_4096_bf16", {"overhead_bound", "sync_wait", "launch_queue", "hotspot"}},
        // Cold: first step 100–1000× the others, with the profiler's buffer request inside.
        Case{"mm_bias_64_fp32_cold", {"cold_start", "overhead_bound", "launch_queue", "profiler_artifact", "hotspot"}},
        Case{"mm_bias_4096_fp32_cold",
             {"cold_start", "gpu_bound", "sync_wait", "launch_queue", "profiler_artifact", "fp32_matmul", "hotspot"}},
        Case{"compiled_cold",
             {"cold_start", "compiled_region", "overhead_bound", "launch_queue", "profiler_artifact"}},
        Case{"mm_bias_64_fp32_compiled", {"overhead_bound", "compiled_region", "hotspot"}},
        Case{"mm_bias_4096_bf16_compiled", {"overhead_bound", "compiled_region", "sync_wait", "hotspot"}},
        Case{"mlp_bf16_compiled", {"overhead_bound", "compiled_region", "hotspot"}},
        // Eight .item() per step plus a pageable upload and download; after each sync the GPU waits
        // for the next launch (21 % of the step).
        Case{"item_pageable",
             {"host_sync_in_loop", "pageable_memcpy", "sync_wait", "overhead_bound", "launch_queue", "hotspot"}},
        // addmm with a full (n, n) input copies it into the output before the GEMM; the 1024² fp32
        // GEMM itself (~56 µs, compute-bound, most of the GPU's time) runs on the CUDA cores.
        Case{"addmm_full_bias", {"overhead_bound", "hidden_copy", "fp32_matmul", "no_annotations"}},
        // Every third step a side-stream GEMM competes with the same main GEMM; in the median step the
        // GPU is busy 77 % and waits for the launches around the synchronize at its end 20 % (info).
        Case{"kernel_contention", {"kernel_variance", "overhead_bound", "sync_wait", "launch_queue"}},
        // The diff workloads' first recordings. Compiled tiny GEMM and MLP (also with CUDA graphs):
        // still overhead-bound, plus the compiled regions' own cost.
        Case{"mm_bias_64_bf16_compiled", {"overhead_bound", "compiled_region", "hotspot"}},
        Case{"mlp_bf16_reduce_overhead", {"overhead_bound", "compiled_region", "hotspot"}},
        // Compiled 4096² fp32: the same FFMA GEMM as eager, GPU-bound.
        Case{"mm_bias_4096_fp32_compiled", {"fp32_matmul", "gpu_bound", "sync_wait", "compiled_region"}},
        // Six eager elementwise kernels over 256 MB each step: unfused, the GPU busy 79 % of the
        // median step and waiting for the launches around its final synchronize 20 % (info), and the
        // CPU waits for the kernels.
        Case{"pointwise_chain", {"unfused_elementwise", "overhead_bound", "sync_wait", "launch_queue"}},
        // Fused into one Triton kernel: the step is now short enough to be overhead-bound.
        Case{"pointwise_chain_compiled", {"overhead_bound", "compiled_region", "sync_wait", "hotspot"}}),
    [](const auto& info) { return std::string(info.param.fixture); });

// Numbers behind findings, checked against counts taken by hand from the traces and torch's
// key_averages() in the .oracle.json next to each fixture.
TEST(FindingNumbers, HostSyncsPerStepInItemLoop) {
  // Per step: 8 × .item() and the download each end in cudaStreamSynchronize (oracle: 30 calls
  // over 3 steps = 10), plus the blocking download from pageable memory: 11. The blocking upload
  // of the input is not a read-back (pageable_memcpy's, below).
  const auto e = testing::explain_file(testing::fixture("item_pageable.json.gz"));
  EXPECT_EQ(evidence(find(e.findings, "host_sync_in_loop"), "syncs_per_step"), 11);
  // 6 pageable copies of 16 MiB each: 3 uploads, 3 downloads.
  const Finding& p = find(e.findings, "pageable_memcpy");
  EXPECT_EQ(evidence(p, "copies"), 6);
  EXPECT_EQ(evidence(p, "bytes"), 6.0 * (1 << 22) * 4);
}

TEST(FindingNumbers, HiddenCopyInsideAddmm) {
  // One Memcpy DtoD per step of the 1024×1024 fp32 input (4 MiB), 3 steps; oracle: 6.176 µs total.
  const auto e = testing::explain_file(testing::fixture("addmm_full_bias.json.gz"));
  const Finding& h = find(e.findings, "hidden_copy");
  EXPECT_EQ(evidence(h, "copies"), 3);
  EXPECT_EQ(evidence(h, "bytes"), 3.0 * 1024 * 1024 * 4);
  EXPECT_NEAR(evidence(h, "gpu_time_us"), 6.176, 0.001);
}

TEST(FindingNumbers, KernelVarianceFindsTheContendedCalls) {
  // Main GEMM: ~176 µs alone, ~267 µs in the 3 steps where the side-stream GEMM runs.
  const auto e = testing::explain_file(testing::fixture("kernel_contention.json.gz"));
  const Finding& k = find(e.findings, "kernel_variance");
  EXPECT_NEAR(evidence(k, "median_us"), 176, 2);
  EXPECT_NEAR(evidence(k, "slowest_us"), 268.254, 0.001);
}

TEST(FindingNumbers, ColdStartExplainsTheFirstStep) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"));
  const Finding& c = find(e.findings, "cold_start");
  EXPECT_EQ(c.severity, Severity::Critical);
  EXPECT_NEAR(evidence(c, "step_us"), 145018.426, 0.001);  // ProfilerStep#0's dur in the trace
  // The named causes never add up to more than the step's extra time.
  EXPECT_LE(evidence(c, "explained_us"), evidence(c, "step_us") - evidence(c, "typical_step_us") + 0.001);
  EXPECT_GE(evidence(c, "explained_us"), 0.5 * (evidence(c, "step_us") - evidence(c, "typical_step_us")));
}

}  // namespace
}  // namespace whyslow
