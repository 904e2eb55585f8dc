// sync_wait at its edges: blocked time ≥ 10 % of the median steady step and ≥ 50 µs fires
// (docs/JSON.md); a warning when the GPU ran under half of the waits (it was idle), else info.
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  int steps;  // 0: no ProfilerStep annotations, the window stands in for a step
  int64_t step_ns;
  int64_t wait_ns;      // one sync per step, blocking this long…
  int64_t gpu_busy_ns;  // …while the GPU ran this long
  Outcome want;
};

constexpr Outcome kIdle = fires(FindingId::sync_wait, Severity::Warning);
constexpr Outcome kBusy = fires(FindingId::sync_wait, Severity::Info);

const Case kCases[] = {
    // kMinWaitShare = 0.10 of a 1 ms step
    {"wait_99_999_of_1_ms_is_silent", 3, 1'000'000, 99'999, 0, kSilent},
    {"wait_100_us_of_1_ms_fires", 3, 1'000'000, 100'000, 0, kIdle},
    {"window_wait_100_us_of_1_ms_fires", 0, 1'000'000, 100'000, 0, kIdle},
    // kMinWaitNs = 50 µs, in a 400 µs step where the share is over 10 % either way
    {"wait_49_999_ns_is_silent", 3, 400'000, 49'999, 0, kSilent},
    {"wait_50_us_fires", 3, 400'000, 50'000, 0, kIdle},
    // kIdleGpuShare = 0.50 of the waits
    {"gpu_busy_49_999_of_100_000_waited_is_idle", 3, 1'000'000, 100'000, 49'999, kIdle},
    {"gpu_busy_50_000_of_100_000_waited_is_busy", 3, 1'000'000, 100'000, 50'000, kBusy},
};

class SyncWaitEdges : public ::testing::TestWithParam<Case> {};

TEST_P(SyncWaitEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  if (c.steps > 0) {
    add_steps(t, f, c.steps, {c.step_ns, c.step_ns / 2, c.wait_ns});
    for (const StepFacts& s : f.steps) add_sync(t, f, s.start_ns, c.wait_ns, c.gpu_busy_ns);
  } else {
    set_window(f, {c.step_ns, c.step_ns / 2, c.wait_ns});
    add_sync(t, f, 0, c.wait_ns, c.gpu_busy_ns);
  }
  const auto x = expect_outcome(run_rule(rule_sync_wait, t, f), c.want, t);
  if (!x) return;
  const size_t calls = f.syncs.calls.size();
  EXPECT_DOUBLE_EQ(evidence(*x, "wait_per_step_us"), c.wait_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "step_us"), c.step_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "total_wait_us"), calls * c.wait_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_busy_during_waits_us"), calls * c.gpu_busy_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_busy_during_waits_pct"), 100.0 * c.gpu_busy_ns / c.wait_ns);
  EXPECT_DOUBLE_EQ(evidence(*x, "calls"), static_cast<double>(calls));
  ASSERT_EQ(x->events.size(), 1u);
  EXPECT_EQ(t.name_of(x->events[0].event), "cudaStreamSynchronize");
}

INSTANTIATE_TEST_SUITE_P(Rules, SyncWaitEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// The event to look at is the longest wait.
TEST(SyncWait, PointsAtTheLongestWait) {
  Trace t;
  Facts f;
  add_steps(t, f, 3, {1'000'000, 0, 200'000});
  add_sync(t, f, f.steps[0].start_ns, 150'000);
  const EventId longest = add_sync(t, f, f.steps[1].start_ns, 400'000);
  add_sync(t, f, f.steps[2].start_ns, 50'000);
  const auto x = expect_outcome(run_rule(rule_sync_wait, t, f), fires(FindingId::sync_wait, Severity::Warning), t);
  ASSERT_TRUE(x);
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{longest});
}

}  // namespace
}  // namespace whyslow
