// Steps and the tables, against numbers read off the trace files by hand (and, for the union of
// overlapping GPU work, by an independent Python merge of the same intervals).
#include <gtest/gtest.h>

#include "analysis/passes.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

TEST(Steps, TinyMatmulStepFromTheTrace) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_64_fp32.json.gz"));
  ASSERT_EQ(e.facts.steps.size(), 3u);  // schedule(wait=1, warmup=1, active=3): #2, #3, #4
  const StepFacts& s = e.facts.steps[0];
  EXPECT_EQ(s.name, "ProfilerStep#2");
  EXPECT_EQ(s.duration_ns, 274975);      // "dur": 274.975
  EXPECT_EQ(s.kernels, 2u);              // the GEMM and the add
  EXPECT_EQ(s.launches, 2u);             // cudaLaunchKernelExC + cudaLaunchKernel
  EXPECT_EQ(s.gpu_busy_ns, 2944 + 1440); // the two kernels' "dur", which do not overlap
  EXPECT_EQ(s.sync_wait_ns, 5711);       // cudaDeviceSynchronize "dur": 5.711
  EXPECT_EQ(s.cpu_ns, 274975 - 5711);
}

TEST(Steps, OverlappingStreamsCountedOnce) {
  // ProfilerStep#2 of kernel_contention launches the main GEMM and a side-stream GEMM that
  // overlap, plus their memsets: the four intervals sum to 1659.154 µs, their union is 1546.355 µs
  // (merged independently in Python from the same trace).
  const auto e = testing::explain_file(testing::fixture("kernel_contention.json.gz"));
  const StepFacts& s = e.facts.steps[0];
  EXPECT_EQ(s.name, "ProfilerStep#2");
  EXPECT_EQ(s.kernels + s.memsets, 4u);
  EXPECT_EQ(s.gpu_busy_ns, 1546355);
}

TEST(Tables, AnnotationsCarryTheGpuTimeOfTheirKernels) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_64_fp32.json.gz"));
  const AnnotationRow* matmul = nullptr;
  for (const AnnotationRow& a : e.facts.annotations)
    if (a.name == "matmul") matmul = &a;
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->calls, 3u);
  EXPECT_EQ(matmul->kernels, 3u);
  EXPECT_EQ(matmul->gpu_ns, 3 * 2944);  // oracle: matmul (device) 8.832 µs
}

TEST(Tables, KernelTableFromTheTrace) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_64_fp32.json.gz"));
  ASSERT_EQ(e.facts.kernels.size(), 2u);
  const KernelRow& gemm = e.facts.kernels[0];  // sorted by total time
  EXPECT_EQ(gemm.calls, 3u);
  EXPECT_EQ(gemm.total_ns, 3 * 2944);
  EXPECT_EQ(gemm.min_ns, 2944);
  EXPECT_EQ(gemm.max_ns, 2944);
  EXPECT_GT(gemm.launch.block[0], 0);  // grid/block/registers come from the kernel's args
  EXPECT_GT(gemm.launch.registers, 0);
}

}  // namespace
}  // namespace whyslow
