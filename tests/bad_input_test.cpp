// Malformed, non-trace and truncated input: the loader must throw a LoadError of the right kind
// that names the file and the byte where things went wrong, never crash or hang, and, when
// asked, analyze the complete events before a cut.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using Kind = LoadError::Kind;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Io: return "Io";
    case Kind::Syntax: return "Syntax";
    case Kind::Schema: return "Schema";
    case Kind::Truncated: return "Truncated";
    case Kind::TooLarge: return "TooLarge";
  }
  return "?";
}

// Loads `path` expecting a LoadError of `kind` whose message names the file and a byte.
std::optional<LoadError> expect_error(const std::string& path, Kind kind,
                                      const LoadOptions& options = {}, bool mentions_byte = true) {
  try {
    const Trace t = load_trace(path, options);
    ADD_FAILURE() << path << ": loaded " << t.size() << " events, expected a " << kind_name(kind)
                  << " error";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), kind) << "got " << kind_name(e.kind()) << ": " << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
    if (mentions_byte) {
      EXPECT_NE(what.find("byte"), std::string::npos) << what;
    }
    return e;
  }
  return std::nullopt;
}

struct Case {
  std::string text;
  Kind kind;
  size_t min_offset, max_offset;  // byte_offset() must fall in [min, max]
};

void expect_case(const TempDir& dir, const std::string& name, const Case& c) {
  SCOPED_TRACE(name + ": " + c.text.substr(0, 200));
  const auto e = expect_error(dir.write(name + ".json", c.text), c.kind);
  if (!e) return;
  EXPECT_GE(e->byte_offset(), c.min_offset) << e->what();
  EXPECT_LE(e->byte_offset(), c.max_offset) << e->what();
}

// [begin, end] of the first occurrence of `needle` in `text`: the error must point inside it.
Case inside(const std::string& text, const std::string& needle, Kind kind) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return {text, kind, at, at + needle.size() - 1};
}

const std::string kGood =
    R"({"ph": "X", "cat": "cpu_op", "name": "ok", "pid": 1, "tid": 1, "ts": 1, "dur": 1})";

std::string events_text(const std::string& bad) {
  return "{\"schemaVersion\": 1, \"traceEvents\": [\n  " + kGood + ",\n  " + kGood + ",\n  " + bad +
         ",\n  " + kGood + "\n]}\n";
}

TEST(BadInput, MissingFileIsIo) {
  TempDir dir;
  const std::string path = dir.path("does_not_exist.json");
  // "byte" makes no sense for a file that is not there: only the path is required.
  const auto e = expect_error(path, Kind::Io, {}, /*mentions_byte=*/false);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->byte_offset(), 0u);
}

TEST(BadInput, DirectoryIsIo) {
  TempDir dir;
  const std::string path = dir.path("");
  expect_error(path, Kind::Io);
}

TEST(BadInput, EmptyAndBlankFiles) {
  TempDir dir;
  expect_case(dir, "empty", {"", Kind::Syntax, 0, 0});
  expect_case(dir, "blank", {"  \n\t \r\n", Kind::Syntax, 0, 7});
}

TEST(BadInput, NotJson) {
  TempDir dir;
  expect_case(dir, "hello", {"hello", Kind::Syntax, 0, 0});
  expect_case(dir, "hello_after_ws", {"\n\n  hello", Kind::Syntax, 4, 4});
  expect_case(dir, "binary", {std::string("\x7f" "ELF\x02\x01", 6), Kind::Syntax, 0, 0});
}

TEST(BadInput, ValidJsonThatIsNotATrace) {
  TempDir dir;
  expect_case(dir, "number", {"42", Kind::Schema, 0, 0});
  expect_case(dir, "negative", {"  -1.5e3 ", Kind::Schema, 2, 2});
  expect_case(dir, "string", {R"("traceEvents")", Kind::Schema, 0, 0});
  const std::string no_events = R"({"schemaVersion": 1, "deviceProperties": [], "traceName": "x"})";
  expect_case(dir, "no_trace_events", {no_events, Kind::Schema, 0, no_events.size()});
  expect_case(dir, "empty_object", {"{}", Kind::Schema, 0, 2});
  // A "traceEvents" key nested in another value does not count.
  const std::string nested = R"({"metadata": {"traceEvents": []}})";
  expect_case(dir, "nested_trace_events", {nested, Kind::Schema, 0, nested.size()});
  const std::string not_array = R"({"schemaVersion": 1, "traceEvents": {"ph": "X"}})";
  expect_case(dir, "trace_events_object", inside(not_array, R"({"ph")", Kind::Schema));
  const std::string string_events = R"({"traceEvents": "[]"})";
  expect_case(dir, "trace_events_string", inside(string_events, R"("[]")", Kind::Schema));
}

TEST(BadInput, EventThatIsNotAnObject) {
  TempDir dir;
  for (const char* bad : {"5", "\"X\"", "[1, 2]", "null", "true"}) {
    const std::string text = events_text(bad);
    expect_case(dir, "not_object", inside(text, std::string(",\n  ") + bad, Kind::Schema));
  }
}

TEST(BadInput, EventFieldsOfTheWrongTypeOrRange) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ts_string", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "12", "dur": 1})"},
      {"ts_null", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": null, "dur": 1})"},
      {"ts_1e400", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1e400, "dur": 1})"},
      {"ts_huge", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 99999999999999999999, "dur": 1})"},
      {"dur_huge", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 99999999999999999999.5})"},
      {"dur_object", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": {"us": 1}})"},
      {"no_ph", R"({"name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1})"},
      {"ph_number", R"({"ph": 88, "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1})"},
      {"ph_empty", R"({"ph": "", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1})"},
      {"x_without_ts", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "dur": 1})"},
      {"x_without_dur", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1})"},
      {"i_without_ts", R"({"ph": "i", "s": "t", "name": "a", "pid": 1, "tid": 1})"},
      {"args_array", R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": [1]})"},
  };
  for (const auto& [name, bad] : cases) {
    const std::string text = events_text(bad);
    expect_case(dir, name, inside(text, bad, Kind::Schema));
  }
}

TEST(BadInput, BrokenJson) {
  TempDir dir;
  {
    const std::string bad = R"({"ph":"X",,})";
    const std::string text = events_text(bad);
    expect_case(dir, "double_comma", inside(text, bad, Kind::Syntax));
  }
  {
    const std::string bad = R"({"ph": "X", "name": "a" "pid": 1, "tid": 1, "ts": 1, "dur": 1})";
    const std::string text = events_text(bad);
    expect_case(dir, "missing_comma", inside(text, bad, Kind::Syntax));
  }
  {
    const std::string bad = R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"x": }})";
    const std::string text = events_text(bad);
    expect_case(dir, "missing_value", inside(text, bad, Kind::Syntax));
  }
  {
    const std::string bad = std::string(R"({"ph": "X", "name": "bad utf8 )") + "\xff\xfe" +
                            R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1})";
    const std::string text = events_text(bad);
    expect_case(dir, "invalid_utf8", inside(text, bad, Kind::Syntax));
  }
  {
    const std::string text = events_text(kGood) ;
    std::string trailing = text;
    trailing.replace(trailing.rfind("\n]}"), 3, ",\n]}");
    expect_case(dir, "trailing_comma", inside(trailing, ",\n]", Kind::Syntax));
    std::string missing_comma = text;
    missing_comma.replace(missing_comma.rfind(",\n  "), 4, "\n  ");
    expect_case(dir, "events_without_comma",
                {missing_comma, Kind::Syntax, missing_comma.rfind("{\"ph\"") - 3,
                 missing_comma.rfind("{\"ph\"")});
    const std::string garbage = text + "xyz";
    expect_case(dir, "garbage_after_end", inside(garbage, "xyz", Kind::Syntax));
    const std::string second = text + text;
    expect_case(dir, "two_documents", {second, Kind::Syntax, text.size(), text.size()});
    std::string top_comma = text;
    top_comma.replace(0, 1, "{,");
    expect_case(dir, "top_level_comma", {top_comma, Kind::Syntax, 0, 2});
    std::string no_colon = text;
    no_colon.replace(no_colon.find("\"traceEvents\":"), 14, "\"traceEvents\" [");
    expect_case(dir, "key_without_colon", {no_colon, Kind::Syntax, 0, no_colon.find(" [") + 1});
  }
}

// A broken event deep in a large file: the offset must be that event's, in file coordinates
// (the loader's buffer has been refilled and its batches flushed many times before).
TEST(BadInput, BrokenEventAfterManyBatchesReportsItsOwnOffset) {
  TempDir dir;
  std::string text = "{\"traceEvents\": [\n";
  int i = 0;
  while (text.size() < (20u << 20)) {
    text += R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": )" +
            std::to_string(i++) + R"(, "dur": 1},)" + "\n";
  }
  const std::string bad = R"({"ph": "X", "cat": "cpu_op",, "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1})";
  const size_t bad_at = text.size();
  text += bad + ",\n" + kGood + "\n]}";
  expect_case(dir, "deep", {text, Kind::Syntax, bad_at, bad_at + bad.size() - 1});
  // The same with a type error, and with invalid UTF-8 (found before any event is read).
  std::string typed = text;
  typed.replace(bad_at, bad.size(), R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "1", "dur": 1})");
  expect_case(dir, "deep_type", {typed, Kind::Schema, bad_at, bad_at + 60});
  std::string utf8 = text;
  utf8.replace(bad_at, bad.size(), std::string(R"({"ph": "X", "name": "a)") + "\xc3\x28" + R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1})");
  expect_case(dir, "deep_utf8", {utf8, Kind::Syntax, bad_at, bad_at + 60});
}

TEST(BadInput, CorruptGzipIsReported) {
  TempDir dir;
  std::string gz = testing::read_file(dir.write_gz("ok.json.gz", events_text(kGood)));
  ASSERT_GT(gz.size(), 40u);
  for (size_t i = 12; i < gz.size() - 8; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  const std::string path = dir.write("corrupt.json.gz", gz);
  try {
    load_trace(path);
    ADD_FAILURE() << "a corrupt gzip stream loaded";
  } catch (const LoadError& e) {
    // Io (the decoder failed) or, if the garbage happened to decode, a JSON error.
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("byte"), std::string::npos) << what;
  }
}

// ---- truncation ----

// The events array of a trace text, element by element, found by a plain character loop
// (independent of the loader's framer): where each element ends and whether it is an event.
struct Element {
  size_t end;     // one past its closing '}'
  bool is_event;  // ph X or i
};

std::vector<Element> elements_of(const std::string& text) {
  std::vector<Element> out;
  size_t i = text.find("\"traceEvents\"");
  EXPECT_NE(i, std::string::npos);
  i = text.find('[', i) + 1;
  int depth = 0;
  bool in_string = false;
  size_t begin = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth++ == 0) begin = i;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;  // the end of traceEvents
      if (--depth == 0) {
        const std::string element = text.substr(begin, i + 1 - begin);
        const size_t ph = element.find("\"ph\": \"");
        EXPECT_NE(ph, std::string::npos) << element;
        const char p = element[ph + 7];
        out.push_back({i + 1, p == 'X' || p == 'i'});
      }
    }
  }
  return out;
}

std::string fixture(const std::string& name) {
  return testing::gunzip_file(std::string(WHYSLOW_FIXTURES) + "/torch/" + name);
}

TEST(Truncated, EveryCutOfARealTraceIsTruncatedOrComplete) {
  TempDir dir;
  const std::string text = fixture("mm_bias_64_fp32.json.gz");
  ASSERT_GT(text.size(), 10000u);
  const Trace full = load_trace(dir.write("full.json", text));
  const std::vector<Element> elements = elements_of(text);
  size_t full_events = 0;
  for (const Element& el : elements) full_events += el.is_event;
  ASSERT_EQ(full.size(), full_events);
  ASSERT_GT(full.size(), 20u);
  const size_t last = text.find_last_not_of(" \n\r\t");  // the closing '}'

  size_t checked = 0, partial_loads = 0;
  for (size_t cut = 1; cut < text.size(); cut += 37) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    const std::string path = dir.write("cut.json", std::string_view(text).substr(0, cut));
    size_t complete_elements = 0, complete_events = 0;
    for (const Element& el : elements) {
      if (el.end > cut) break;
      ++complete_elements;
      complete_events += el.is_event;
    }
    if (cut > last) {  // only trailing whitespace is missing: the trace is complete
      EXPECT_EQ(load_trace(path).size(), full.size());
      continue;
    }
    if (text.find_first_not_of(" \n\r\t") >= cut) {
      // The one Syntax case: the file starts with a newline, and a cut inside that leading
      // whitespace leaves a blank file, which cannot be told from one that was always blank.
      expect_error(path, Kind::Syntax);
      continue;
    }
    // Without --allow-truncated: always Truncated. (No other cut of this file gives a Syntax
    // error: the loader never validates a top-level scalar or key that the cut could have
    // shortened, and an event is only parsed once its closing brace has been seen.)
    const auto e = expect_error(path, Kind::Truncated);
    if (e) {
      EXPECT_EQ(e->byte_offset(), cut);
      EXPECT_NE(std::string(e->what()).find("truncated"), std::string::npos);
    }
    // With it: the complete events before the cut, exactly, or Truncated when there are none.
    if (complete_elements == 0) {
      expect_error(path, Kind::Truncated, LoadOptions{.allow_truncated = true});
      continue;
    }
    Trace t;
    ASSERT_NO_THROW(t = load_trace(path, LoadOptions{.allow_truncated = true}));
    EXPECT_TRUE(t.truncated);
    EXPECT_EQ(t.truncated_at_byte, cut);
    ASSERT_EQ(t.size(), complete_events);
    for (EventId ev = 0; ev < t.size(); ++ev) {
      ASSERT_EQ(t.name_of(ev), full.name_of(ev)) << "event " << ev;
      ASSERT_EQ(t.start_ns[ev], full.start_ns[ev]) << "event " << ev;
      ASSERT_EQ(t.dur_ns[ev], full.dur_ns[ev]) << "event " << ev;
      ASSERT_EQ(t.kind[ev], full.kind[ev]) << "event " << ev;
    }
    ++partial_loads;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
  EXPECT_GT(partial_loads, 100u);
}

TEST(Truncated, CutRightAfterAnEventAndBetweenEvents) {
  TempDir dir;
  const std::string text = events_text(kGood);
  const std::vector<Element> elements = elements_of(text);
  ASSERT_EQ(elements.size(), 4u);
  for (size_t k = 0; k < elements.size(); ++k) {
    for (size_t extra : {0, 1, 2}) {  // "}", "},", "},\n"
      const size_t cut = elements[k].end + extra;
      const std::string path = dir.write("cut.json", std::string_view(text).substr(0, cut));
      expect_error(path, Kind::Truncated);
      const Trace t = load_trace(path, LoadOptions{.allow_truncated = true});
      EXPECT_TRUE(t.truncated);
      EXPECT_EQ(t.size(), k + 1) << "cut " << cut;
    }
  }
  // Cut after the closing ']' but before the closing '}': every event is there.
  const size_t bracket = text.rfind(']');
  const std::string path = dir.write("cut.json", std::string_view(text).substr(0, bracket + 1));
  expect_error(path, Kind::Truncated);
  const Trace t = load_trace(path, LoadOptions{.allow_truncated = true});
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.size(), 4u);
}

TEST(Truncated, MessageSuggestsAllowTruncatedOnlyWhenItHelps) {
  TempDir dir;
  const std::string text = events_text(kGood);
  const auto with_events = expect_error(
      dir.write("late.json", std::string_view(text).substr(0, text.size() - 10)), Kind::Truncated);
  ASSERT_TRUE(with_events);
  EXPECT_NE(std::string(with_events->what()).find("--allow-truncated"), std::string::npos);
  const auto none = expect_error(dir.write("early.json", std::string_view(text).substr(0, 30)),
                                 Kind::Truncated);
  ASSERT_TRUE(none);
  EXPECT_EQ(std::string(none->what()).find("--allow-truncated"), std::string::npos);
}

TEST(Truncated, GzipCutInTheMiddle) {
  TempDir dir;
  const std::string fixture_path = std::string(WHYSLOW_FIXTURES) + "/torch/mm_bias_64_fp32.json.gz";
  const std::string gz = testing::read_file(fixture_path);
  const Trace full = load_trace(fixture_path);
  ASSERT_GT(gz.size(), 1000u);
  const std::string half = dir.write("half.json.gz", std::string_view(gz).substr(0, gz.size() / 2));
  const auto e = expect_error(half, Kind::Truncated);
  if (e) {
    EXPECT_NE(std::string(e->what()).find("truncated"), std::string::npos);
  }
  Trace t;
  ASSERT_NO_THROW(t = load_trace(half, LoadOptions{.allow_truncated = true}));
  EXPECT_TRUE(t.truncated);
  EXPECT_GT(t.size(), 0u);
  EXPECT_LT(t.size(), full.size());
  for (EventId ev = 0; ev < t.size(); ++ev) {
    ASSERT_EQ(t.start_ns[ev], full.start_ns[ev]);
    ASSERT_EQ(t.name_of(ev), full.name_of(ev));
  }
  // Any cut that loses more than the last deflate block and trailer is a truncation too, also
  // one inside the gzip header, before anything can be decoded.
  for (size_t cut : {1, 2, 3, 5, 9, 10, 11, 12, 20}) {
    const std::string path = dir.write("cut.json.gz", std::string_view(gz).substr(0, cut));
    if (cut < 2) {  // one byte cannot be told from a (broken) plain file
      expect_error(path, Kind::Syntax);
      continue;
    }
    const auto early = expect_error(path, Kind::Truncated);
    if (early) {
      EXPECT_EQ(early->byte_offset(), cut);
    }
  }
  for (size_t cut = 3; cut + 64 < gz.size(); cut += 101) {
    const std::string path = dir.write("cut.json.gz", std::string_view(gz).substr(0, cut));
    expect_error(path, Kind::Truncated);
  }
}

TEST(Truncated, CliExitsWithTwoAndSuggestsTheFlag) {
  TempDir dir;
  const std::string text = events_text(kGood);
  const std::string trace = dir.write("cut.json", std::string_view(text).substr(0, text.size() - 10));
  const std::string out = dir.path("stdout.txt"), err = dir.path("stderr.txt");
  const std::string bin = WHYSLOW_BINARY;
  auto run = [&](const std::string& args) {
    const std::string cmd = "'" + bin + "' info " + args + " '" + trace + "' >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(status)) << cmd;
    return WEXITSTATUS(status);
  };
  EXPECT_EQ(run(""), 2);
  const std::string message = testing::read_file(err);
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  EXPECT_NE(message.find("--allow-truncated"), std::string::npos) << message;
  EXPECT_NE(message.find(trace), std::string::npos) << message;

  EXPECT_EQ(run("--allow-truncated"), 0);
  EXPECT_NE(testing::read_file(out).find("3 events"), std::string::npos) << testing::read_file(out);
}

TEST(Truncated, CliExitsWithTwoOnOtherLoadErrors) {
  TempDir dir;
  const std::string bin = WHYSLOW_BINARY;
  const std::string err = dir.path("stderr.txt");
  const std::string bad = dir.write("bad.json", events_text(R"({"ph":"X",,})"));
  const int status = std::system(("'" + bin + "' info '" + bad + "' 2>'" + err + "' >/dev/null").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string message = testing::read_file(err);
  EXPECT_NE(message.find(bad), std::string::npos) << message;
  EXPECT_NE(message.find("byte"), std::string::npos) << message;
  EXPECT_EQ(message.find("--allow-truncated"), std::string::npos) << message;
}

// `info` prints pids, tids and thread names from the trace: escape sequences in them must reach the
// terminal as text (issue 10 item 10: they retitled and cleared it).
TEST(TerminalText, InfoEscapesControlCharactersInTrackNames) {
  TempDir dir;
  const std::string bin = WHYSLOW_BINARY;
  const std::string out = dir.path("stdout.txt");
  const std::string trace = dir.write(
      "esc.json", events_text(R"({"ph":"X","name":"a","pid":"\u001b]0;TITLE\u0007","tid":"\u001b[2J","ts":1,"dur":1})"));
  ASSERT_EQ(std::system(("'" + bin + "' info '" + trace + "' >'" + out + "' 2>/dev/null").c_str()), 0);
  const std::string text = testing::read_file(out);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1B[2J"), std::string::npos) << text;
}

}  // namespace
}  // namespace whyslow
