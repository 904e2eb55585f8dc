// Issue 44 class 5: a stepless first inference's first calls are summed into its cold start, each
// against its own later calls on the same shapes. Generated: a model of 8 identical layers run once
// (one request, no ProfilerStep), each layer an aten::linear on the same shapes; the first linear
// pays 40 ms (a library's handle and heuristics: under the 100 ms slow-call threshold alone), the
// others 0.2 ms; 9 ms of other work.
#include <gtest/gtest.h>

#include <string>

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

// `gpu_recorded`: each linear launches a kernel the trace records (else only its launch call, as a
// trace recorded with CPU activity alone holds). `shapes`: Input Dims recorded.
std::string first_inference(bool gpu_recorded, bool shapes) {
  testing::GeneratedTrace t;
  const std::string dims = shapes ? R"({"Input Dims": [[64, 512], [512, 512], [512]]})" : "{}";
  int64_t at = 0;
  for (int layer = 0; layer < 8; ++layer) {
    const int64_t dur = layer == 0 ? 40'000 : 200;
    t.event("cpu_op", "aten::linear", 1, 1, at, dur, dims);
    const std::string c = std::to_string(layer + 1);
    t.event("cuda_runtime", "cudaLaunchKernel", 1, 1, at + dur - 20, 10, "{\"correlation\":" + c + "}");
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

}  // namespace
}  // namespace whyslow
