// The event scanner (src/trace/event_scanner.cpp) against its oracle, the general reader
// (event_parser.cpp): the same events, strings and errors on every trace we have, on hand-made
// events at the edges of what the scanner reads itself, and on thousands of mutated events. The
// comparison runs inside the library (EventReader::Compare: every field of every event); the tests
// only load files (a test that built the loader's batches itself would hold simdjson's parser in a
// layout of its own: a sanitizer build compiles the tests without optimisation, which turns on
// simdjson's development checks).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;

// What a load with `reader` made of a file: its events' numbers and names, or the error's message;
// `general_batches` gets how many batches the general reader read.
std::string load_summary(const fs::path& path, EventReader reader, uint64_t* general_batches = nullptr) {
  LoadOptions options;
  options.reader = reader;
  try {
    const Trace t = load_trace(path.string(), options);
    if (general_batches) *general_batches = t.general_reader_batches;
    std::string out = std::to_string(t.size()) + " events, " + std::to_string(t.names.size()) + " names;";
    for (size_t i = 0; i < t.names.size(); ++i) out += std::string(t.names.view(static_cast<NameId>(i))) + "|";
    for (EventId e = 0; e < t.size(); ++e)
      out += std::to_string(t.start_ns[e]) + " " + std::to_string(t.dur_ns[e]) + " " + std::to_string(t.name[e]) + " " +
             std::to_string(t.category[e]) + " " + std::to_string(t.track[e]) + " " + std::to_string(t.correlation[e]) +
             " " + std::to_string(t.external_id[e]) + " " + std::to_string(t.detail[e]) + ";";
    return out;
  } catch (const LoadError& e) {
    return std::string("error: ") + e.what();
  }
}

std::string trace_of(const std::vector<std::string>& events) {
  std::string text = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "") + events[i];
  return text + "\n]}\n";
}

constexpr const char* kKernel =
    R"({"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "pid": 0, "tid": 7,)"
    R"( "ts": 1712195495519689.047, "dur": 2.5, "args": {"External id": 31, "correlation": 1234, "grid": [132, 1, 1],)"
    R"( "block": [128, 1, 1], "registers per thread": 32, "bytes": 4096, "queued": 0, "est. achieved occupancy %": 100}})";

class EventScanner : public ::testing::Test {
 protected:
  // Whether the scanner reads the trace of `events` itself, without the general reader.
  bool scanner_reads(const std::vector<std::string>& events) {
    uint64_t general = 0;
    const std::string summary = load_summary(dir_.write("t.json", trace_of(events)), EventReader::Scanner, &general);
    return summary.rfind("error: ", 0) != 0 && general == 0;
  }
  // Both readers on the trace of `events`: the same summary, and Compare finds no difference.
  void expect_agreement(const std::vector<std::string>& events) {
    const std::string path = dir_.write("t.json", trace_of(events));
    const std::string general = load_summary(path, EventReader::General);
    EXPECT_EQ(load_summary(path, EventReader::Scanner), general);
    const std::string compared = load_summary(path, EventReader::Compare);
    EXPECT_EQ(compared.find("the event scanner and the general reader differ"), std::string::npos) << compared;
    EXPECT_EQ(compared, general);
  }
  testing::TempDir dir_;
};

TEST_F(EventScanner, ReadsKinetoEventsItself) {
  EXPECT_TRUE(scanner_reads({kKernel}));
  // An op with shapes, a string pid, an escaped name, a null duration's instant, nested arrays.
  EXPECT_TRUE(scanner_reads({
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm \"fast\" \u00e9", "pid": "Spans", "tid": "stream 7",)"
      R"( "ts": 5.0, "dur": 0, "args": {"Input Dims": [[64, 64], [64, 64], []], "Input type": ["float", ""],)"
      R"( "Concrete Inputs": ["", "", "[1, 2]"], "Sequence number": 7, "Fwd thread id": 0}})"}));
  EXPECT_TRUE(scanner_reads({R"({"ph":"i","s":"t","name":null,"pid":1,"tid":1,"ts":1e3,"dur":null,"args":null})"}));
  EXPECT_TRUE(scanner_reads({R"({ "ph" : "M" , "name" : "process_name" , "pid" : 1 , "args" : { "name" : "python" } })"}));
}

TEST_F(EventScanner, LeavesTheUnusualToTheGeneralReader) {
  for (const std::string& unusual : {
           std::string(R"({"p\u0068": "X", "ts": 1, "dur": 1})"),                  // an escaped key
           std::string("{\"ph\": \"X\", \"name\": \"a\tb\", \"ts\": 1, \"dur\": 1}"),  // a raw control byte
           std::string(R"({"ph": "X", "ts": 1, "dur": 1, "args": {"a": )") + std::string(40, '[') +
               std::string(40, ']') + "}}",  // deeper than the scanner follows
       }) {
    EXPECT_FALSE(scanner_reads({kKernel, unusual})) << unusual;
    expect_agreement({kKernel, unusual});
  }
}

// The same events, strings and messages from both readers wherever the scanner gives up or not.
TEST_F(EventScanner, AgreesWithTheGeneralReaderOnEdgeCases) {
  const std::vector<std::string> cases = {
      kKernel,
      R"({"ph": "X", "ts": 1, "dur": 1, "args": {"grid": [1, [2], "3", 4, 5], "block": 7, "bytes": 5.0, "correlation": 1.5}})",
      R"({"ph": "X", "ts": -1.2345, "dur": 9223372036854775.807, "pid": true, "tid": null, "name": 12, "cat": {}})",
      R"({"ph": "X", "ts": 1, "dur": 1, "name": [1, {"a": [true, false, null]}], "args": {"Input Dims": "x\n"}})",
      R"({"ph": "X", "ph": "i", "ts": 1, "ts": 2, "dur": 1, "name": "a", "name": "b"})",
      R"({"ph": "", "ts": 1, "dur": 1})",
      R"({"ph": "X", "ts": "1", "dur": 1})",
      R"({"ph": "X", "ts": 1, "dur": 1, "pid": [1]})",
      R"({"ph": "X", "ts": 1, "dur": 1, "args": []})",
      R"({"ph": "X", "ts": 1, "dur": 1, "args": {"Ev Idx": 1e999, "x": "\ud800"}})",
      R"({"ph": "X", "ts": 1e400, "dur": 1})",
      R"({"ph": "X", "ts": 1, "dur": 1, "id": 18446744073709551616})",
      R"({"ph": "X", "name": "\q", "ts": 1, "dur": 1})",
      R"({"ph": "X", "ts": 01, "dur": 1})",
      R"({"ph": "X", "ts": 1, "dur": 1,})",
      R"({"ph": "X", "ts": 1})",
      "{\"ph\": \"X\", \"name\": \"\xC3\x28\", \"ts\": 1, \"dur\": 1}",
  };
  for (const std::string& c : cases) {
    SCOPED_TRACE(c);
    expect_agreement({kKernel, c});
  }
}

// Events with one byte changed (to a byte JSON gives meaning, or any byte): the scanner and the
// general reader agree on every one, read or refused.
TEST_F(EventScanner, AgreesWithTheGeneralReaderOnMutatedEvents) {
  const std::vector<std::string> seeds = {
      kKernel,
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 493, "tid": 493, "ts": 5124098641929.646, "dur": 67.558,)"
      R"( "args": {"External id": 4, "Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"], "Ev Idx": 3}})",
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12.5,)"
      R"( "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": 512, "Addr": 139, "Device Type": 1, "Device Id": 0}})",
  };
  const std::string meaningful = "{}[],:\"\\0123456789-+.eEtrufalsn \t\n";
  std::mt19937 rng(20261205);
  int loaded = 0, scanned = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string e = seeds[static_cast<size_t>(i) % seeds.size()];
    const size_t at = std::uniform_int_distribution<size_t>(0, e.size() - 1)(rng);
    e[at] = i % 4 == 0 ? static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng))
                       : meaningful[std::uniform_int_distribution<size_t>(0, meaningful.size() - 1)(rng)];
    const std::string path = dir_.write("m.json", trace_of({e}));
    uint64_t general = 0;
    const std::string compared = load_summary(path, EventReader::Compare, &general);
    ASSERT_EQ(compared.find("the event scanner and the general reader differ"), std::string::npos) << e << "\n" << compared;
    ASSERT_EQ(load_summary(path, EventReader::Scanner), load_summary(path, EventReader::General)) << e;
    if (compared.rfind("error: ", 0) != 0) ++loaded;
    if (general == 0 && compared.rfind("error: ", 0) != 0) ++scanned;
  }
  // The mutations reach both sides: events the scanner reads and events it leaves alone.
  EXPECT_GT(loaded, 500);
  EXPECT_GT(scanned, 300);
  EXPECT_LT(scanned, loaded);
}

TEST(EventScannerCorpus, LoadsEveryTraceAsTheGeneralReaderDoes) {
  const std::vector<fs::path> traces = testing::every_trace();
  ASSERT_GT(traces.size(), 100u);
  for (const fs::path& path : traces) {
    SCOPED_TRACE(path.string());
    const std::string general = load_summary(path, EventReader::General);
    ASSERT_EQ(load_summary(path, EventReader::Scanner), general);
    const std::string compared = load_summary(path, EventReader::Compare);
    ASSERT_EQ(compared.find("the event scanner and the general reader differ"), std::string::npos) << compared;
  }
}

}  // namespace
}  // namespace whyslow
