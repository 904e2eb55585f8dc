// Hostile input, second round (issue 32): events whyslow did not read without a word (item 10:
// Chrome-trace "B"/"E" pairs, other phases), folders whose entries were skipped or aborted the
// job (item 10), and traces too large to hold (item 4: --max-events, --max-inflated).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/trace_set.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::trace_json;

std::string be(char ph, const std::string& name, int tid, int ts) {
  return std::string(R"({"ph":")") + ph + R"(","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":)" +
         std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + "}";
}

struct CliRun {
  int status = -1;
  std::string out, err;
};

CliRun whyslow(const TempDir& dir, const std::string& args) {
  const std::string out = dir.path("out.txt"), err = dir.path("err.txt");
  const int status = std::system(("'" WHYSLOW_BINARY "' " + args + " >'" + out + "' 2>'" + err + "'").c_str());
  CliRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(out), testing::read_file(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

TEST(HostileEvents, BeginEndPairsAreDurationEventsMatchedPerThread) {
  TempDir dir;
  // Two threads interleaved; on thread 1 "inner" nests in "outer". "E" carries no name.
  const Trace t = load_trace(dir.write(
      "t.json", trace_json({be('B', "outer", 1, 10), be('B', "other", 2, 12), be('B', "inner", 1, 20),
                            R"({"ph":"E","pid":1,"tid":1,"ts":30})", R"({"ph":"E","pid":1,"tid":2,"ts":40})",
                            R"({"ph":"E","pid":1,"tid":1,"ts":50})"})));
  ASSERT_EQ(t.size(), 3u);
  const auto outer = testing::events_named(t, "outer"), inner = testing::events_named(t, "inner"),
             other = testing::events_named(t, "other");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(t.start_ns[outer[0]], 10'000);
  EXPECT_EQ(t.dur_ns[outer[0]], 40'000);
  EXPECT_EQ(t.dur_ns[inner[0]], 10'000);
  EXPECT_EQ(t.dur_ns[other[0]], 28'000);
  EXPECT_EQ(t.parent[inner[0]], outer[0]);
  EXPECT_EQ(t.kind[outer[0]], EventKind::CpuOp);
  EXPECT_EQ(t.unbalanced_durations, 0u);
  EXPECT_EQ(t.ignored_events, 0u);
}

TEST(HostileEvents, UnbalancedBeginsAndEndsAreCountedAndSaid) {
  TempDir dir;
  // An "E" with nothing open, a "B" never closed, and a pair that does match.
  const std::string path = dir.write(
      "t.json", trace_json({R"({"ph":"E","pid":1,"tid":1,"ts":5})", be('B', "open", 1, 10), be('B', "pair", 2, 10),
                            R"({"ph":"E","pid":1,"tid":2,"ts":20})"}));
  const Trace t = load_trace(path);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.unbalanced_durations, 2u);
  const CliRun r = whyslow(dir, "explain '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 duration events (\"ph\": \"B\" / \"E\") without their other end"), std::string::npos) << r.err;
  // An "E" without 'ts' is an error like an "X" without one.
  EXPECT_THROW(load_trace(dir.write("no_ts.json", trace_json({be('B', "a", 1, 1), R"({"ph":"E","pid":1,"tid":1})"}))),
               LoadError);
}

TEST(HostileEvents, PhasesWhyslowDoesNotReadAreSaid) {
  TempDir dir;
  const std::string path = dir.write("t.json", trace_json({be('B', "a", 1, 1), R"({"ph":"E","pid":1,"tid":1,"ts":2})",
                                                           R"({"ph":"C","name":"mem","pid":1,"ts":1,"args":{"v":1}})",
                                                           R"({"ph":"C","name":"mem","pid":1,"ts":2,"args":{"v":2}})",
                                                           R"({"ph":"b","name":"async","pid":1,"ts":1,"id":1})"}));
  const Trace t = load_trace(path);
  EXPECT_EQ(t.ignored_events, 3u);
  EXPECT_EQ(t.ignored_phases, "Cb");
  const CliRun r = whyslow(dir, "info '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1 event on 1 track"), std::string::npos) << r.out;  // it said "0 events on 0 tracks"
  EXPECT_NE(r.err.find("3 events of phases whyslow does not read (\"ph\": \"C\", \"b\")"), std::string::npos) << r.err;
}

// ---- folders ----

std::string small_rank(int rank) {
  return trace_json({R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5})"},
                    R"("distributedInfo": {"rank": )" + std::to_string(rank) + R"(, "world_size": 4}, )");
}

TEST(HostileFolders, EntriesNamedLikeTracesThatAreNotFilesAreErrors) {
  struct Case {
    std::string what;
    std::function<void(const std::string&)> make;
  };
  const std::vector<Case> cases = {
      {"a broken symbolic link", [](const std::string& p) { fs::create_symlink("missing.json", p); }},
      {"a symbolic link in a loop", [](const std::string& p) { fs::create_symlink(fs::path(p).filename(), p); }},
      {"a FIFO", [](const std::string& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TempDir dir;
    for (int r = 0; r < 3; ++r) dir.write("rank" + std::to_string(r) + ".json", small_rank(r));
    const std::string odd = dir.path("rank3.json");
    c.make(odd);
    try {
      const auto paths = expand_trace_paths({dir.path("")});
      ADD_FAILURE() << paths.size() << " files";  // it said "3 ranks"
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find(odd), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.what), std::string::npos) << e.what();
    }
  }
}

// Issue 45 item 8: the FIFO a folder refuses, matched by a glob, was opened and waited on forever.
TEST(HostileFolders, AGlobMatchingAFifoIsRefused) {
  TempDir dir;
  for (int r = 0; r < 3; ++r) dir.write("rank" + std::to_string(r) + ".json", small_rank(r));
  const std::string fifo = dir.path("rank3.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    const auto paths = expand_trace_paths({dir.path("rank*.json")});
    ADD_FAILURE() << paths.size() << " files";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find(fifo + ": a FIFO (named pipe), matched by the pattern"), std::string::npos)
        << e.what();
  }
  // The command stops too (it waited for a writer that never came: the test's timeout ended it).
  const CliRun r = whyslow(dir, "explain '" + dir.path("rank*.json") + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("a FIFO (named pipe)"), std::string::npos) << r.err;
}

TEST(HostileFolders, AJsonFileThatIsNoTraceIsLeftOutWithANote) {
  TempDir dir;
  const std::string ranks = std::string(WHYSLOW_FIXTURES) + "/ranks/";
  fs::copy_file(ranks + "dlrm_worker0.json.gz", dir.path("dlrm_worker0.json.gz"));
  fs::copy_file(ranks + "dlrm_worker2.json.gz", dir.path("dlrm_worker2.json.gz"));
  const std::string truth = dir.write("truth.json", R"({"ranks": 2, "straggler": 1, "block": "## forward ##"})");
  const CliRun r = whyslow(dir, "explain '" + dir.path("") + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(truth + ": neither a trace nor a digest"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("2 ranks"), std::string::npos) << r.out;
  // Named on its own, it is still an error.
  EXPECT_EQ(whyslow(dir, "explain '" + truth + "'").status, 2);
}

TEST(HoldsTraceEvents, ReadsOnlyUpToTheEvents) {
  TempDir dir;
  EXPECT_TRUE(holds_trace_events(dir.write("a.json", small_rank(0))));
  EXPECT_TRUE(holds_trace_events(dir.write_gz("a.json.gz", small_rank(0))));
  EXPECT_TRUE(holds_trace_events(dir.write("legacy.json", "[{\"ph\":\"X\"}]")));
  EXPECT_TRUE(holds_trace_events(dir.write("events_only.json", "{\"traceEvents\": [")));  // cut short: the load says so
  EXPECT_TRUE(holds_trace_events(dir.write("broken.json", "{\"a\": tru")));
  EXPECT_TRUE(holds_trace_events(dir.path("missing.json")));
  EXPECT_FALSE(holds_trace_events(dir.write("truth.json", "{\"ranks\": 16, \"sources\": [\"a\"]}")));
  EXPECT_FALSE(holds_trace_events(dir.write("digest.json", "{\"whyslow_digest\": 1, \"rank\": 0}")));
}

// ---- item 4: a whole trace too large to hold ----

TEST(HostileEvents, MoreEventsThanTheLimitAreRefusedNamingTheFlag) {
  TempDir dir;
  // A small .gz of many tiny identical events: ~80 bytes each once loaded, a few bits compressed.
  const std::string tiny = R"({"ph":"i","s":"t","name":"x","pid":1,"tid":1,"ts":1})";
  std::string text = "{\"traceEvents\": [";
  constexpr int kEvents = 1'200'000;
  text.reserve(kEvents * (tiny.size() + 1) + 4);
  for (int i = 0; i < kEvents; ++i) (text += i ? "," : "") += tiny;
  text += "]}";
  const std::string gz = dir.write_gz("bomb.json.gz", text);
  EXPECT_LT(fs::file_size(gz), text.size() / 100);
  try {
    load_trace(gz, LoadOptions{.max_events = 1'000'000});
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::TooLarge) << e.what();
    EXPECT_NE(std::string(e.what()).find(gz), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than 1000000 events"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-events"), std::string::npos) << e.what();
  }
  EXPECT_EQ(load_trace(gz, LoadOptions{.max_events = kEvents}).size(), size_t{kEvents});
  const CliRun r = whyslow(dir, "info --max-events 1000 '" + gz + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--max-events"), std::string::npos) << r.err;
}

TEST(HostileEvents, MoreJsonThanTheLimitIsRefusedNamingTheFlag) {
  TempDir dir;
  const std::string pad(3u << 20, ' ');  // 3 MiB of white space between two events
  const std::string text = "{\"traceEvents\": [" + std::string(R"({"ph":"i","s":"t","ts":1})") + "," + pad +
                           R"({"ph":"i","s":"t","ts":2})" + "]}";
  const std::string gz = dir.write_gz("wide.json.gz", text);
  try {
    load_trace(gz, LoadOptions{.max_inflated_bytes = uint64_t{1} << 20});
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::TooLarge) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than 1 MiB of JSON"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-inflated"), std::string::npos) << e.what();
  }
  EXPECT_EQ(load_trace(gz).size(), 2u);
  const CliRun r = whyslow(dir, "explain --max-inflated 1 '" + gz + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--max-inflated"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace whyslow
