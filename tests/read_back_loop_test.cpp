// Issue 44 class 9: the user's own read-back loop. Recorded on the H200 with with_stack
// (tools/record_truth_round3.py, 2026-12-05): an MLP scores 128 items, then postprocess() calls
// .item() on each score (128 device-to-host copies and waits a step); item_readback_fixed reads
// them back with one .tolist(). torch timed the steps: 3.1-3.6 ms against 0.4-0.7 ms.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace whyslow {
namespace {

bool any_says(const std::vector<std::string>& lines, const std::string& what) {
  for (const std::string& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

// The block of the user's code that holds the step through its read-backs leads, named as
// waiting on read-backs, with "read back once" and no CUDA-graph advice (a graph cannot hold a copy
// the host waits for); the CUDA-graph what-if leaves each lone read-back as it is.
TEST(ReadBackLoop, TheUsersItemLoopLeadsWithReadBackOnce) {
  const testing::Explained e = testing::explain_file(testing::fixture_in("truth_round3", "item_readback.json.gz"));
  ASSERT_FALSE(e.findings.empty());
  const Finding& x = e.findings.front();
  ASSERT_EQ(x.id, FindingId::hotspot);
  EXPECT_NE(x.title.find("postprocess"), std::string::npos) << x.title;
  EXPECT_NE(x.detail.find("128 read-backs a call"), std::string::npos) << x.detail;
  EXPECT_TRUE(any_says(x.try_next, "Read back once"));
  EXPECT_FALSE(any_says(x.try_next, "CUDA graph"));
  for (const WhatIf& w : e.facts.graph.what_if)
    if (w.edit == "cuda-graphs" && w.param.empty()) {
      EXPECT_NE(w.change.find("127 read-backs left alone"), std::string::npos) << w.change;
    }
}

// After the fix (one .tolist()) no block of the user's code waits on read-backs.
TEST(ReadBackLoop, TheFixedLoopHasNoReadBackFinding) {
  const testing::Explained e = testing::explain_file(testing::fixture_in("truth_round3", "item_readback_fixed.json.gz"));
  const Finding* h = testing::find(e, FindingId::hotspot);
  if (h) {
    EXPECT_EQ(h->detail.find("read-backs a call"), std::string::npos) << h->detail;
  }
}

}  // namespace
}  // namespace whyslow
