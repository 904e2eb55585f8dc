// What the rules mark for a timeline, by role (Finding::highlights), checked against the trace
// recomputed here from first principles; and the renderers (src/report/) never branch on a
// finding id, so a new rule needs no renderer change.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/core/event_names.hpp"
#include "explain/highlights.hpp"
#include "test_support.hpp"
#include "trace/steps.hpp"

namespace whyslow {
namespace {

using testing::find;


TEST(Highlights, LongestQueueDelaysAreTheLongestLaunchToStartGaps) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"));
  const Trace& t = e.trace;
  std::vector<int64_t> all;  // every linked launch → GPU start delay, by brute force
  for (EventId x = 0; x < t.size(); ++x)
    if (is_gpu_activity(t.kind[x]) && t.launch_link[x] != kNoEvent) all.push_back(t.start_ns[x] - t.start_ns[t.launch_link[x]]);
  std::sort(all.rbegin(), all.rend());
  ASSERT_GT(all.size(), 5u);
  const auto pairs = longest_queue_delays(t, 5);
  ASSERT_EQ(pairs.size(), 5u);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [launch, gpu] = pairs[i];
    EXPECT_EQ(t.launch_link[gpu], launch);
    EXPECT_EQ(t.start_ns[gpu] - t.start_ns[launch], all[i]) << i;
  }
  EXPECT_EQ(longest_queue_delays(t, all.size() + 10).size(), all.size());
}

TEST(Highlights, WaitsMarkEverySyncAndCoverOnlyGpuWorkInsideThem) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_4096_fp32.json.gz"));
  const Finding* x = find(e.findings, FindingId::sync_wait);
  ASSERT_NE(x, nullptr);
  const Highlights& h = x->highlights;
  EXPECT_TRUE(h.marks_are_waits);
  EXPECT_EQ(h.mark.size(), e.facts.syncs.calls.size());
  for (const SyncCall& c : e.facts.syncs.calls) EXPECT_NE(std::find(h.mark.begin(), h.mark.end(), c.event), h.mark.end());
  ASSERT_FALSE(h.cover.empty()) << "a 4096² GEMM runs while the CPU synchronizes";
  for (EventId g : h.cover) {
    EXPECT_TRUE(is_gpu_activity(e.trace.kind[g]));
    const bool inside = std::any_of(e.facts.syncs.calls.begin(), e.facts.syncs.calls.end(), [&](const SyncCall& c) {
      return e.trace.start_ns[g] < e.trace.end_ns(c.event) && e.trace.end_ns(g) > e.trace.start_ns[c.event];
    });
    EXPECT_TRUE(inside) << e.trace.name_of(g);
  }
}

TEST(Highlights, NamedStepsAreShadedAndOtherNamedEventsMarkedOnce) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"));
  const Finding* cold = find(e.findings, FindingId::cold_start);
  ASSERT_NE(cold, nullptr);
  const StepFacts& step = e.facts.steps[static_cast<size_t>(e.facts.cold_start.step_index)];
  ASSERT_EQ(cold->highlights.shade.size(), 1u);
  EXPECT_EQ(cold->highlights.shade[0], std::make_pair(step.start_ns, step.end_ns));
  EXPECT_EQ(cold->highlights.shade_emphasis, ShadeEmphasis::Strong);
  for (const Finding& f : e.findings) {
    std::vector<EventId> marks = f.highlights.mark;
    std::sort(marks.begin(), marks.end());
    EXPECT_EQ(std::adjacent_find(marks.begin(), marks.end()), marks.end()) << to_string(f.id) << " marks an event twice";
    EXPECT_LE(marks.size(), kMaxMarks);
    for (const EventRef& r : f.events) {
      if (r.event >= e.trace.size()) continue;
      const bool marked = std::binary_search(marks.begin(), marks.end(), r.event);
      EXPECT_NE(marked, is_profiler_step(e.trace, r.event)) << to_string(f.id) << ": " << r.role;
    }
  }
}

// The renderers draw by role: no finding id appears in their C++ or the HTML report's scripts.
TEST(Highlights, RenderersNameNoFindingId) {
  const std::filesystem::path dir = std::filesystem::path(WHYSLOW_SOURCE_DIR) / "src" / "report";
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str().find("FindingId::"), std::string::npos) << entry.path();
    for (const FindingInfo& info : finding_catalog())
      for (const char quote : {'"', '\''})
        EXPECT_EQ(text.str().find(quote + std::string(info.name) + quote), std::string::npos)
            << entry.path() << " names " << info.name;
  }
  EXPECT_GT(files, 30u);
}

}  // namespace
}  // namespace whyslow
