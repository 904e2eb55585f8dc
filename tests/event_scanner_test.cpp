// The event scanner (src/trace/event_scanner.cpp) against its oracle, the general reader
// (event_parser.cpp): the same events, strings and errors on every trace we have, on hand-made
// events at the edges of what the scanner reads itself, and on thousands of mutated events.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "trace/event_scanner.hpp"
#include "trace/json_framer.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/parsed_batch.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;

// A batch holding `events` as the framer leaves one: byte 0 free, the events one after another
// with ",\n" between them, simdjson's padding after the last. Empty when the framer would not
// frame them (an event that does not close where it should).
struct TestBatch {
  ParsedBatch batch;
  bool framed = true;
};
void fill_batch(TestBatch& tb, const std::vector<std::string>& events) {
  std::string text = " ";
  std::vector<EventSpan> spans;
  for (const std::string& e : events) {
    if (spans.size()) text += ",\n";
    spans.push_back({text.size(), text.size() + e.size()});
    text += e;
  }
  for (const EventSpan& s : spans) {
    FrameScan st;
    if (text[s.begin] != '{' || scan_value_end(text.data(), s.begin, s.end, st) != s.end || st.depth != 0 ||
        st.in_string)
      tb.framed = false;
  }
  ParsedBatch& b = tb.batch;
  b.capacity = text.size() + 2 + simdjson::SIMDJSON_PADDING;
  b.bytes = std::make_unique_for_overwrite<char[]>(b.capacity);
  std::memcpy(b.bytes.get(), text.data(), text.size());
  std::memset(b.bytes.get() + text.size(), ' ', b.capacity - text.size());
  b.spans = spans;
}

// What a reader made of a batch: each event's numbers, strings, or the error's message.
std::string read_with(const std::vector<std::string>& events, EventReader reader) {
  TestBatch tb;
  fill_batch(tb, events);
  parse_batch(tb.batch, "t.json", reader);
  if (tb.batch.error) {
    try {
      std::rethrow_exception(tb.batch.error);
    } catch (const LoadError& e) {
      return std::string("error: ") + e.what();
    }
  }
  std::string out;
  size_t text = 0;
  for (const BatchEvent& be : tb.batch.events) {
    const ParsedEvent& e = be.event;
    out += std::string(1, e.ph) + " " + std::to_string(e.ts_ns) + " " + std::to_string(e.dur_ns) + " " +
           std::to_string(e.correlation) + " " + std::to_string(e.external_id) + " " +
           std::to_string(e.gpu.grid[0]) + "," + std::to_string(e.gpu.grid[2]) + " " + std::to_string(e.gpu.bytes);
    for (; text < be.texts_end; ++text) {
      const EventText& t = tb.batch.texts[text];
      out += " [" + std::to_string(static_cast<int>(t.field)) + "]" +
             (t.text == kAbsentText ? std::string("absent") : std::string(tb.batch.strings.distinct[t.text]));
    }
    out += "\n";
  }
  return out;
}

bool scanner_reads(const std::string& event) {
  TestBatch tb;
  fill_batch(tb, {event});
  return scan_event_batch(tb.batch);
}

constexpr const char* kKernel =
    R"({"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "pid": 0, "tid": 7,)"
    R"( "ts": 1712195495519689.047, "dur": 2.5, "args": {"External id": 31, "correlation": 1234, "grid": [132, 1, 1],)"
    R"( "block": [128, 1, 1], "registers per thread": 32, "bytes": 4096, "queued": 0, "est. achieved occupancy %": 100}})";

TEST(EventScanner, ReadsKinetoEventsItself) {
  EXPECT_TRUE(scanner_reads(kKernel));
  // An op with shapes, a string pid, an escaped name, a null duration's instant, nested arrays.
  EXPECT_TRUE(scanner_reads(
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm \"fast\" \u00e9", "pid": "Spans", "tid": "stream 7",)"
      R"( "ts": 5.0, "dur": 0, "args": {"Input Dims": [[64, 64], [64, 64], []], "Input type": ["float", ""],)"
      R"( "Concrete Inputs": ["", "", "[1, 2]"], "Sequence number": 7, "Fwd thread id": 0}})"));
  EXPECT_TRUE(scanner_reads(R"({"ph":"i","s":"t","name":null,"pid":1,"tid":1,"ts":1e3,"dur":null,"args":null})"));
  EXPECT_TRUE(scanner_reads(R"({ "ph" : "M" , "name" : "process_name" , "pid" : 1 , "args" : { "name" : "python" } })"));
}

TEST(EventScanner, LeavesTheUnusualToTheGeneralReader) {
  EXPECT_FALSE(scanner_reads(R"({"p\u0068": "X", "ts": 1, "dur": 1})"));  // an escaped key
  EXPECT_FALSE(scanner_reads("{\"ph\": \"X\", \"name\": \"a\tb\", \"ts\": 1, \"dur\": 1}"));  // a raw control byte
  EXPECT_FALSE(scanner_reads(R"({"ph": "X", "name": "\q", "ts": 1, "dur": 1})"));  // an undefined escape
  EXPECT_FALSE(scanner_reads(R"({"ph": "X", "ts": 01, "dur": 1})"));  // a leading zero
  EXPECT_FALSE(scanner_reads(R"({"ph": "X", "ts": 1, "dur": 1,})"));  // a trailing comma
  EXPECT_FALSE(scanner_reads(R"({"ph": "X", "ts": 1})"));  // no dur: the general reader's error
  EXPECT_FALSE(scanner_reads(R"({"ph": "X", "ts": 1, "dur": 1, "args": {"a": )" + std::string(40, '[') +
                             std::string(40, ']') + "}}"));  // deeper than the scanner follows
  EXPECT_FALSE(scanner_reads("{\"ph\": \"X\", \"name\": \"\xC3\x28\", \"ts\": 1, \"dur\": 1}"));  // invalid UTF-8
}

// The same events, strings and messages from both readers wherever the scanner gives up or not.
TEST(EventScanner, AgreesWithTheGeneralReaderOnEdgeCases) {
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
  };
  for (const std::string& c : cases) {
    SCOPED_TRACE(c);
    const std::string general = read_with({kKernel, c}, EventReader::General);
    EXPECT_EQ(read_with({kKernel, c}, EventReader::Scanner), general);
    EXPECT_EQ(read_with({kKernel, c}, EventReader::Compare), general);
  }
}

// Thousands of events with one byte changed (to a byte JSON gives meaning, or any byte): wherever
// the framer still frames them, the scanner and the general reader agree.
TEST(EventScanner, AgreesWithTheGeneralReaderOnMutatedEvents) {
  const std::vector<std::string> seeds = {
      kKernel,
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 493, "tid": 493, "ts": 5124098641929.646, "dur": 67.558,)"
      R"( "args": {"External id": 4, "Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"], "Ev Idx": 3}})",
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12.5,)"
      R"( "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": 512, "Addr": 139, "Device Type": 1, "Device Id": 0}})",
  };
  const std::string meaningful = "{}[],:\"\\0123456789-+.eEtrufalsn \t\n";
  std::mt19937 rng(20261205);
  int framed = 0, scanned = 0;
  for (int i = 0; i < 6000; ++i) {
    std::string e = seeds[static_cast<size_t>(i) % seeds.size()];
    const size_t at = std::uniform_int_distribution<size_t>(0, e.size() - 1)(rng);
    e[at] = i % 4 == 0 ? static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng))
                       : meaningful[std::uniform_int_distribution<size_t>(0, meaningful.size() - 1)(rng)];
    TestBatch probe;
    fill_batch(probe, {e});
    if (!probe.framed) continue;
    ++framed;
    scanned += scan_event_batch(probe.batch);
    const std::string error = read_with({e}, EventReader::Compare);
    ASSERT_EQ(error.find("differ"), std::string::npos) << e << "\n" << error;
    ASSERT_EQ(read_with({e}, EventReader::Scanner), read_with({e}, EventReader::General)) << e;
  }
  // The mutations reach both sides: events the scanner reads and events it leaves alone.
  EXPECT_GT(framed, 3000);
  EXPECT_GT(scanned, 1000);
  EXPECT_LT(scanned, framed);
}

std::string load_summary(const fs::path& path, EventReader reader) {
  LoadOptions options;
  options.reader = reader;
  try {
    const Trace t = load_trace(path.string(), options);
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

TEST(EventScanner, LoadsEveryTraceAsTheGeneralReaderDoes) {
  const std::vector<fs::path> traces = testing::every_trace();
  ASSERT_GT(traces.size(), 100u);
  for (const fs::path& path : traces) {
    SCOPED_TRACE(path.string());
    const std::string general = load_summary(path, EventReader::General);
    ASSERT_EQ(load_summary(path, EventReader::Scanner), general);
    const std::string compared = load_summary(path, EventReader::Compare);
    ASSERT_EQ(compared.find("event scanner and the general reader differ"), std::string::npos) << compared;
  }
}

}  // namespace
}  // namespace whyslow
