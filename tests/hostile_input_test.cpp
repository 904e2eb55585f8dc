// Hostile input (issue 10): reproducers for a crash on events without ids, overflowing times,
// invalid JSON that used to load, terminal escapes echoed by error messages and values that
// expand to gigabytes. Each must give a correct result or a clear LoadError, never a crash.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "analysis/facts.hpp"
#include "common/terminal_text.hpp"
#include "common/units.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "report/text/text_report.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/number_text.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;
using Kind = LoadError::Kind;

// Loads `text` expecting a LoadError of `kind` at a byte inside the first occurrence of
// `needle` (or anywhere when needle is empty); returns its message.
std::string expect_error_at(const std::string& text, Kind kind, const std::string& needle,
                            const LoadOptions& options = {}) {
  TempDir dir;
  const std::string path = dir.write("t.json", text);
  try {
    const Trace t = load_trace(path, options);
    ADD_FAILURE() << "loaded " << t.size() << " events from: " << text.substr(0, 300);
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), kind) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("byte"), std::string::npos) << what;
    if (!needle.empty()) {
      const size_t at = text.find(needle);
      EXPECT_NE(at, std::string::npos) << needle;
      EXPECT_GE(e.byte_offset(), at) << what;
      EXPECT_LT(e.byte_offset(), at + needle.size()) << what;
    }
    return what;
  }
  return {};
}

Trace load_text(const std::string& text, const LoadOptions& options = {}) {
  TempDir dir;
  return load_trace(dir.write("t.json", text), options);
}

// The whole pipeline the CLI runs, so a defect that only shows later (a bad track id) shows.
void explain_and_render(const Trace& t) {
  const Facts facts = analyze(t);
  const std::vector<Finding> findings = explain(t, facts);
  EXPECT_FALSE(render_explain_text(t, facts, findings, TextOptions{}).empty());
}

// ---- item 1: an event without pid and tid ----

TEST(HostileInput, FirstEventWithoutPidOrTidGetsItsOwnTrack) {
  const Trace t = load_text(R"({"traceEvents": [{"ph":"X","ts":1,"dur":1}]})");
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(t.tracks.size(), 1u);
  EXPECT_EQ(t.track[0], 0u);
  EXPECT_EQ(t.tracks[0].pid, "");
  EXPECT_EQ(t.tracks[0].tid, "");
  EXPECT_EQ(t.tracks[0].events, std::vector<EventId>{0});
  explain_and_render(t);
  const Trace instant = load_text(R"({"traceEvents": [{"ph":"i","ts":1,"s":"t"}]})");
  ASSERT_EQ(instant.tracks.size(), 1u);
  explain_and_render(instant);
}

TEST(HostileInput, OpWithoutIdsIsNotFiledUnderTheNextEventsGpuStream) {
  const Trace t = load_text(trace_json({
      R"({"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":5})",
      R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":2,"dur":1})",
  }));
  ASSERT_EQ(t.size(), 2u);
  ASSERT_EQ(t.tracks.size(), 2u);
  EXPECT_NE(t.track[0], t.track[1]);
  const Track& op = t.tracks[t.track[0]];
  const Track& kernel = t.tracks[t.track[1]];
  EXPECT_EQ(op.kind, TrackKind::Cpu);
  EXPECT_EQ(op.pid, "");
  EXPECT_EQ(kernel.kind, TrackKind::Gpu);
  EXPECT_EQ(kernel.name, "GPU 0 stream 7");
  EXPECT_EQ(kernel.events, std::vector<EventId>{1});
  explain_and_render(t);
}

// ---- item 6: times beyond what int64 nanoseconds can compute with ----

std::string one_event(const std::string& ts, const std::string& dur) {
  return trace_json({R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":)" + dur +
                     "}"});
}

TEST(HostileInput, EndBeyondInt64NanosecondsIsAnError) {
  // An epoch ts with a duration that made ts + dur wrap: it printed "trace window 50.0 µs".
  const std::string text = one_event("1712195495519689.047", "7600000000000000");
  const std::string what = expect_error_at(text, Kind::Schema, "7600000000000000");
  EXPECT_NE(what.find("event #0"), std::string::npos) << what;
  EXPECT_NE(what.find("2^62"), std::string::npos) << what;
  // Start and duration each in range, their sum not.
  const std::string sum = one_event("4000000000000000", "1000000000000000");
  const std::string what_sum = expect_error_at(sum, Kind::Schema, R"({"ph":"X")");
  EXPECT_NE(what_sum.find("ends ('ts' + 'dur')"), std::string::npos) << what_sum;
}

TEST(HostileInput, TimesAtTheEdgesOfInt64AreErrors) {
  // ±9223372036854775 µs fit int64 ns, but differences of them do not ("trace window -1.62 µs").
  expect_error_at(trace_json({R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":9223372036854775,"dur":1})",
                              R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":-9223372036854775,"dur":1})"}),
                  Kind::Schema, "9223372036854775");
  expect_error_at(one_event("-9223372036854775", "1"), Kind::Schema, "-9223372036854775");
  expect_error_at(one_event("1", "9223372036854775"), Kind::Schema, "9223372036854775");
  expect_error_at(trace_json({R"({"ph":"i","s":"t","name":"a","pid":1,"tid":1,"ts":-4611686018427388})"}),
                  Kind::Schema, "-4611686018427388");
}

TEST(HostileInput, TheDocumentedRangeIsBelowPlusMinusTwoToThe62Nanoseconds) {
  // 2^62 ns = 4611686018427387.904 µs: times strictly inside ±2^62 load.
  const Trace late = load_text(one_event("4611686018427387.902", "0.001"));
  EXPECT_EQ(late.end_ns(0), (int64_t{1} << 62) - 1);
  explain_and_render(late);
  const Trace early = load_text(one_event("-4611686018427387.903", "0"));
  EXPECT_EQ(early.start_ns[0], -(int64_t{1} << 62) + 1);
  explain_and_render(early);
  expect_error_at(one_event("4611686018427387.903", "0.001"), Kind::Schema, R"({"ph":"X")");
  expect_error_at(one_event("4611686018427387.904", "0"), Kind::Schema, "4611686018427387.904");
  expect_error_at(one_event("-4611686018427387.904", "0"), Kind::Schema, "-4611686018427387.904");
}

TEST(HostileInput, EventsTwoToThe62NanosecondsApartAreAnError) {
  // Both ends of the range in one trace: end - start was 2^63 - 2, and the HTML timeline's
  // rounding up to whole buckets overflowed (found by the fuzzer).
  const std::string late = R"({"ph":"X","name":"late","pid":1,"tid":1,"ts":2305843009213693.952,"dur":0})";
  const std::string early = R"({"ph":"i","s":"t","name":"early","pid":1,"tid":1,"ts":-2305843009213693.952})";
  const std::string what = expect_error_at(trace_json({late, early}), Kind::Schema, early);
  EXPECT_NE(what.find("event #1"), std::string::npos) << what;
  EXPECT_NE(what.find("146 years"), std::string::npos) << what;
  // One nanosecond less apart loads.
  const Trace t = load_text(trace_json({R"({"ph":"X","name":"late","pid":1,"tid":1,"ts":2305843009213693.951,"dur":0})", early}));
  EXPECT_EQ(t.start_ns[0] - t.start_ns[1], (int64_t{1} << 62) - 1);
  explain_and_render(t);
}

TEST(HostileInput, DurationsThatAddUpBeyondTwoToThe62AreAnError) {
  // Each fits alone; their sum (what a per-kernel total adds) would not fit in int64.
  const std::string big = R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":-4611686018427387,"dur":4611686018427387})";
  const std::string text = trace_json({big, big, big});
  const std::string what = expect_error_at(text, Kind::Schema, "");
  EXPECT_NE(what.find("event #1"), std::string::npos) << what;
  EXPECT_NE(what.find("add up"), std::string::npos) << what;
  // Negative durations count as zero and are not summed.
  const Trace t = load_text(one_event("5", "-4611686018427387"));
  EXPECT_EQ(t.dur_ns[0], 0);
}

// ---- item 9: invalid JSON that used to load ----

std::string named(const std::string& name_json) {
  return R"({"ph":"X","cat":"cpu_op","name":)" + name_json + R"(,"pid":1,"tid":1,"ts":1,"dur":1})";
}

TEST(HostileInput, InvalidEscapesInStringsAreSyntaxErrors) {
  for (const std::string bad : {R"("bad\x41escape")", R"("truncated\u00")", R"("\u12G4")", R"("a\ b")"}) {
    SCOPED_TRACE(bad);
    const std::string text = trace_json({named(R"("ok")"), named(bad)});
    const std::string what = expect_error_at(text, Kind::Syntax, bad.substr(0, bad.size() - 1));
    EXPECT_NE(what.find("event #1"), std::string::npos) << what;
    EXPECT_NE(what.find("escape"), std::string::npos) << what;
  }
  // The same in pid, cat, args, and in a key.
  expect_error_at(trace_json({R"({"ph":"X","name":"a","pid":"p\q","tid":1,"ts":1,"dur":1})"}), Kind::Syntax, R"("p\q")");
  expect_error_at(trace_json({R"({"ph":"X","name":"a","cat":"\x","tid":1,"ts":1,"dur":1})"}), Kind::Syntax, R"("\x")");
  expect_error_at(trace_json({R"({"ph":"X","name":"a","ts":1,"dur":1,"args":{"Input Dims":"\k"}})"}), Kind::Syntax, R"("\k")");
  expect_error_at(trace_json({R"({"ph":"X","name":"a","ts":1,"dur":1,"k\e":1})"}), Kind::Syntax, R"("k\e")");
}

TEST(HostileInput, LoneSurrogatesAreKeptAsReplacementCharacters) {
  // Valid JSON that UTF-8 cannot hold: the name stays, U+FFFD in place of each lone surrogate,
  // so two different names do not merge into "".
  const Trace t = load_text(trace_json({named(R"("a\ud800b")"), named(R"("c\udc00")"), named(R"("\ud83d\ude00 ok")"),
                                        named(R"("\ud800\u0041")")}));
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.name_of(0), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(t.name_of(1), "c\xEF\xBF\xBD");
  EXPECT_EQ(t.name_of(2), "\xF0\x9F\x98\x80 ok");  // a surrogate pair is one code point
  EXPECT_EQ(t.name_of(3), "\xEF\xBF\xBD" "A");
}

TEST(HostileInput, EscapedKeysMeanWhatTheySay) {
  // "\u0070h" is "ph" to any JSON reader.
  const Trace t = load_text(trace_json({R"({"\u0070h":"X","name":"\u0061","pid":1,"tid":1,"ts":1,"dur":1})"}));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.name_of(0), "a");
}

TEST(HostileInput, NumbersThatAreNotJsonAreSyntaxErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("pid":NaN)", "NaN"},          {R"("tid":0x10)", "0x10"},       {R"("pid":Infinity)", "Infinity"},
      {R"("tid":01)", "01"},            {R"("pid":-)", "-"},             {R"("tid":1.)", "1."},
      {R"("pid":1e)", "1e"},            {R"("tid":tru)", "tru"},         {R"("pid":nul)", "nul"},
      {R"("ts":01, "tid":1)", "01"},    {R"("id":0x10)", "0x10"},        {R"("cat":1.5.5)", "1.5.5"},
      {R"("args":{"correlation":0x10})", "0x10"}, {R"("args":{"External id":-01})", "-01"},
      {R"("args":{"grid":[1,02,1]})", "02"}, {R"("args":{"name":fals})", "fals"}, {R"("dur":nulll)", "nulll"},
  };
  for (const auto& [field, token] : cases) {
    SCOPED_TRACE(field);
    const std::string ev = R"({"ph":"X","name":"a",)" + field + R"(,"ts":1,"dur":1})";
    const std::string text = trace_json({named(R"("ok")"), ev});
    const size_t at = text.find(field) + field.find(token);
    TempDir dir;
    try {
      load_trace(dir.write("t.json", text));
      ADD_FAILURE() << "loaded";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.kind(), Kind::Syntax) << e.what();
      EXPECT_GE(e.byte_offset(), text.find(ev)) << e.what();
      EXPECT_LE(e.byte_offset(), at) << e.what();
      EXPECT_NE(std::string(e.what()).find("event #1"), std::string::npos) << e.what();
    }
  }
}

// The parser checks a pid or tid number once per run of events that repeat it; a string with the
// same text before it ("01", valid as a string) must not let the invalid number 01 through.
TEST(HostileInput, ANumberThatIsNotJsonIsAnErrorAfterAStringOfTheSameText) {
  for (const std::string field : {"pid", "tid"}) {
    SCOPED_TRACE(field);
    const std::string first = R"({"ph":"X","name":"a",")" + field + R"(":"01","ts":1,"dur":1})";
    const std::string second = R"({"ph":"X","name":"b",")" + field + R"(":01,"ts":2,"dur":1})";
    const std::string what = expect_error_at(trace_json({first, second}), Kind::Syntax, R"(":01)");
    EXPECT_NE(what.find("event #1"), std::string::npos) << what;
  }
  // And a number that repeats a valid one before it loads as that one.
  const Trace t = load_text(trace_json({R"({"ph":"X","name":"a","pid":7,"tid":7,"ts":1,"dur":1})",
                                        R"({"ph":"X","name":"b","pid":7,"tid":7,"ts":2,"dur":1})"}));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.track[0], t.track[1]);
  EXPECT_EQ(t.tracks[t.track[1]].pid, "7");
}

TEST(HostileInput, ValidValuesOfEveryKindLoad) {
  // Read or not; an array read as text keeps its spelling, less the whitespace around it.
  const Trace t = load_text(trace_json({R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"bp":"e",)"
                                        R"("args":{"Input Dims": [[1, 2],  [3] ]  , "x": [true, false, null, -0.5e-3, "\u00e9\n"],)"
                                        R"("o": {"k\u0065y": {}}, "Ev Idx": 0, "correlation": 5.0, "External id": 1e3}})"}));
  ASSERT_EQ(t.size(), 1u);
  ASSERT_NE(t.detail[0], UINT32_MAX);
  EXPECT_EQ(t.names.view(t.op_shapes[t.detail[0]].input_dims), "[[1, 2],  [3] ]");
  EXPECT_EQ(t.correlation[0], 5);   // "5.0": an integer written by a re-serializer
  EXPECT_EQ(t.external_id[0], 0);   // 1e3: valid JSON, not an integer id: absent
}

TEST(HostileInput, InvalidTopLevelValuesAreSyntaxErrors) {
  const std::string events = R"("traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])";
  for (const std::string bad : {R"("baseTimeNanoseconds": 01)", R"("traceName": tru)",
                                R"("distributedInfo": {"rank": 0x1})", R"("deviceProperties": [{"id": NaN}])",
                                R"("displayTimeUnit": "m\s")"}) {
    SCOPED_TRACE(bad);
    const std::string text = "{" + bad + ", " + events + "}";
    expect_error_at(text, Kind::Syntax, "");
  }
  // Valid values still load, and the ones whyslow reads are read.
  const Trace t = load_text(R"({"baseTimeNanoseconds": 1700000000000000000, "traceName": "x\u00e9", "n": [1, -0.5e3, true, null],)" +
                            events + "}");
  EXPECT_EQ(t.base_time_ns, 1700000000000000000);
}

// ---- item 10: trace text in error messages cannot drive the terminal ----

TEST(HostileInput, ErrorMessagesEscapeControlCharactersFromTheTrace) {
  const std::string text = "{\"k\\u001b]0;TITLE\\u0007\\u001b[2J\" 5, \"traceEvents\": []}";
  const std::string what = expect_error_at(text, Kind::Syntax, "5");
  EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
  EXPECT_EQ(what.find('\x07'), std::string::npos) << what;
  EXPECT_NE(what.find("k\\x1B]0;TITLE\\x07\\x1B[2J"), std::string::npos) << what;
  // Raw bytes in a key, and a raw number token quoted back.
  const std::string raw_key = "{\"k\xc2\x9b" "31m\" 5, \"traceEvents\": []}";
  const std::string what2 = expect_error_at(raw_key, Kind::Syntax, "5");
  EXPECT_NE(what2.find("k\\u009B31m"), std::string::npos) << what2;
  const std::string ts = trace_json({"{\"ph\":\"X\",\"name\":\"a\",\"ts\":1\x1b[2J,\"dur\":1}"});
  const std::string what3 = expect_error_at(ts, Kind::Syntax, "1\x1b[2J");
  EXPECT_EQ(what3.find('\x1b'), std::string::npos) << what3;
}

TEST(Printable, EscapesWhatATerminalWouldActOn) {
  EXPECT_EQ(printable("plain text: aten::mm <64x64>"), "plain text: aten::mm <64x64>");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80");
  EXPECT_EQ(printable("\x1b]0;T\x07"), "\\x1B]0;T\\x07");
  EXPECT_EQ(printable(std::string("a\0b\r\n\t\x7f", 7)), "a\\x00b\\x0D\\x0A\\x09\\x7F");
  EXPECT_EQ(printable("\xC2\x9B" "2J"), "\\u009B2J");                   // C1 CSI
  EXPECT_EQ(printable("ab\xE2\x80\xAE" "cd"), "ab\\u202Ecd");           // right-to-left override
  EXPECT_EQ(printable("\xE2\x81\xA6x\xE2\x80\xA8"), "\\u2066x\\u2028");
  EXPECT_EQ(printable("\xff\xfe"), "\\xFF\\xFE");                       // not UTF-8
  EXPECT_EQ(printable("\xC3"), "\\xC3");                                // cut-off sequence
  EXPECT_EQ(printable("\xC0\xAF"), "\\xC0\\xAF");                       // overlong '/'
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xED\\xA0\\x80");              // a surrogate in UTF-8
  EXPECT_EQ(printable("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");     // above U+10FFFF
  EXPECT_EQ(printable(""), "");
}

TEST(HostileInput, FileNamesInMessagesAreEscapedToo) {
  TempDir dir;
  const std::string path = dir.write("evil\x1b[2J.json", "{");
  try {
    load_trace(path);
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
    EXPECT_NE(what.find("evil\\x1B[2J.json"), std::string::npos) << what;
  }
  try {  // the same when the file cannot even be opened
    load_trace(dir.path("missing\x1b]0;T\x07.json"));
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), Kind::Io) << what;
    EXPECT_NE(what.find("missing\\x1B]0;T\\x07.json: cannot open"), std::string::npos) << what;
  }
}

// ---- item 12: one value that expands to gigabytes ----

TEST(HostileInput, AValueLargerThanTheLimitIsRefusedClearly) {
  TempDir dir;
  const std::string huge(3u << 20, 'x');
  const std::string text = trace_json({named(R"("ok")"), named("\"" + huge + "\"")});
  // Compressed, 3 MiB of one byte is a few kB: the amplification the limit is for.
  const std::string gz = dir.write_gz("big.json.gz", text);
  const LoadOptions two_mib{.max_value_bytes = size_t{2} << 20};
  try {
    load_trace(gz, two_mib);
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), Kind::TooLarge) << what;
    EXPECT_EQ(e.byte_offset(), text.find(named("\"" + huge + "\""))) << what;
    EXPECT_NE(what.find(gz), std::string::npos) << what;
    EXPECT_NE(what.find("event #1"), std::string::npos) << what;
    EXPECT_NE(what.find("2 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("--max-value-size"), std::string::npos) << what;
  }
  // Raising the limit loads it; the default (64 MiB) does too.
  EXPECT_EQ(load_trace(gz, LoadOptions{.max_value_bytes = size_t{4} << 20}).name_of(1).size(), huge.size());
  EXPECT_EQ(load_trace(gz).size(), 2u);
  // A top-level value other than the events.
  const std::string top = dir.write("top.json", "{\"traceName\": \"" + huge + "\", \"traceEvents\": []}");
  try {
    load_trace(top, two_mib);
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), Kind::TooLarge) << e.what();
    EXPECT_EQ(e.byte_offset(), 14u) << e.what();
    EXPECT_NE(std::string(e.what()).find("top-level value"), std::string::npos) << e.what();
  }
}

TEST(HostileInput, TheCliTakesMaxValueSize) {
  TempDir dir;
  const std::string path =
      dir.write("t.json", trace_json({named("\"" + std::string(3u << 20, 'y') + "\"")}));
  const std::string bin = WHYSLOW_BINARY;
  const std::string err = dir.path("err.txt");
  const int refused = std::system(("'" + bin + "' info --max-value-size 2 '" + path + "' >/dev/null 2>'" + err + "'").c_str());
  ASSERT_TRUE(WIFEXITED(refused));
  EXPECT_EQ(WEXITSTATUS(refused), 2);
  EXPECT_NE(testing::read_file(err).find("--max-value-size"), std::string::npos);
  const int loaded = std::system(("'" + bin + "' info --max-value-size 4 '" + path + "' >/dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(loaded), 0);
}

// A trace on a pipe (`whyslow explain <(zcat t.json.gz)`, `… | whyslow explain /dev/stdin`),
// plain or gzip: read once, front to back, and explained as the file itself is.
TEST(HostileInput, TheCliExplainsATraceFromAPipe) {
  TempDir dir;
  const std::string text = trace_json({named(R"("aten::mm")"), named(R"("aten::add")")});
  const std::string bin = WHYSLOW_BINARY;
  for (const std::string& path : {dir.write("t.json", text), dir.write_gz("t.json.gz", text)}) {
    const std::string from_file = dir.path("file.txt"), from_pipe = dir.path("pipe.txt");
    const int direct = std::system(("'" + bin + "' explain '" + path + "' >'" + from_file + "' 2>&1").c_str());
    const int piped = std::system(("cat '" + path + "' | '" + bin + "' explain /dev/stdin >'" + from_pipe + "' 2>&1").c_str());
    EXPECT_EQ(WEXITSTATUS(direct), 0) << testing::read_file(from_file);
    EXPECT_EQ(WEXITSTATUS(piped), 0) << testing::read_file(from_pipe);
    std::string expected = testing::read_file(from_file);
    for (size_t at; (at = expected.find(path)) != std::string::npos;) expected.replace(at, path.size(), "/dev/stdin");
    EXPECT_EQ(testing::read_file(from_pipe), expected) << path;
  }
}

// ---- number text and units ----

TEST(IsJsonNumber, FollowsTheGrammar) {
  for (const char* ok : {"0", "-0", "7", "-12", "0.5", "10.25", "1e5", "1E+5", "-2.5e-3", "1712195495519689.047"})
    EXPECT_TRUE(is_json_number(ok)) << ok;
  for (const char* bad : {"", "-", "01", "-01", "00", "1.", ".5", "1e", "1e+", "0x10", "NaN", "Infinity", "+1",
                          "1.5.5", "1 ", "--1", "1e5.0"})
    EXPECT_FALSE(is_json_number(bad)) << bad;
  EXPECT_EQ(micros_text_to_ns("01"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("1e"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("01"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("5."), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("5.0"), std::optional<int64_t>(5));
  EXPECT_EQ(integer_text_to_i64("0"), std::optional<int64_t>(0));
}

TEST(Units, NegativeExtremesAreDefined) {
  EXPECT_EQ(human_duration(INT64_MIN), "-9223372037 s");
  EXPECT_EQ(human_duration(-1500), "-1.50 µs");
  EXPECT_EQ(human_bytes(INT64_MIN), "-8388608 TiB");
  EXPECT_EQ(human_bytes(-2048), "-2.00 KiB");
}

}  // namespace
}  // namespace whyslow
