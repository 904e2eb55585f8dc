// The lab's traces (lab/run_lab.sh on the H200, recorded by the whyslow profiler from
// lab_matmul_bias): whyslow's findings and step counts must agree with what each run measured
// and with what the program launches. lab/RESULTS.md holds the measurements: a 64×64 GEMM + bias
// add takes ~20 µs of GPU time per step against ~30 µs of wall time (overhead-bound); a 4096×4096
// fp32 one takes 2.8 ms per step at 92 % of the measured fp32 ceiling (GPU-bound); the cold run's
// first step takes 101 ms (4096) and 148 ms (64), the cuBLAS handle created inside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "test_support.hpp"

namespace whyslow {
namespace {

testing::Explained lab(const std::string& name) {
  return testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/lab/" + name + ".json.gz");
}

std::set<std::string> ids(const std::vector<Finding>& findings) {
  std::set<std::string> out;
  for (const Finding& f : findings) out.insert(std::string(to_string(f.id)));
  return out;
}

// Every recorded step launches `launches` pieces of GPU work and runs `kernels` kernels.
// (and `memsets` memsets: cuBLASLt's Hopper kernels zero a 4-byte counter first).
void expect_per_step(const testing::Explained& e, uint32_t launches, uint32_t kernels, uint32_t memsets = 0) {
  ASSERT_EQ(e.facts.steps.size(), 5u);
  for (const StepFacts& s : e.facts.steps) {
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.launches, launches);
    EXPECT_EQ(s.kernels, kernels);
    EXPECT_EQ(s.memsets, memsets);
    EXPECT_EQ(s.memcpys, 0u);
  }
}

TEST(LabTraces, SmallSeparateIsOverheadBoundWithTwoLaunchesPerStep) {
  const auto e = lab("mm_64_fp32_separate");
  const auto found = ids(e.findings);
  EXPECT_TRUE(found.count("overhead_bound"));
  EXPECT_FALSE(found.count("gpu_bound"));
  expect_per_step(e, 2, 2);  // the GEMM and the bias add; cudaEventSynchronize is no launch
  // The first recorded step is ~0.9 ms against ~31 µs, nearly all of it CUPTI's first buffer
  // request: the profiler's cost (profiler_artifact), not the program's start-up (no cold_start).
  EXPECT_TRUE(found.count("profiler_artifact"));
  EXPECT_FALSE(found.count("cold_start"));
}

TEST(LabTraces, FusedEpilogueRunsOneKernelPerStep) {
  const auto e = lab("mm_64_fp32_fused");
  EXPECT_TRUE(ids(e.findings).count("overhead_bound"));
  expect_per_step(e, 1, 1);
  // At 4096 bf16 cuBLASLt picks an sm90 kernel (nvjet_…_bias) that needs a 4-byte counter zeroed
  // first: still one kernel, but two launches (cudaMemsetAsync + cuLaunchKernelEx).
  const auto big = lab("mm_4096_bf16_fused");
  EXPECT_TRUE(ids(big.findings).count("gpu_bound"));
  expect_per_step(big, 2, 1, 1);
}

TEST(LabTraces, GraphReplayIsOneLaunchForBothKernels) {
  const auto e = lab("mm_64_fp32_graph");
  EXPECT_TRUE(ids(e.findings).count("overhead_bound"));
  expect_per_step(e, 1, 2);
}

TEST(LabTraces, LargeFp32IsGpuBound) {
  const auto e = lab("mm_4096_fp32_separate");
  const auto found = ids(e.findings);
  EXPECT_TRUE(found.count("gpu_bound"));
  EXPECT_TRUE(found.count("sync_wait"));  // the step ends in cudaEventSynchronize on 2.8 ms of GEMM
  EXPECT_FALSE(found.count("overhead_bound"));
  expect_per_step(e, 2, 2);
}

TEST(LabTraces, ColdRunsShowTheColdStartInTheFirstStep) {
  for (const char* name : {"mm_4096_fp32_cold", "mm_64_fp32_cold"}) {
    SCOPED_TRACE(name);
    const auto e = lab(name);
    ASSERT_TRUE(ids(e.findings).count("cold_start"));
    EXPECT_EQ(e.facts.cold_start.step_index, 0);
    // 101 ms (4096) and 148 ms (64) against steady steps of 2.85 ms and ~31 µs.
    EXPECT_GT(e.facts.cold_start.step_ns, 90'000'000);
    EXPECT_GE(e.facts.cold_start.step_ns, 10 * e.facts.cold_start.typical_step_ns);
    expect_per_step(e, 2, 2);
  }
  // The 64×64 cold step is mostly cuBLAS's handle creation inside the `matmul` scope: no CUDA
  // call shows it, so whyslow measures it as first-call work inside that scope.
  const auto e = lab("mm_64_fp32_cold");
  const auto& causes = e.facts.cold_start.causes;
  EXPECT_TRUE(std::any_of(causes.begin(), causes.end(), [](const ColdCause& c) { return c.kind == ColdCauseKind::FirstCallWork; }));
}

}  // namespace
}  // namespace whyslow
