// `explain --step N`: the sliced trace holds exactly one step's CPU events and the GPU work they
// launched, and the whole pipeline runs on it unchanged.
#include <gtest/gtest.h>

#include "analysis/passes.hpp"
#include "test_support.hpp"
#include "trace/slice_trace.hpp"

namespace whyslow {
namespace {

TEST(SliceTrace, OneStepOfTheTinyMatmul) {
  const Trace full = load_trace(testing::fixture("mm_bias_64_fp32.json.gz"));
  const StepFacts step = measure_steps(full)[1];  // ProfilerStep#3
  ASSERT_EQ(step.name, "ProfilerStep#3");
  const Trace one = slice_trace(full, step.start_ns, step.end_ns);

  const std::vector<StepFacts> steps = measure_steps(one);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].duration_ns, step.duration_ns);
  EXPECT_EQ(steps[0].gpu_busy_ns, step.gpu_busy_ns);
  EXPECT_EQ(steps[0].kernels, 2u);
  EXPECT_EQ(steps[0].launches, 2u);

  // One call of each op of the step (torch's key_averages over one step).
  for (const OpRow& r : op_table(one)) {
    if (r.name == "aten::mm" || r.name == "aten::add" || r.name == "cudaLaunchKernel") {
      EXPECT_EQ(r.calls, 1u) << r.name;
    }
  }
  // Links survive the rebuild: both kernels still point at their launch calls.
  int linked = 0;
  for (EventId e = 0; e < one.size(); ++e)
    if (one.kind[e] == EventKind::Kernel && one.launch_link[e] != kNoEvent) ++linked;
  EXPECT_EQ(linked, 2);
  EXPECT_EQ(one.devices.size(), full.devices.size());
}

}  // namespace
}  // namespace whyslow
