// `whyslow diff` on pairs recorded on the H200 with ten steps each (tests/fixtures/diff/). Per-step
// counts and times were taken independently from the raw trace files with Python (ProfilerStep
// windows; GPU work counted where its launch call starts inside the window; intervals merged):
// that is the oracle here, not whyslow's own output.
#include <gtest/gtest.h>

#include <algorithm>

#include "diff/diff.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

std::string diff_fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/diff/" + name + ".json.gz"; }

struct Pair {
  Trace ta, tb;
  Facts fa, fb;
  Diff d;
};

Pair diff_pair(const std::string& a, const std::string& b) {
  Pair p{load_trace(a), load_trace(b), {}, {}, {}};
  p.fa = analyze(p.ta);
  p.fb = analyze(p.tb);
  p.d = diff_traces(p.ta, p.fa, p.tb, p.fb);
  return p;
}

TEST(Diff, PointwiseChainCompileFusesSixKernelsIntoOne) {
  const Pair p = diff_pair(diff_fixture("pointwise_chain"), diff_fixture("pointwise_chain_compiled"));
  const Diff& d = p.d;
  EXPECT_EQ(d.a.steps, 10u);
  EXPECT_EQ(d.b.steps, 10u);
  EXPECT_EQ(d.a.kernels.median, 6);   // x*2, +1, sin, *x, relu, -0.5
  EXPECT_EQ(d.b.kernels.median, 1);   // triton_poi_fused_add_mul_relu_sin_sub_0
  EXPECT_EQ(d.a.launches.median, 6);
  EXPECT_EQ(d.b.launches.median, 1);
  EXPECT_EQ(d.a.step.median, 949984);  // upper median of the ten ProfilerStep durations (ns)
  EXPECT_EQ(d.b.step.median, 223457);
  ASSERT_EQ(d.replacements.size(), 1u);
  EXPECT_EQ(d.replacements[0].fusion, "kernel");
  EXPECT_EQ(d.replacements[0].a_work.size(), 6u);
  ASSERT_EQ(d.replacements[0].b_work.size(), 1u);
  EXPECT_EQ(d.replacements[0].b_work[0], "triton_poi_fused_add_mul_relu_sin_sub_0");
  EXPECT_TRUE(d.verdict.comparable);
  EXPECT_EQ(d.verdict.faster, "b");
  EXPECT_LT(d.verdict.delta_gpu_busy_ns, 0);  // the saving is GPU work: 5 fewer passes over 256 MB
  EXPECT_TRUE(d.b.compile.present());
  EXPECT_EQ(d.b.compile.region_calls, 1);
  EXPECT_EQ(d.b.compile.cache_lookups, 1);
}

TEST(Diff, CompiledMlpIsSlowerBecauseOfCpuWork) {
  // The story: compile saves a little GPU work but adds wrapper CPU time to a step that
  // is overhead-bound, so the step gets slower. Medians: 178.845 µs → 243.611 µs; noise is twice
  // the larger MAD (12.015 µs), far below the 64.8 µs difference.
  const Pair p = diff_pair(diff_fixture("mlp_bf16"), diff_fixture("mlp_bf16_compiled"));
  const Diff& d = p.d;
  EXPECT_EQ(d.a.kernels.median, 4);
  EXPECT_EQ(d.b.kernels.median, 4);
  EXPECT_EQ(d.verdict.faster, "a");
  EXPECT_EQ(d.verdict.delta_step_ns, 243611 - 178845);
  EXPECT_EQ(d.verdict.noise_ns, 2 * 12015);
  EXPECT_GT(d.verdict.delta_cpu_ns, 0);
  EXPECT_LT(d.verdict.delta_gpu_busy_ns, 0);
  EXPECT_EQ(d.verdict.decided_by, "cpu");
  EXPECT_TRUE(d.verdict.syncs_every_step);
}

TEST(Diff, TinyMatmulBiasFusedIntoTheGemm) {
  const Pair p = diff_pair(diff_fixture("mm_bias_64_fp32"), diff_fixture("mm_bias_64_fp32_compiled"));
  const Diff& d = p.d;
  EXPECT_EQ(d.a.kernels.median, 2);
  EXPECT_EQ(d.b.kernels.median, 1);
  ASSERT_EQ(d.replacements.size(), 1u);
  const Replacement& r = d.replacements[0];
  EXPECT_EQ(r.fusion, "kernel");  // GEMM + add kernel → one GEMM launched by aten::addmm
  EXPECT_EQ(r.a_ops, (std::vector<std::string>{"aten::add", "aten::mm"}));
  EXPECT_EQ(r.b_ops, (std::vector<std::string>{"aten::addmm"}));
  // 136.860 µs vs 120.948 µs, inside the noise of twice A's MAD (16.790 µs): no verdict either way.
  EXPECT_EQ(d.verdict.faster, "same");
  EXPECT_EQ(d.verdict.noise_ns, 2 * 16790);
}

TEST(Diff, LargeGemmIsGpuBound) {
  const Pair p = diff_pair(diff_fixture("mm_bias_4096_fp32"), diff_fixture("mm_bias_4096_fp32_compiled"));
  EXPECT_EQ(p.d.a.gpu_busy.median, 2734802);  // GEMM + add, not overlapping
  EXPECT_EQ(p.d.verdict.decided_by, "gpu");
  EXPECT_EQ(p.d.verdict.faster, "same");  // -62.5 µs against a noise of 2 × 52.477 µs
}

TEST(Diff, CudaGraphReplay) {
  const Pair p = diff_pair(diff_fixture("mlp_bf16"), diff_fixture("mlp_bf16_reduce_overhead"));
  const Diff& d = p.d;
  EXPECT_EQ(d.b.graphs.launches, 1);           // one cudaGraphLaunch per step
  EXPECT_EQ(d.b.graphs.kernels_per_launch, 4);  // the MLP's four kernels
  EXPECT_EQ(d.b.kernels.median, 5);             // plus the static-input copy (multi_tensor_apply)
  EXPECT_EQ(d.b.launches.median, 2);
  ASSERT_TRUE(d.b.launches_by_api.count("cudaGraphLaunch"));
  EXPECT_EQ(d.b.launches_by_api.at("cudaGraphLaunch").median, 1);
  ASSERT_FALSE(d.replacements.empty());
  EXPECT_EQ(d.replacements[0].fusion, "graph");
}

TEST(Diff, UnrelatedWorkloadsGetNoVerdict) {
  const Pair p = diff_pair(testing::fixture("item_pageable.json.gz"), testing::fixture("mm_bias_4096_fp32.json.gz"));
  EXPECT_FALSE(p.d.verdict.comparable);
  ASSERT_FALSE(p.d.mismatches.empty());
  EXPECT_NE(p.d.mismatches.back().find("different workloads"), std::string::npos);
}

TEST(Diff, ColdStepIsLeftOutAndSaidSo) {
  const Pair p = diff_pair(testing::fixture("mm_bias_64_fp32_cold.json.gz"), testing::fixture("mm_bias_64_fp32.json.gz"));
  EXPECT_EQ(p.d.a.steps, 3u);  // 4 steps, ProfilerStep#0 left out
  ASSERT_EQ(p.d.a.left_out.size(), 1u);
  EXPECT_NE(p.d.a.left_out[0].find("ProfilerStep#0"), std::string::npos);
  const bool said = std::any_of(p.d.mismatches.begin(), p.d.mismatches.end(),
                                [](const std::string& m) { return m.find("cold start") != std::string::npos; });
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace whyslow
