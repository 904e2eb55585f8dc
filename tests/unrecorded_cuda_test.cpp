// A GPU program's trace without its CUDA activity and without its CUDA calls (issue 46 item 3):
// only the ops are left, whose durations are their launches' while their shapes give the work.
// 4096×4096 fp32 matmuls "taking" 70 µs of CPU each are 2 PFLOP/s, which no CPU computes: the
// verdict is that the GPU's records are missing, never that the program runs on the CPU.
#include <gtest/gtest.h>

#include <string>

#include "loader_test_util.hpp"
#include "report/text/text_report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

// Three steps of `mms` aten::mm calls of `n`×`n` fp32 matrices, each `mm_us` long, on a machine
// whose trace describes an H200 (deviceProperties, as Kineto writes it).
std::string matmul_trace(int n, int mm_us, int mms = 8) {
  const std::string dims = "[" + std::to_string(n) + ", " + std::to_string(n) + "]";
  std::string events;
  int64_t ts = 0;
  for (int step = 0; step < 3; ++step) {
    const int64_t step_us = static_cast<int64_t>(mms) * (mm_us + 10) + 10;
    events += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(step) +
              R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(step_us) + "},\n";
    for (int i = 0; i < mms; ++i) {
      const int64_t at = ts + 5 + static_cast<int64_t>(i) * (mm_us + 10);
      events += R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + std::to_string(at) +
                R"(, "dur": )" + std::to_string(mm_us) + R"(, "args": {"Input Dims": [)" + dims + ", " + dims +
                R"(], "Input type": ["float", "float"]}},)" + "\n";
    }
    ts += step_us;
  }
  events.resize(events.size() - 2);  // the last ",\n"
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150012035072, )"
         R"("computeMajor": 9, "computeMinor": 0, "numSms": 132}], "traceEvents": [)" "\n" + events + "\n]}\n";
}

TEST(UnrecordedCuda, MatmulsFasterThanAnyCpuSayTheCudaActivityWasNotRecorded) {
  testing::TempDir dir;
  const auto x = testing::explain_file(dir.write("h200_no_cuda.json", matmul_trace(4096, 70)));
  EXPECT_EQ(x.facts.recording.what, Recorded::GpuNotRecorded);
  EXPECT_EQ(x.facts.recording.gpu_work_calls + x.facts.recording.gpu_records, 0u);
  const BeyondCpuFacts& b = x.facts.recording.beyond_cpu;
  EXPECT_EQ(b.op, "aten::mm");
  EXPECT_EQ(b.calls, 24u);
  EXPECT_DOUBLE_EQ(b.flops_per_call, 2.0 * 4096 * 4096 * 4096);
  EXPECT_NEAR(b.flops_per_s, 2.0 * 4096 * 4096 * 4096 / 70e-6, 1e9);
  ASSERT_FALSE(x.findings.empty());
  const Finding& f = x.findings[0];
  EXPECT_EQ(f.id, FindingId::gpu_not_recorded);
  EXPECT_NE(f.title.find("aten::mm: 2·M·N·K = 2·4096·4096·4096 = 137 GFLOP of fp32 per call in 70.0 µs"), std::string::npos)
      << f.title;
  EXPECT_NE(f.title.find("beyond any CPU's 100 TFLOP/s"), std::string::npos) << f.title;
  EXPECT_NE(f.detail.find("the CUDA activity was not recorded"), std::string::npos) << f.detail;
  EXPECT_NEAR(testing::evidence(f, "beyond_cpu_op_rate"), 1963.4, 1.0);  // TFLOP/s
  EXPECT_EQ(testing::find(x, FindingId::cpu_bound), nullptr);
  const std::string text = render_explain_text(x.trace, x.facts, x.findings, {});
  EXPECT_EQ(text.find("runs on the CPU"), std::string::npos) << text;
  EXPECT_EQ(text.find("runs nothing"), std::string::npos) << text;
  EXPECT_NE(text.find("ProfilerActivity.CUDA"), std::string::npos) << text;
}

// The same shapes at a CPU's pace (2 TFLOP/s: 137 GFLOP in 70 ms) are a CPU program's: its verdict
// stays cpu_bound, with the GPU the machine has named as unused.
TEST(UnrecordedCuda, MatmulsAtACpusPaceStayCpuBound) {
  testing::TempDir dir;
  const auto x = testing::explain_file(dir.write("h200_cpu_run.json", matmul_trace(4096, 70'000, 2)));
  EXPECT_EQ(x.facts.recording.what, Recorded::CpuOnly);
  EXPECT_TRUE(x.facts.recording.beyond_cpu.op.empty());
  const Finding* f = testing::find(x, FindingId::cpu_bound);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("runs nothing"), std::string::npos) << f->title;
}

}  // namespace
}  // namespace whyslow
