// Issue 10 item 7: passes that were quadratic in the shape of a trace (steps × syncs, depth of
// nesting × calls inside). Each test builds the shape at a size where the quadratic pass took
// minutes and the linear one takes about a second, and checks the answer; the suite's CTest
// TIMEOUT (tests/CMakeLists.txt, the *Scaling suites) is what fails a return to quadratic time.
#include <gtest/gtest.h>

#include <algorithm>

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

using testing::evidence;

using testing::TempDir;

const Finding* finding(const std::vector<Finding>& findings, FindingId id) {
  const auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}


// host_sync_in_loop counted the syncs of each step by going through every sync: steps × syncs.
TEST(AnalysisScaling, HostSyncsInManySteps) {
  constexpr int64_t kSteps = 200'000, kSyncs = 4;  // the 100k steps: 17.9 s
  TempDir dir;
  const auto e = testing::explain_file(dir.write("steps.json", testing::steps_with_syncs(kSteps, kSyncs)));
  ASSERT_EQ(e.facts.steps.size(), static_cast<size_t>(kSteps));
  const Finding* f = finding(e.findings, FindingId::host_sync_in_loop);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(evidence(*f, "syncs_per_step"), kSyncs);
  EXPECT_EQ(evidence(*f, "syncs"), kSteps * kSyncs);
}

// host_sync_in_loop found each sync's outermost op by walking its whole chain of parents.
TEST(AnalysisScaling, HostSyncsDeepInsideNestedOps) {
  constexpr int64_t kDepth = 400'000;  // the 200k: 25.8 s
  TempDir dir;
  const auto e = testing::explain_file(dir.write("nested.json", testing::syncs_in_nested_ops(kDepth)));
  const Finding* f = finding(e.findings, FindingId::host_sync_in_loop);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(evidence(*f, "syncs"), kDepth);
  // Every sync was issued from inside the outermost op.
  EXPECT_NE(f->detail.find("aten::outer ×" + std::to_string(kDepth)), std::string::npos) << f->detail;
  EXPECT_EQ(f->detail.find("aten::inner"), std::string::npos) << f->detail;
}

// The annotation table credited each kernel to the blocks around its launch by walking up from
// the launch: depth × kernels.
TEST(AnalysisScaling, KernelsInDeeplyNestedAnnotations) {
  constexpr int64_t kDepth = 300'000, kNames = 10;  // the 100k: 8.1 s
  TempDir dir;
  const auto e = testing::explain_file(dir.write("nested.json", testing::kernels_in_nested_annotations(kDepth, kNames)));
  ASSERT_EQ(e.facts.annotations.size(), static_cast<size_t>(kNames));
  for (const AnnotationRow& row : e.facts.annotations) {
    SCOPED_TRACE(row.name);
    // block_k opens first at depth k: the kernels launched at depth k and deeper ran inside it,
    // each counted once however many blocks of that name enclose its launch.
    const int64_t k = std::stoll(row.name.substr(row.name.find('_') + 1));
    EXPECT_EQ(row.calls, static_cast<uint64_t>(kDepth / kNames));
    EXPECT_EQ(row.kernels, static_cast<uint64_t>(kDepth - k));
    EXPECT_EQ(row.gpu_ns, (kDepth - k) * 1000);
  }
}

// The External id repair finds the op around each launch; a walk up from each launch through
// the frames in between would take depth² / 2 steps (4.5·10¹⁰ here).
TEST(LoaderScaling, BrokenLinksUnderDeeplyNestedFrames) {
  constexpr int64_t kDepth = 300'000;
  TempDir dir;
  const Trace t = load_trace(dir.write("frames.json", testing::broken_links_under_deep_frames(kDepth)));
  EXPECT_EQ(t.repaired_op_links, static_cast<uint64_t>(kDepth));
  size_t kernels = 0, under_outer = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Kernel) continue;
    ++kernels;
    under_outer += t.op_link[e] != kNoEvent && t.name_of(t.op_link[e]) == "aten::outer";
  }
  EXPECT_EQ(kernels, static_cast<size_t>(kDepth));
  EXPECT_EQ(under_outer, kernels);
}

}  // namespace
}  // namespace whyslow
