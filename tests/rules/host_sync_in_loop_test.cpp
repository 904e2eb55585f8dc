// host_sync_in_loop at its edges: ≥ 4 host syncs per steady step (median over the steps), or
// ≥ 10 in a trace without steps (docs/JSON.md).
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  int steps;  // 0: no ProfilerStep annotations
  int syncs;  // per step, or in the whole window
  Outcome want;
};

constexpr Outcome kFires = fires(FindingId::host_sync_in_loop, Severity::Warning);
constexpr int64_t kStepNs = 1'000'000;

const Case kCases[] = {
    // kMinSyncsPerStep = 4
    {"three_syncs_per_step_are_silent", 3, 3, kSilent},
    {"four_syncs_per_step_fire", 3, 4, kFires},
    // kMinSyncsInWindow = 10
    {"nine_syncs_without_steps_are_silent", 0, 9, kSilent},
    {"ten_syncs_without_steps_fire", 0, 10, kFires},
};

class HostSyncInLoopEdges : public ::testing::TestWithParam<Case> {};

// Each sync sits inside an aten::item, as .item() issues them; sync i waits 1000 + i ns, so the
// last three are the longest.
EventId add_item_sync(Trace& t, Facts& f, int64_t start_ns, int i) {
  const EventId item = add_event(t, EventKind::CpuOp, "aten::item", start_ns, 2'000);
  return add_sync(t, f, start_ns + 100, 1'000 + i, 0, item);
}

TEST_P(HostSyncInLoopEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  std::vector<EventId> syncs;
  if (c.steps > 0) {
    add_steps(t, f, c.steps, {kStepNs, 0, 0});
    for (const StepFacts& s : f.steps)
      for (int i = 0; i < c.syncs; ++i)
        syncs.push_back(add_item_sync(t, f, s.start_ns + 10'000 * (i + 1), static_cast<int>(syncs.size())));
  } else {
    set_window(f, {kStepNs, 0, 0});
    for (int i = 0; i < c.syncs; ++i) syncs.push_back(add_item_sync(t, f, 10'000 * (i + 1), i));
  }
  const auto x = expect_outcome(run_rule(rule_host_sync_in_loop, t, f), c.want, t);
  if (!x) return;
  if (c.steps > 0) EXPECT_DOUBLE_EQ(evidence(*x, "syncs_per_step"), c.syncs);
  else EXPECT_FALSE(has_evidence(*x, "syncs_per_step"));
  EXPECT_DOUBLE_EQ(evidence(*x, "syncs"), static_cast<double>(syncs.size()));
  EXPECT_DOUBLE_EQ(evidence(*x, "total_wait_us"), f.syncs.total_wait_ns / 1e3);
  const size_t n = syncs.size();
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{syncs[n - 1], syncs[n - 2], syncs[n - 3]}));
}

INSTANTIATE_TEST_SUITE_P(Rules, HostSyncInLoopEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// The count is over steady steps: the cold-start step's syncs do not make a loop.
TEST(HostSyncInLoop, CountsSteadyStepsOnly) {
  Trace t;
  Facts f;
  add_steps(t, f, 2, {kStepNs, 0, 0});
  for (int i = 0; i < 4; ++i) add_item_sync(t, f, f.steps[0].start_ns + 10'000 * (i + 1), i);
  expect_outcome(run_rule(rule_host_sync_in_loop, t, f), kFires, t);  // {0, 4}: the median is the upper one
  f.cold_start.step_index = 0;
  expect_outcome(run_rule(rule_host_sync_in_loop, t, f), kSilent, t);  // {0}
}

}  // namespace
}  // namespace whyslow
