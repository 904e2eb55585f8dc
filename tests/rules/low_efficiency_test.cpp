// low_efficiency at its edges: a kernel shape group bound by compute or memory (not latency)
// reaching < 25 % of that roof, taking ≥ 10 % of GPU busy time and averaging ≥ 20 µs a call, and,
// when memory-bound, spilling L2, fires (docs/JSON.md). Always a warning.
#include <cmath>

#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  Bound bound;
  L2Fit l2;
  double pct_of_peak;
  int64_t ns;  // over all calls, of 1 ms GPU busy time
  uint64_t calls;
  Outcome want;
};

constexpr Outcome kFires = fires(FindingId::low_efficiency, Severity::Warning);
constexpr int64_t kGpuBusyNs = 1'000'000;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const Case kCases[] = {
    // kFarUnderPct = 25
    {"24_99_pct_of_the_roof_fires", Bound::Compute, L2Fit::Unknown, 24.99, 200'000, 1, kFires},
    {"25_pct_of_the_roof_is_silent", Bound::Compute, L2Fit::Unknown, 25, 200'000, 1, kSilent},
    {"no_rate_is_silent", Bound::Compute, L2Fit::Unknown, kNaN, 200'000, 1, kSilent},
    // kMinShareOfGpu = 0.10 of GPU busy time
    {"99_999_ns_of_1_ms_busy_is_silent", Bound::Compute, L2Fit::Unknown, 10, 99'999, 1, kSilent},
    {"100_us_of_1_ms_busy_fires", Bound::Compute, L2Fit::Unknown, 10, 100'000, 1, kFires},
    // kMinCallNs = 20 µs a call, on average
    {"ten_calls_averaging_19_999_9_ns_are_silent", Bound::Compute, L2Fit::Unknown, 10, 199'999, 10, kSilent},
    {"ten_calls_averaging_20_us_fire", Bound::Compute, L2Fit::Unknown, 10, 200'000, 10, kFires},
    // Only compute and memory roofs bound a kernel that could run faster.
    {"latency_bound_is_silent", Bound::Latency, L2Fit::Spills, 1, 500'000, 1, kSilent},
    {"unknown_bound_is_silent", Bound::Unknown, L2Fit::Spills, 1, 500'000, 1, kSilent},
    // Memory-bound: only when the working set spills L2 is device bandwidth the roof.
    {"memory_bound_spilling_l2_fires", Bound::Memory, L2Fit::Spills, 10, 200'000, 1, kFires},
    {"memory_bound_fitting_l2_is_silent", Bound::Memory, L2Fit::Fits, 10, 200'000, 1, kSilent},
    {"memory_bound_unknown_l2_is_silent", Bound::Memory, L2Fit::Unknown, 10, 200'000, 1, kSilent},
};

class LowEfficiencyEdges : public ::testing::TestWithParam<Case> {};

TEST_P(LowEfficiencyEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  f.gpu_busy_ns = kGpuBusyNs;
  RooflineVerdict v;
  v.ns = c.ns;
  v.bound = c.bound;
  v.l2 = c.l2;
  v.pct_of_peak = c.pct_of_peak;
  v.flop_per_s = 5e12;
  v.bytes_per_s = 400e9;
  const RooflineGroup& g = add_kernel_group(t, f, "slow_kernel", "aten::mm", c.calls, v);
  const auto x = expect_outcome(run_rule(rule_low_efficiency, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "kernel_us"), c.ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "pct_of_peak"), c.pct_of_peak);
  // kReachablePct = 75: the time at 75 % of the roof instead of pct_of_peak.
  EXPECT_DOUBLE_EQ(evidence(*x, "possible_saving_us"),
                   (c.ns - static_cast<int64_t>(c.ns * c.pct_of_peak / 75)) / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "kernels_affected"), 1);
  EXPECT_FALSE(has_evidence(*x, "pct_of_measured"));
  if (c.bound == Bound::Compute) {
    EXPECT_DOUBLE_EQ(evidence(*x, "achieved_tflops"), 5);
    EXPECT_FALSE(has_evidence(*x, "achieved_bandwidth"));
  } else {
    EXPECT_DOUBLE_EQ(evidence(*x, "achieved_bandwidth"), 400);
    EXPECT_FALSE(has_evidence(*x, "achieved_tflops"));
  }
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{g.example});
}

INSTANTIATE_TEST_SUITE_P(Rules, LowEfficiencyEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// The largest saving leads; every slow group counts toward the total; three are shown.
TEST(LowEfficiency, RanksGroupsBySaving) {
  Trace t;
  Facts f;
  f.gpu_busy_ns = kGpuBusyNs;
  std::vector<EventId> examples;
  for (int64_t ns : {100'000, 400'000, 200'000, 150'000}) {
    RooflineVerdict v;
    v.ns = ns;
    v.bound = Bound::Compute;
    v.pct_of_peak = 15;  // saves 80 % of its time at 75 %
    v.pct_of_measured = 20;
    v.flop_per_s = 1e12;
    std::string kernel(1, 'k');
    kernel += std::to_string(ns);
    examples.push_back(add_kernel_group(t, f, kernel, "aten::mm", 1, v).example);
  }
  const auto x = expect_outcome(run_rule(rule_low_efficiency, t, f), kFires, t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "kernel_us"), 400);
  EXPECT_DOUBLE_EQ(evidence(*x, "kernels_affected"), 4);
  EXPECT_DOUBLE_EQ(evidence(*x, "possible_saving_us"), 0.8 * 850);
  EXPECT_DOUBLE_EQ(evidence(*x, "pct_of_measured"), 20);
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{examples[1], examples[2], examples[3]}));
}

}  // namespace
}  // namespace whyslow
