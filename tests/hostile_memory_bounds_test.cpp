// Hostile input, third round (issue 45 item 3): memory bounded by default. "B" events never
// closed are each held whole until their "E"; a stepless trace of one name repeated is a loop of
// one-event iterations, one JSON row each. Every input is generated here.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "loader_test_util.hpp"
#include "report/json/json_report.hpp"
#include "report/text/text_report.hpp"
#include "test_support.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/trace_builder.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

// 2 M "B" events never closed (a 262 kB .gz) held 520 MB for a trace with no event in it; past
// kMaxOpenDurations open at once the load stops, naming the limit.
TEST(HostileMemoryBounds, BEventsNeverClosedAreRefusedPastTheLimit) {
  TempDir dir;
  std::vector<std::string> events;
  const size_t opened = kMaxOpenDurations + 10;
  for (size_t i = 0; i < opened; ++i)
    events.push_back(R"({"ph":"B","name":"a","pid":1,"tid":)" + std::to_string(i % 7) + R"(,"ts":)" + std::to_string(i) + "}");
  const std::string path = dir.write_gz("open.json.gz", trace_json(events));
  try {
    const Trace t = load_trace(path);
    ADD_FAILURE() << "loaded, " << t.unbalanced_durations << " durations unbalanced";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::TooLarge);
    const std::string what = e.what();
    EXPECT_NE(what.find("more than 65536 \"B\" events open at once"), std::string::npos) << what;
    EXPECT_NE(what.find("event #65536"), std::string::npos) << what;  // the first one over
  }
}

// Below the limit, and however many "B"s a trace holds in all, pairs that close load as before.
TEST(HostileMemoryBounds, ManyBEventsThatCloseLoad) {
  TempDir dir;
  std::vector<std::string> events;
  const size_t pairs = 2 * kMaxOpenDurations;
  for (size_t i = 0; i < pairs; ++i) {
    events.push_back(R"({"ph":"B","name":"a","pid":1,"tid":1,"ts":)" + std::to_string(2 * i) + "}");
    events.push_back(R"({"ph":"E","pid":1,"tid":1,"ts":)" + std::to_string(2 * i + 1) + "}");
  }
  for (size_t i = 0; i + 1 < kMaxOpenDurations; ++i)  // open at the end, one short of the limit
    events.push_back(R"({"ph":"B","name":"b","pid":1,"tid":2,"ts":)" + std::to_string(i) + "}");
  const Trace t = load_trace(dir.write_gz("closed.json.gz", trace_json(events)));
  EXPECT_EQ(t.size(), pairs);
  EXPECT_EQ(t.unbalanced_durations, kMaxOpenDurations - 1);
}

// A stepless trace of one name repeated is a loop of one-event iterations: 600,000 of them took
// 206 MB of facts (twice while measured) and wrote 212 MB of `each` rows. The loop keeps the first
// kMaxLoopIterationsKept; its count and medians take them all.
TEST(HostileMemoryBounds, ALoopOfManyIterationsKeepsTheFirstAndCountsAll) {
  constexpr size_t kIterations = 25'000;
  std::vector<std::string> events;
  int64_t ts = 0;
  for (size_t i = 0; i < kIterations; ++i) {
    events.push_back(R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
                     R"(,"dur":5})");
    ts += i < kMaxLoopIterationsKept ? 10 : 12;  // the iterations past those kept set the median
  }
  TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("loop.json", trace_json(events)));
  ASSERT_EQ(e.facts.loops.size(), 1u);
  const LoopFacts& l = e.facts.loops.front();
  EXPECT_EQ(l.iteration_count, kIterations);
  EXPECT_EQ(l.iterations.size(), kMaxLoopIterationsKept);
  EXPECT_EQ(l.median_ns, 12'000);
  EXPECT_EQ(l.end_ns, (ts - 12 + 5) * 1000);
  const std::string json = render_json(e.trace, e.facts, e.findings);
  simdjson::dom::parser parser;
  const simdjson::dom::element loop = parser.parse(json)["loops"].at(0);
  EXPECT_EQ(loop["iterations"].get_uint64().value(), kIterations);
  EXPECT_EQ(loop["each"].get_array().size(), kMaxLoopIterationsKept);
  EXPECT_EQ(loop["each_left_out"].get_uint64().value(), kIterations - kMaxLoopIterationsKept);
  const std::string text = render_explain_text(e.trace, e.facts, e.findings, {});
  EXPECT_NE(text.find("loop: 25000 iterations"), std::string::npos) << text;
}

}  // namespace
}  // namespace whyslow
