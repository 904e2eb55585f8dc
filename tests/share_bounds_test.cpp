// Issue 44 class 3: no finding states a share over 100 % (or under 0): every "%" in its evidence
// is a part of a whole, on every trace there is (a trace's GPU work may run past its step, but its
// share of the step is clipped, and the words say it ran longer).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"
#include "trace/load_error.hpp"

namespace whyslow {
namespace {

TEST(ShareBounds, EveryPercentOfEveryFindingIsAShare) {
  size_t explained = 0;
  for (const std::filesystem::path& path : testing::every_trace()) {
    testing::Explained e;
    try {
      e = testing::explain_file(path.string());
    } catch (const LoadError&) {
      continue;  // the fixtures of bad input
    }
    ++explained;
    for (const Finding& x : e.findings)
      for (const Evidence& v : x.evidence)
        if (v.unit == "%") {
          EXPECT_GE(v.value, 0.0) << path << ": " << to_string(x.id) << " " << v.key;
          EXPECT_LE(v.value, 100.0) << path << ": " << to_string(x.id) << " " << v.key;
        }
  }
  EXPECT_GT(explained, 100u);
}

}  // namespace
}  // namespace whyslow
