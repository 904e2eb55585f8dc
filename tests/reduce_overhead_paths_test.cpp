// Issue 44 class 7: reduce-overhead that does not replay, by the path torch takes. Recorded on the
// H200 with with_stack (tools/record_truth_round3.py, 2026-12-05; torch's own log in each
// NAME.meta.json): an input mutated in place ("skipping cudagraphs due to mutated inputs": the
// CUDA graph trees' Python still runs every call, no cudagraphify event, no cudaGraphLaunch); a
// CPU tensor copied inside the graph and graph partitions around a CPU op (both replay graphs:
// torch's profiler counted 1 and 2 cudaGraphLaunch a step).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace whyslow {
namespace {

testing::Explained explain_round3(const std::string& name) {
  return testing::explain_file(testing::fixture_in("truth_round3", name + ".json.gz"));
}

// The graphs torch skipped are found from the tree's frames, and the finding that names the
// cause leads with the CUDA-graph fix's credit; overhead_bound, its symptom, points there.
TEST(ReduceOverheadPaths, SkippedGraphsAreFoundFromTheTreesFrames) {
  const testing::Explained e = explain_round3("ro_skip_mutated");
  ASSERT_FALSE(e.findings.empty());
  EXPECT_EQ(e.findings.front().id, FindingId::cuda_graphs_not_replayed);
  EXPECT_EQ(e.findings.front().severity, Severity::Warning);
  EXPECT_EQ(testing::evidence(e.findings.front(), "steps_without_replay"), 5);
  const Finding* bound = testing::find(e, FindingId::overhead_bound);
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->impact_ns, 0) << bound->impact_what;
}

// Where graphs replay (beside CPU work, with partitions) nothing is called unreplayed.
TEST(ReduceOverheadPaths, GraphsThatReplayRaiseNoAlarm) {
  for (const char* name : {"ro_skip_cpu", "ro_partition"}) {
    const testing::Explained e = explain_round3(name);
    EXPECT_EQ(testing::find(e, FindingId::cuda_graphs_not_replayed), nullptr) << name;
    EXPECT_GT(e.facts.compile.graph_launches, 0u) << name;
  }
}

}  // namespace
}  // namespace whyslow
