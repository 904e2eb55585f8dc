// overhead_bound / gpu_bound at their edges: GPU busy ≥ 80 % of the median steady step is
// GPU-bound, < 50 % overhead-bound, anything between says nothing (docs/JSON.md).
#include <algorithm>

#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  int steps;  // 0: no ProfilerStep annotations, the whole window stands in for a step
  int64_t step_ns, gpu_busy_ns;
  Outcome want;
};

const Case kCases[] = {
    // kGpuBoundShare = 0.80 (bound_scope.cpp): the rest of these steps waits for the CPU's launches.
    {"busy_79_999_of_100_000_is_overhead_bound_info", 3, 100'000, 79'999,
     fires(FindingId::overhead_bound, Severity::Info)},  // launch 20.001 % < kBoundWarningShare = 0.30
    {"busy_70_000_of_100_000_is_overhead_bound_warning", 3, 100'000, 70'000,
     fires(FindingId::overhead_bound, Severity::Warning)},  // launch 30 % = kBoundWarningShare
    {"busy_80_000_of_100_000_is_gpu_bound", 3, 100'000, 80'000, fires(FindingId::gpu_bound, Severity::Info)},
    {"busy_past_the_step_end_is_gpu_bound", 3, 100'000, 150'000, fires(FindingId::gpu_bound, Severity::Info)},
    {"window_busy_80_000_of_100_000_is_gpu_bound", 0, 100'000, 80'000, fires(FindingId::gpu_bound, Severity::Info)},
    {"busy_50_000_of_100_000_is_overhead_bound", 3, 100'000, 50'000,
     fires(FindingId::overhead_bound, Severity::Warning)},
    {"busy_49_999_of_100_000_is_overhead_bound", 3, 100'000, 49'999,
     fires(FindingId::overhead_bound, Severity::Warning)},
    {"window_busy_49_999_of_100_000_is_overhead_bound", 0, 100'000, 49'999,
     fires(FindingId::overhead_bound, Severity::Warning)},
    // A CPU-only trace has no GPU to compare with.
    {"no_gpu_work_is_silent", 3, 100'000, 0, kSilent},
};

class StepBoundEdges : public ::testing::TestWithParam<Case> {};

TEST_P(StepBoundEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  if (c.steps > 0) add_steps(t, f, c.steps, {c.step_ns, c.gpu_busy_ns, 0});
  else set_window(f, {c.step_ns, c.gpu_busy_ns, 0});
  const auto x = expect_outcome(run_rule(rule_step_bound, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "step_us"), c.step_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_busy_us"), c.gpu_busy_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_busy_pct"), std::min(1.0, static_cast<double>(c.gpu_busy_ns) / c.step_ns) * 100);
  // With steps, a typical step is the event to look at; the window has no event of its own.
  EXPECT_EQ(x->events.size(), c.steps > 0 ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(Rules, StepBoundEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// The cold-start step is not steady state: its busy GPU does not make idle steady steps GPU-bound.
TEST(StepBound, LeavesTheColdStartStepOutOfTheMedian) {
  Trace t;
  Facts f;
  add_steps(t, f, 1, {100'000, 40'000, 0});
  add_step(t, f, {10'000'000, 10'000'000, 0});
  f.gpu_busy_ns += 10'000'000;
  EXPECT_EQ(to_string(run_rule(rule_step_bound, t, f).at(0).id), "gpu_bound");
  f.cold_start.step_index = 1;
  const auto x = expect_outcome(run_rule(rule_step_bound, t, f), fires(FindingId::overhead_bound, Severity::Warning), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "step_us"), 100);
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{f.steps[0].event});
}

}  // namespace
}  // namespace whyslow
