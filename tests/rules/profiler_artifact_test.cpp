// profiler_artifact: fires when CUPTI "Activity Buffer Request" events are present
// (docs/JSON.md), pointing at the first three.
#include <algorithm>

#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  int requests;
  Outcome want;
};

const Case kCases[] = {
    {"no_buffer_request_is_silent", 0, kSilent},
    {"one_buffer_request_fires", 1, fires(FindingId::profiler_artifact, Severity::Info)},
    {"four_buffer_requests_show_three", 4, fires(FindingId::profiler_artifact, Severity::Info)},
};

class ProfilerArtifactEdges : public ::testing::TestWithParam<Case> {};

TEST_P(ProfilerArtifactEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  ProfilerOverheadFacts& p = f.profiler;
  for (int i = 0; i < c.requests; ++i) {
    p.events.push_back(add_event(t, EventKind::Overhead, "Activity Buffer Request", i * 1'000'000, 30'000));
    ++p.buffer_requests;
    p.buffer_request_ns += 30'000;
  }
  const auto x = expect_outcome(run_rule(rule_profiler_artifact, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "buffer_requests"), c.requests);
  EXPECT_DOUBLE_EQ(evidence(*x, "buffer_request_us"), c.requests * 30.0);
  const std::vector<EventId> first(p.events.begin(), p.events.begin() + std::min(c.requests, 3));
  EXPECT_EQ(event_ids(*x), first);
}

INSTANTIATE_TEST_SUITE_P(Rules, ProfilerArtifactEdges, ::testing::ValuesIn(kCases), case_name<Case>);

}  // namespace
}  // namespace whyslow
