// launch_queue at its edges: ≥ 3 linked launches and a longest launch→start delay ≥ 50 µs
// (docs/JSON.md). Always info: a queue is where the GPU timeline sits, not a fault.
#include <algorithm>

#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  std::vector<int64_t> delays_ns;  // one launch each
  Outcome want;
};

constexpr Outcome kFires = fires(FindingId::launch_queue, Severity::Info);

const Case kCases[] = {
    // kMinLaunches = 3
    {"two_launches_are_silent", {100'000, 100'000}, kSilent},
    {"three_launches_fire", {100'000, 100'000, 100'000}, kFires},
    // kQueueLatencyNs = 50 µs, for the longest delay
    {"longest_delay_49_999_ns_is_silent", {5'000, 10'000, 49'999}, kSilent},
    {"longest_delay_50_us_fires", {5'000, 10'000, 50'000}, kFires},
    {"one_long_delay_among_short_ones_fires", {5'000, 5'000, 5'000, 5'000, 2'000'000}, kFires},
};

class LaunchQueueEdges : public ::testing::TestWithParam<Case> {};

TEST_P(LaunchQueueEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  LaunchFacts& l = f.launches;
  for (size_t i = 0; i < c.delays_ns.size(); ++i) {
    const int64_t at = static_cast<int64_t>(i) * 10'000'000;
    const EventId call = add_event(t, EventKind::Runtime, "cudaLaunchKernel", at, 4'000);
    const EventId kernel = add_gpu_event(t, EventKind::Kernel, "gemm", at + c.delays_ns[i], 1'000);
    link_launch(t, call, kernel);
    ++l.launches, ++l.linked;
    l.delays_ns.push_back(c.delays_ns[i]);
    if (c.delays_ns[i] > l.max_delay_ns) l.max_delay_ns = c.delays_ns[i], l.max_delay_kernel = kernel;
  }
  std::sort(l.delays_ns.begin(), l.delays_ns.end());
  const auto x = expect_outcome(run_rule(rule_launch_queue, t, f), c.want, t);
  if (!x) return;
  const auto& d = l.delays_ns;
  EXPECT_DOUBLE_EQ(evidence(*x, "min_delay_us"), d.front() / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "median_delay_us"), d[d.size() / 2] / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "max_delay_us"), d.back() / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "launched_ops"), static_cast<double>(d.size()));
  // The longest-queued kernel, then its launch call.
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{l.max_delay_kernel, t.launch_link[l.max_delay_kernel]}));
}

INSTANTIATE_TEST_SUITE_P(Rules, LaunchQueueEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// The reading at its edge: the queue is the GPU's backlog ("healthy") only while under half of the
// launches that waited ≥ 50 µs waited on an idle GPU (LaunchFacts::held); at half or more it is held
// back. No steps here, so no lazy submission to name: the idle split is pointed to instead.
TEST(LaunchQueueReading, HeldWorkIsNotABacklog) {
  for (const uint64_t held : {1u, 2u}) {
    SCOPED_TRACE(held);
    Trace t;
    Facts f;
    LaunchFacts& l = f.launches;
    for (int i = 0; i < 3; ++i) {
      const int64_t at = i * 10'000'000;
      const EventId call = add_event(t, EventKind::Runtime, "cudaLaunchKernel", at, 4'000);
      const EventId kernel = add_gpu_event(t, EventKind::Kernel, "gemm", at + 100'000, 1'000);
      link_launch(t, call, kernel);
      ++l.launches, ++l.linked;
      l.delays_ns.push_back(100'000);
      l.max_delay_ns = 100'000, l.max_delay_kernel = kernel;
    }
    l.queued = 3, l.held = held;
    const auto x = expect_outcome(run_rule(rule_launch_queue, t, f), kFires, t);
    ASSERT_TRUE(x);
    EXPECT_EQ(evidence(*x, "held_launches"), static_cast<double>(held));
    EXPECT_EQ(evidence(*x, "queued_launches"), 3.0);
    const bool backlog = held * 2 <= l.queued;
    EXPECT_EQ(x->detail.find("healthy") != std::string::npos, backlog) << x->detail;
    EXPECT_EQ(x->title.find("held back, not queued behind GPU work") != std::string::npos, !backlog) << x->title;
  }
}

}  // namespace
}  // namespace whyslow
