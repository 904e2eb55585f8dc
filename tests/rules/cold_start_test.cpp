// cold_start at its edges. Whether a step is a cold start is decided by the analysis pass
// (analysis/cpu/cold_start.cpp: ≥ 3× the median of the other steps, ≥ 200 µs longer, start-up work
// explaining ≥ half of the extra time; without steps, start-up work ≥ 1 ms and ≥ 10 % of the
// window, as docs/JSON.md says); the rule words it, and calls it critical from 10× the typical
// step. The first table runs the rule on the facts alone; the second builds traces around the
// pass's thresholds and runs pass and rule together.
#include "analysis/passes.hpp"
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

// ---- the rule: severity from the slow step's ratio to the typical one ----

struct RuleCase {
  const char* name;
  int64_t slow_ns, typical_ns;
  Outcome want;
};

const RuleCase kRuleCases[] = {
    // kCriticalRatio = 10
    {"ratio_9_99_is_a_warning", 999'000, 100'000, fires(FindingId::cold_start, Severity::Warning)},
    {"ratio_10_is_critical", 1'000'000, 100'000, fires(FindingId::cold_start, Severity::Critical)},
};

class ColdStartRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(ColdStartRule, SeverityFromTheRatio) {
  const RuleCase& c = GetParam();
  Trace t;
  Facts f;
  add_steps(t, f, 2, {c.typical_ns, 0, 0});
  add_step(t, f, {c.slow_ns, 0, 0});
  const EventId malloc = add_event(t, EventKind::Runtime, "cudaMalloc", f.steps[2].start_ns, c.slow_ns - c.typical_ns);
  f.cold_start.step_index = 2;
  f.cold_start.step_ns = c.slow_ns;
  f.cold_start.typical_step_ns = c.typical_ns;
  ColdCause cause;
  cause.kind = ColdCauseKind::MemoryAllocation;
  cause.count = 1;
  cause.total_ns = c.slow_ns - c.typical_ns;
  f.cold_start.causes = {cause};
  f.cold_start.evidence = {malloc};
  const auto x = expect_outcome(run_rule(rule_cold_start, t, f), c.want, t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "step_us"), c.slow_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "typical_step_us"), c.typical_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "ratio"), static_cast<double>(c.slow_ns) / c.typical_ns);
  EXPECT_DOUBLE_EQ(evidence(*x, "explained_us"), (c.slow_ns - c.typical_ns) / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "memory_allocation_us"), (c.slow_ns - c.typical_ns) / 1e3);
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{f.steps[2].event, malloc}));
}

INSTANTIATE_TEST_SUITE_P(Rules, ColdStartRule, ::testing::ValuesIn(kRuleCases), case_name<RuleCase>);

TEST(ColdStartRule, SilentWithoutAnOutlierOrCauses) {
  Trace t;
  Facts f;
  add_steps(t, f, 3, {100'000, 0, 0});
  expect_outcome(run_rule(rule_cold_start, t, f), kSilent, t);
}

// ---- the pass and the rule: which step is a cold start ----

struct DetectCase {
  const char* name;
  int64_t typical_ns;  // two steps of this length…
  int64_t slow_ns;     // …then one of this length, which starts with…
  int64_t malloc_ns;   // …a cudaMalloc this long (start-up work)
  int64_t profiler_ns; // …then CUPTI buffer requests this long (not start-up work)
  Outcome want;
};

constexpr Outcome kCold = fires(FindingId::cold_start, Severity::Warning);

const DetectCase kDetectCases[] = {
    // kOutlierRatio = 3 (200 µs typical: the excess stays over 200 µs)
    {"ratio_just_under_3_is_no_outlier", 200'000, 599'999, 399'999, 0, kSilent},
    {"ratio_3_is_an_outlier", 200'000, 600'000, 400'000, 0, kCold},
    // kOutlierMinExcessNs = 200 µs (50 µs typical: the ratio stays over 3)
    {"excess_199_999_ns_is_no_outlier", 50'000, 249'999, 199'999, 0, kSilent},
    {"excess_200_us_is_an_outlier", 50'000, 250'000, 200'000, 0, kCold},
    // kMinExplainedShare = 0.5 of the 1 ms extra time
    {"start_up_work_under_half_the_excess_is_no_cold_start", 200'000, 1'200'000, 499'999, 0, kSilent},
    {"start_up_work_half_the_excess_is_a_cold_start", 200'000, 1'200'000, 500'000, 0, kCold},
    // The profiler's buffer requests are neither extra time nor start-up work.
    {"a_step_slow_only_from_profiler_buffers_is_no_cold_start", 200'000, 1'200'000, 0, 1'000'000, kSilent},
    {"profiler_buffers_leave_the_excess_under_200_us", 200'000, 1'200'000, 199'999, 800'001, kSilent},
    {"profiler_buffers_leave_200_us_of_start_up_work", 200'000, 1'200'000, 200'000, 800'000, kCold},
};

class ColdStartDetection : public ::testing::TestWithParam<DetectCase> {};

TEST_P(ColdStartDetection, AsDocumented) {
  const DetectCase& c = GetParam();
  Trace t;
  Facts f;
  add_steps(t, f, 2, {c.typical_ns, 0, 0});
  const StepFacts& slow = add_step(t, f, {c.slow_ns, 0, 0});
  if (c.malloc_ns) add_event(t, EventKind::Runtime, "cudaMalloc", slow.start_ns, c.malloc_ns);
  if (c.profiler_ns)
    add_event(t, EventKind::Overhead, "Activity Buffer Request", slow.start_ns + c.malloc_ns, c.profiler_ns);
  f.cold_start = cold_start(t, f.steps, gpu_busy_intervals(t), Recorded::Gpu);
  const auto x = expect_outcome(run_rule(rule_cold_start, t, f), c.want, t);
  if (!x) return;
  EXPECT_EQ(f.cold_start.step_index, 2);
  EXPECT_DOUBLE_EQ(evidence(*x, "memory_allocation_us"), c.malloc_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "ratio"), static_cast<double>(c.slow_ns) / c.typical_ns);
}

INSTANTIATE_TEST_SUITE_P(Rules, ColdStartDetection, ::testing::ValuesIn(kDetectCases), case_name<DetectCase>);

// Without steps the whole window is cold when start-up work is ≥ 1 ms (kWindowColdMinNs) and
// ≥ 10 % of it (kWindowColdShare).
struct WindowCase {
  const char* name;
  int64_t window_ns, malloc_ns;
  Outcome want;
};

const WindowCase kWindowCases[] = {
    {"start_up_work_under_1_ms_is_not_cold", 5'000'000, 999'999, kSilent},
    {"start_up_work_of_1_ms_is_cold", 5'000'000, 1'000'000, kCold},
    {"start_up_work_under_10_pct_is_not_cold", 20'000'000, 1'999'999, kSilent},
    {"start_up_work_of_10_pct_is_cold", 20'000'000, 2'000'000, kCold},
};

class ColdStartWindow : public ::testing::TestWithParam<WindowCase> {};

TEST_P(ColdStartWindow, AsDocumented) {
  const WindowCase& c = GetParam();
  Trace t;
  Facts f;
  add_event(t, EventKind::CpuOp, "aten::mm", 0, c.window_ns);
  const EventId malloc = add_event(t, EventKind::Runtime, "cudaMalloc", 0, c.malloc_ns);
  f.cold_start = cold_start(t, f.steps, gpu_busy_intervals(t), Recorded::Gpu);
  const auto x = expect_outcome(run_rule(rule_cold_start, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "window_us"), c.window_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "explained_us"), c.malloc_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "memory_allocation_us"), c.malloc_ns / 1e3);
  EXPECT_FALSE(has_evidence(*x, "ratio"));
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{malloc});
}

INSTANTIATE_TEST_SUITE_P(Rules, ColdStartWindow, ::testing::ValuesIn(kWindowCases), case_name<WindowCase>);

}  // namespace
}  // namespace whyslow
