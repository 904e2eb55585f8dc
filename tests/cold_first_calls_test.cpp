// Issue 44 class 5: a stepless first inference's first calls are summed into its cold start, each
// against its own later calls on the same shapes. Generated: a model of 8 identical layers run once
// (one request, no ProfilerStep), each layer an aten::linear on the same shapes; the first linear
// pays 40 ms (a library's handle and heuristics: under the 100 ms slow-call threshold alone), the
// others 0.2 ms; 9 ms of other work.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/graph/what_if.hpp"

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

// `gpu_recorded`: each linear launches a kernel the trace records (else only its launch call, as a
// trace recorded with CPU activity alone holds). `shapes`: Input Dims recorded. `first_launch_us`:
// the first linear's launch call takes this long (its kernel's module loaded on first use), the
// rest of the first linear's 40 ms outside it.
std::string first_inference(bool gpu_recorded, bool shapes, int64_t first_launch_us = 10) {
  testing::GeneratedTrace t;
  const std::string dims = shapes ? R"({"Input Dims": [[64, 512], [512, 512], [512]]})" : "{}";
  int64_t at = 0;
  for (int layer = 0; layer < 8; ++layer) {
    const int64_t dur = layer == 0 ? 40'000 : 200;
    t.event("cpu_op", "aten::linear", 1, 1, at, dur, dims);
    const std::string c = std::to_string(layer + 1);
    const int64_t launch = layer == 0 ? first_launch_us : 10;
    t.event("cuda_runtime", "cudaLaunchKernel", 1, 1, at + dur - 10 - launch, launch, "{\"correlation\":" + c + "}");
    if (gpu_recorded)
      t.event("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 0, 7, at + dur - 5, 50,
              "{\"correlation\":" + c + "}");
    t.event("cpu_op", "aten::relu", 1, 1, at + dur + 10, 1'000);
    at += dur + 1'100;
  }
  return t.take();
}

TEST(ColdFirstCalls, AFirstInferenceSumsItsFirstCalls) {
  testing::TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("first.json", first_inference(true, true)));
  const Finding* x = testing::find(e, FindingId::cold_start);
  ASSERT_NE(x, nullptr);
  // The first linear's 40 ms less its later calls' 0.2 ms.
  EXPECT_NEAR(testing::evidence(*x, "first_call_work_us"), 39'800, 1);
  EXPECT_TRUE(std::none_of(x->evidence.begin(), x->evidence.end(),
                           [](const Evidence& ev) { return ev.key == "first_launch_us"; }));
}

// Audit of CodingPlatelets/SwitchTransformers' cold MoE forward (A100): 118 ms of its first calls sat
// in the first launches of 15 kernels (aten::bitwise_not's cudaLaunchKernel took 15.3 ms), filed as
// "work with no CUDA call to show for it". A first call whose time is its kernel's first launch is
// that launch's module loading; the rest stays first-call work.
TEST(ColdFirstCalls, TimeInAKernelsFirstLaunchIsItsLoading) {
  testing::TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("first_launch.json", first_inference(true, true, 30'000)));
  const Finding* x = testing::find(e, FindingId::cold_start);
  ASSERT_NE(x, nullptr);
  EXPECT_NEAR(testing::evidence(*x, "first_launch_us"), 30'000, 1);
  EXPECT_NEAR(testing::evidence(*x, "first_call_work_us"), 9'800, 1);
  EXPECT_NE(x->detail.find("first launches"), std::string::npos) << x->detail;
}

// Without evidence that the later calls did the same work (no shapes), or where the GPU's work was
// not recorded (the first call may have waited for it), nothing is summed.
TEST(ColdFirstCalls, NotWithoutShapesOrWithTheGpuUnrecorded) {
  testing::TempDir dir;
  for (const auto& [name, gpu, shapes] : {std::tuple{"shapeless.json", true, false}, std::tuple{"cpu_activity.json", false, true}}) {
    const testing::Explained e = testing::explain_file(dir.write(name, first_inference(gpu, shapes)));
    EXPECT_EQ(testing::find(e, FindingId::cold_start), nullptr) << name;
  }
}

// A stepless run whose first launch takes 300 ms (the module loaded on first use, the GPU idle), then
// 100 ms of GPU-bound work it waits for at the end. A launch's lag runs from its call's start, so the first kernel's lag
// held the 300 ms: the one-off replay removed the call and kept the lag (the audit's Switch
// Transformer: 322.7 ms removed, the trace 8 % shorter where about a third was expected). With the
// loading gone, the lag loses it too. The first launch goes through cudaLaunchKernelExC, the rest
// through cudaLaunchKernel: 21 launches of one name would be a loop of 21 one-call iterations, the
// first cold (loops.cpp), and this test is about the whole stepless window.
TEST(ColdFirstCalls, RemovingAFirstLaunchsLoadingMovesItsKernelEarlier) {
  testing::GeneratedTrace t;
  t.launch(1, 0, 300'010, 5'000);
  t.event("cuda_runtime", "cudaLaunchKernelExC", 1, 1, 0, 300'000, "{\"correlation\":1}");
  for (int i = 0; i < 20; ++i) t.launch(2 + i, 300'020 + 10 * i, 305'010 + 5'000 * i, 5'000);
  t.event("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 300'300, 104'720);  // the script waits for its result
  std::string json = t.take();
  // launch() writes a 1 µs call; the first one is the slow call written after it: drop the short one.
  const std::string short_call = "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                                 "\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"correlation\":1}},\n";
  ASSERT_NE(json.find(short_call), std::string::npos);
  json.erase(json.find(short_call), short_call.size());
  testing::TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("slow_first_launch.json", json));
  ASSERT_NE(testing::find(e, FindingId::cold_start), nullptr);
  const WhatIfAnswer w = what_if(e.trace, e.facts, {{"one-off", ""}});
  EXPECT_NEAR(static_cast<double>(w.result.step_ns), 405'020e3, 1e6);
  // The 300 ms call and the kernel's wait for it gone: the 105 ms of GPU work and its launches left.
  EXPECT_NEAR(static_cast<double>(w.result.predicted_step_ns), 105'010e3, 2e6);
}

}  // namespace
}  // namespace whyslow
