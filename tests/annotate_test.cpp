// `whyslow annotate`: the output loads back in whyslow with the "whyslow findings" track added
// and nothing else changed (every other event, track, flow count, fact and finding identical);
// the input file is never touched; the splice survives the shapes a trace file can take.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sys/wait.h>

#include "loader_test_util.hpp"
#include "report/annotate/annotate_trace.hpp"
#include "report/json/json_report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::TempDir;

// One event as a comparable tuple: everything the loader keeps about it.
using EventKey = std::tuple<std::string, int64_t, int64_t, EventKind, std::string, int64_t, int64_t>;

std::map<std::pair<std::string, std::string>, std::vector<EventKey>> events_by_track(const Trace& t) {
  std::map<std::pair<std::string, std::string>, std::vector<EventKey>> out;
  for (const Track& tr : t.tracks) {
    auto& list = out[{tr.pid, tr.tid}];
    for (EventId e : tr.events)
      list.emplace_back(std::string(t.name_of(e)), t.start_ns[e], t.dur_ns[e], t.kind[e],
                        std::string(t.names.view(t.category[e])), t.correlation[e], t.external_id[e]);
  }
  return out;
}

// The JSON report from the "steps" key on: facts and findings, without the trace's path and size.
std::string facts_and_findings(const testing::Explained& e) {
  const std::string json = render_json(e.trace, e.facts, e.findings);
  return json.substr(json.find("\"steps\""));
}

struct CommandResult {
  int status;
  std::string err;
};

void annotate(const std::string& in, const std::string& out) {
  const auto e = testing::explain_file(in);
  write_annotated_trace(RereadableInput(in), out, e.trace, e.facts, e.findings);
}

// Every track of `before` is in `after` with the very same events; what `after` adds is the
// findings process, one thread per finding named after it, in explain's order; flows come in
// matched pairs; the analysis reads the same facts and findings from both.
void expect_only_the_findings_track_added(const testing::Explained& before, const testing::Explained& after) {
  auto old_tracks = events_by_track(before.trace), new_tracks = events_by_track(after.trace);
  for (const auto& [key, events] : old_tracks) EXPECT_EQ(new_tracks[key], events) << key.first << "/" << key.second;
  std::vector<std::string> names;
  std::set<std::string> pids;
  size_t added_events = 0;
  for (const Track& tr : after.trace.tracks) {
    if (old_tracks.count({tr.pid, tr.tid})) continue;
    pids.insert(tr.pid);
    EXPECT_EQ(tr.kind, TrackKind::Other);
    names.push_back(tr.name);
    added_events += tr.events.size();
  }
  EXPECT_LE(pids.size(), 1u) << "the findings have one process of their own";
  ASSERT_EQ(names.size(), before.findings.size());
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(names[i], std::to_string(i + 1) + ". [" + std::string(to_string(before.findings[i].severity)) + "] " +
                            std::string(to_string(before.findings[i].id)));
  EXPECT_EQ(after.trace.size(), before.trace.size() + added_events);
  const uint64_t added_flows = after.trace.flows.starts - before.trace.flows.starts;
  EXPECT_EQ(after.trace.flows.finishes - before.trace.flows.finishes, added_flows);
  EXPECT_EQ(after.trace.flows.unmatched_starts, before.trace.flows.unmatched_starts);
  EXPECT_EQ(after.trace.flows.unmatched_finishes, before.trace.flows.unmatched_finishes);
  EXPECT_EQ(after.trace.devices.size(), before.trace.devices.size());
  EXPECT_EQ(after.trace.schema_version, before.trace.schema_version);
  EXPECT_EQ(facts_and_findings(after), facts_and_findings(before));
}

class AnnotateFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(AnnotateFixture, LoadsBackWithTheFindingsTrackAndNothingElseChanged) {
  TempDir dir;
  const std::string input = testing::fixture(GetParam() + ".json.gz");
  const std::string output = dir.path("annotated.json.gz");
  annotate(input, output);
  const auto before = testing::explain_file(input);
  const auto after = testing::explain_file(output);
  ASSERT_FALSE(before.findings.empty());
  expect_only_the_findings_track_added(before, after);
  EXPECT_GT(after.trace.flows.starts, before.trace.flows.starts) << "arrows from the findings to their events";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AnnotateFixture,
                         ::testing::Values("mm_bias_64_fp32_cold", "mm_bias_4096_fp32", "item_pageable", "compiled_cold"));

TEST(Annotate, NeverTouchesTheInputAndRefusesToOverwriteIt) {
  TempDir dir;
  const std::string original = testing::gunzip_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"));
  const std::string input = dir.write("trace.json", original);
  const auto mtime = std::filesystem::last_write_time(input);
  annotate(input, dir.path("out.json"));
  EXPECT_EQ(testing::read_file(input), original);
  EXPECT_EQ(std::filesystem::last_write_time(input), mtime);
  // Plain output for a plain name: the input's bytes with the track inserted before the final ']'.
  const std::string out = testing::read_file(dir.path("out.json"));
  const size_t cut = original.rfind(']');
  EXPECT_EQ(out.substr(0, cut), original.substr(0, cut));
  EXPECT_EQ(out.substr(out.size() - (original.size() - cut)), original.substr(cut));

  const std::string cmd = std::string("'") + WHYSLOW_BINARY + "' annotate '" + input + "' -o '" + input + "' 2>/dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1);
  EXPECT_EQ(testing::read_file(input), original);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path("")), {}), 2) << "no temporary file left";
}

// traceEvents before or after other keys, strings holding brackets and escaped quotes, nested
// values, the legacy bare array, an empty array: the track goes in the right place each time.
TEST(Annotate, SplicesAnyShapeOfTraceFile) {
  TempDir dir;
  const std::string event = R"({"ph":"X","cat":"cpu_op","name":"a]\"}[","pid":1,"tid":1,"ts":1,"dur":5000})";
  const std::string sync = R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":2,"dur":4000})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"keys_before", R"({"x": "]}\"", "nested": {"traceEvents": [1, [2]], "y": "["}, "n": -1.5e3, "t": true,)"
                      "\n \"traceEvents\" : [" + event + ",\n" + sync + "\n], \"after\": {\"k\": [\"]\"]}}"},
      {"bare_array", "[" + event + ", " + sync + "]"},
      {"empty", R"({"traceEvents": [ ], "displayTimeUnit": "ms"})"},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    const std::string in = dir.write(name + ".json", text);
    const std::string out = dir.path(name + ".out.json");
    annotate(in, out);
    const auto before = testing::explain_file(in);
    const auto after = testing::explain_file(out);
    expect_only_the_findings_track_added(before, after);
    const std::string written = testing::read_file(out);
    EXPECT_NE(written.find("\"whyslow findings\""), std::string::npos);
    if (name == "keys_before") {
      EXPECT_NE(written.find(R"(], "after": {"k": ["]"]}})"), std::string::npos);
    }
  }
}

CommandResult run_shell(const TempDir& dir, const std::string& command) {
  const std::string err = dir.path("stderr.txt");
  const int status = std::system((command + " 2>'" + err + "' >/dev/null").c_str());
  CommandResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(err)};
  std::filesystem::remove(err);
  return r;
}

std::string whyslow(const std::string& args) { return std::string("'") + WHYSLOW_BINARY + "' " + args; }

// Issue 10 item 11: `annotate --allow-truncated` always failed ("ends before its traceEvents array
// does") although the truncation message suggests it. A truncated trace is now annotated as the
// loader read it: its complete events, the findings track, and the brackets that close the
// document, so the output is a whole trace.
TEST(Annotate, ATruncatedTraceIsAnnotatedUpToItsLastCompleteEvent) {
  TempDir dir;
  const std::string original = testing::gunzip_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"));
  const size_t events_end = original.rfind(']');
  const std::vector<std::pair<std::string, size_t>> cuts = {
      {"mid_events", original.size() * 2 / 3},
      {"after_events", events_end + 2},            // "],": before the keys after traceEvents
      {"mid_last_key", original.size() - 20},       // inside "traceName"'s string
  };
  for (const auto& [name, at] : cuts) {
    SCOPED_TRACE(name);
    const std::string in = dir.write(name + ".json", original.substr(0, at));
    const std::string out = dir.path(name + ".annotated.json");
    EXPECT_EQ(run_shell(dir, whyslow("annotate '" + in + "' -o '" + out + "'")).status, 2) << "truncated: refused";
    const CommandResult r = run_shell(dir, whyslow("annotate --allow-truncated '" + in + "' -o '" + out + "'"));
    ASSERT_EQ(r.status, 0) << r.err;
    testing::Explained before{load_trace(in, {.allow_truncated = true}), {}, {}};
    ASSERT_TRUE(before.trace.truncated);
    before.facts = analyze(before.trace);
    before.findings = explain(before.trace, before.facts);
    const auto after = testing::explain_file(out);  // whole: loads without --allow-truncated
    EXPECT_FALSE(after.trace.truncated);
    expect_only_the_findings_track_added(before, after);
    const std::string written = testing::read_file(out);
    EXPECT_EQ(written.substr(0, 1000), original.substr(0, 1000));
  }
}

// Issue 10 item 11: `annotate /dev/stdin` failed: the input is read twice (to analyze it, then
// to copy it), and a pipe can be read only once.
TEST(Annotate, ReadsItsInputFromAPipe) {
  TempDir dir;
  const std::string fixture = testing::fixture("mm_bias_64_fp32_cold.json.gz");
  const std::string from_file = dir.path("from_file.json"), from_pipe = dir.path("from_pipe.json");
  ASSERT_EQ(run_shell(dir, whyslow("annotate '" + fixture + "' -o '" + from_file + "'")).status, 0);
  const CommandResult r = run_shell(dir, "cat '" + fixture + "' | " + whyslow("annotate /dev/stdin -o '" + from_pipe + "'"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(testing::read_file(from_pipe), testing::read_file(from_file));
  // A broken trace on a pipe is reported under the name the user gave, not a temporary copy's.
  const CommandResult bad = run_shell(dir, "printf '{\"traceEvents\": [{]}' | " + whyslow("annotate /dev/stdin -o '" +
                                                                               dir.path("bad.json") + "'"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("whyslow: error: /dev/stdin: ", 0), 0u) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("bad.json")));
}

// Issue 10 item 4: the temporary file had one fixed name, so two runs writing one output wrote
// into the same file (81 MB of corrupt JSON, both reporting success). Each run now has its own:
// both succeed and the output is one of the two, whole.
TEST(Annotate, ConcurrentRunsToOneOutputLeaveOneWholeTrace) {
  TempDir dir;
  const std::string a = testing::fixture("compiled_cold.json.gz"), b = testing::fixture("mm_bias_4096_fp32.json.gz");
  const std::string out = dir.path("out.json"), out_a = dir.path("a.json"), out_b = dir.path("b.json");
  ASSERT_EQ(run_shell(dir, whyslow("annotate '" + a + "' -o '" + out_a + "'")).status, 0);
  ASSERT_EQ(run_shell(dir, whyslow("annotate '" + b + "' -o '" + out_b + "'")).status, 0);
  for (int round = 0; round < 3; ++round) {
    std::string both = "(";  // built in steps: GCC 12 misreads `"(" + std::string&&` as an overlapping copy
    both += whyslow("annotate '" + a + "' -o '" + out + "'");
    both += ") & p=$!; " + whyslow("annotate '" + b + "' -o '" + out + "'") + " && wait $p";
    const CommandResult r = run_shell(dir, both);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string now = testing::read_file(out);
    EXPECT_TRUE(now == testing::read_file(out_a) || now == testing::read_file(out_b)) << now.size() << " bytes";
  }
  std::set<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.path(""))) left.insert(e.path().filename());
  EXPECT_EQ(left, (std::set<std::string>{"a.json", "b.json", "out.json"}));
}

}  // namespace
}  // namespace whyslow
