// The loader's threads as its callers see them: progress reports, loads on several threads at
// once, and the result not depending on either.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

// compiled_cold.json.gz: 3.8 MB of JSON, about thirty of the loader's 128 KiB batches.
const std::string kTrace = testing::fixture("compiled_cold.json.gz");

TEST(LoadProgress, GrowsAndEndsOnceWithTheWholeInput) {
  std::vector<LoadProgress> seen;
  LoadOptions options;
  options.progress = [&](const LoadProgress& p) { seen.push_back(p); };
  const Trace t = load_trace(kTrace, options);
  ASSERT_GE(seen.size(), 3u);  // several batches, then the end
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].bytes, seen[i - 1].bytes);
    EXPECT_GE(seen[i].events, seen[i - 1].events);
    EXPECT_GE(seen[i].file_bytes, seen[i - 1].file_bytes);
  }
  for (size_t i = 0; i + 1 < seen.size(); ++i) EXPECT_FALSE(seen[i].done);
  const LoadProgress& last = seen.back();
  EXPECT_TRUE(last.done);
  EXPECT_EQ(last.bytes, t.input_bytes);
  EXPECT_EQ(last.file_bytes, last.file_size);  // the whole .gz was read
  EXPECT_GE(last.events, t.size());           // metadata and flow events are framed too
}

TEST(LoadProgress, EndsAlsoWhenTheLoadFails) {
  testing::TempDir dir;
  const std::string path = dir.write("broken.json", R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 2}, {"ph": )");
  bool done = false;
  LoadOptions options;
  options.progress = [&](const LoadProgress& p) { done |= p.done; };
  EXPECT_THROW(load_trace(path, options), LoadError);
  EXPECT_TRUE(done);
}

// Eight loads of one file on four threads give eight identical traces, equal to a load alone.
TEST(LoadThreads, ConcurrentLoadsGiveTheSameTrace) {
  const Trace alone = load_trace(kTrace);
  std::vector<Trace> traces(8);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      for (int k = w; k < 8; k += 4) traces[k] = load_trace(kTrace);
    });
  for (std::thread& th : threads) th.join();
  for (const Trace& t : traces) {
    ASSERT_EQ(t.size(), alone.size());
    EXPECT_EQ(t.start_ns, alone.start_ns);
    EXPECT_EQ(t.dur_ns, alone.dur_ns);
    EXPECT_EQ(t.name, alone.name);  // same NameIds: strings interned in the same order
    EXPECT_EQ(t.parent, alone.parent);
    EXPECT_EQ(t.launch_link, alone.launch_link);
    EXPECT_EQ(t.op_link, alone.op_link);
    EXPECT_EQ(t.names.size(), alone.names.size());
  }
}

// Batches are parsed by whichever thread is free, the calling thread included, but built in file
// order: of two bad events in different batches the first is always the one reported, and a bad
// event late in the file never hides behind the threads' timing.
TEST(LoadThreads, TheFirstBadEventIsReportedWhicheverThreadParsedIt) {
  testing::TempDir dir;
  std::string json = R"({"traceEvents": [)";
  const std::string good = R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 2},)";
  size_t first_bad = 0;
  for (int i = 0; i < 40000; ++i) {  // ~3.8 MB: about thirty batches
    if (i == 9000) {  // in the seventh or eighth batch
      first_bad = json.size();
      json += R"({"ph": "X", "ts": "soon", "dur": 2},)";
    } else if (i == 30000) {
      json += R"({"ph": "X", "ts": 1, "dur": [2]},)";
    } else {
      json += good;
    }
  }
  json.back() = ']';
  json += "}";
  const std::string path = dir.write("two_bad.json", json);
  for (int run = 0; run < 20; ++run) {
    try {
      load_trace(path);
      FAIL() << "loaded a trace with two bad events";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.byte_offset(), first_bad + std::string(R"({"ph": "X", "ts": )").size()) << e.what();
      EXPECT_NE(std::string(e.what()).find("(event #9000)"), std::string::npos) << e.what();
    }
  }
}

// ---- the framer on a thread of its own (four cores or more) ----
// LoadOptions::cores plans the threads as for that many cores, whatever this machine has: 1
// (framing, building and parsing on one thread with one parser), 2 (the usual two-core plan) and
// 8 (a framer thread, six parsers) must give the same trace, and fail on the same event with the
// same message.

const unsigned kPlans[] = {1, 2, 8};

LoadOptions with_cores(unsigned cores, LoadOptions options = {}) {
  options.cores = cores;
  return options;
}

void expect_same_trace(const Trace& t, const Trace& one, unsigned cores) {
  ASSERT_EQ(t.size(), one.size()) << cores << " cores";
  EXPECT_EQ(t.start_ns, one.start_ns) << cores;
  EXPECT_EQ(t.dur_ns, one.dur_ns) << cores;
  EXPECT_EQ(t.name, one.name) << cores;
  EXPECT_EQ(t.kind, one.kind) << cores;
  EXPECT_EQ(t.track, one.track) << cores;
  EXPECT_EQ(t.parent, one.parent) << cores;
  EXPECT_EQ(t.launch_link, one.launch_link) << cores;
  EXPECT_EQ(t.op_link, one.op_link) << cores;
  EXPECT_EQ(t.names.size(), one.names.size()) << cores;
  EXPECT_EQ(t.devices.size(), one.devices.size()) << cores;
  EXPECT_EQ(t.base_time_ns, one.base_time_ns) << cores;
  EXPECT_EQ(t.input_bytes, one.input_bytes) << cores;
  EXPECT_EQ(t.truncated, one.truncated) << cores;
  EXPECT_EQ(t.truncated_at_byte, one.truncated_at_byte) << cores;
}

TEST(FramerThread, EveryPlanLoadsTheSameTrace) {
  testing::TempDir dir;
  const std::string plain = dir.write("plain.json", testing::gunzip_file(kTrace));
  for (const std::string& path : {kTrace, plain}) {
    const Trace one = load_trace(path, with_cores(1));
    for (unsigned cores : kPlans) {
      std::vector<LoadProgress> seen;
      LoadOptions options = with_cores(cores);
      const std::thread::id loading = std::this_thread::get_id();
      bool on_loading_thread = true;
      options.progress = [&](const LoadProgress& p) {
        seen.push_back(p);
        on_loading_thread &= std::this_thread::get_id() == loading;
      };
      const Trace t = load_trace(path, options);
      expect_same_trace(t, one, cores);
      EXPECT_TRUE(on_loading_thread) << cores;
      ASSERT_FALSE(seen.empty());
      EXPECT_TRUE(seen.back().done);
      EXPECT_EQ(seen.back().bytes, t.input_bytes) << cores;
      for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].bytes, seen[i - 1].bytes) << cores;
    }
  }
}

// Errors from the parsers (a bad event), from the framer (broken JSON between events, a file cut
// short) and from the builder (a time out of order with the events before) arrive in file order
// whichever thread meets them first.
TEST(FramerThread, EveryPlanFailsOnTheSameEventWithTheSameMessage) {
  testing::TempDir dir;
  const std::string good = R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 2},)";
  auto events = [&](int n, int bad_at, const std::string& bad) {
    std::string json = R"({"traceEvents": [)";
    for (int i = 0; i < n; ++i) json += i == bad_at ? bad : good;
    return json;
  };
  struct Case {
    std::string name, json;
  };
  std::vector<Case> cases = {
      {"bad event, then broken JSON", events(30000, 9000, R"({"ph": "X", "ts": "soon", "dur": 2},)") + "{\"ph\" \"X\"}]}"},
      {"broken JSON between events", events(30000, -1, "") + "{\"ph\": \"X\"} {]}"},
      {"cut short", events(30000, -1, "") + R"({"ph": "X", "ts": 1)"},
      {"bad event in the last batch", events(30000, 29990, R"({"ph": "X", "ts": 1, "dur": [2]},)") + "{}]}"},
      {"no ph", events(20000, 15000, R"({"ts": 1, "dur": 2},)") + "{}]}"},
      // Found by the builder: 2^62 ns from the events before it (each event alone is in range).
      {"too far apart", events(20000, 11000, R"({"ph": "X", "ts": -4611686018427387, "dur": 1},)") + "{}]}"},
      {"a value too large", events(20000, 12000, R"({"ph": "X", "ts": 1, "dur": 2, "args": {"x": ")" + std::string(3u << 20, 'x') + R"("}},)") + "{}]}"},
  };
  for (const Case& c : cases) {
    const std::string path = dir.write("bad.json", c.json);
    const LoadOptions limit{.max_value_bytes = size_t{2} << 20};
    std::string first_what;
    uint64_t first_offset = 0;
    for (unsigned cores : kPlans) {
      for (int run = 0; run < 5; ++run) {
        try {
          load_trace(path, with_cores(cores, limit));
          ADD_FAILURE() << c.name << ": loaded";
        } catch (const LoadError& e) {
          if (first_what.empty()) {
            first_what = e.what();
            first_offset = e.byte_offset();
          }
          EXPECT_EQ(e.what(), first_what) << c.name << ", " << cores << " cores";
          EXPECT_EQ(e.byte_offset(), first_offset) << c.name << ", " << cores << " cores";
        }
      }
    }
  }
  // --allow-truncated: the same complete events, the same cut.
  const std::string cut = dir.write("cut.json", events(30000, -1, "") + R"({"ph": "X", "ts": 1)");
  const LoadOptions allow{.allow_truncated = true};
  const Trace one = load_trace(cut, with_cores(1, allow));
  EXPECT_TRUE(one.truncated);
  for (unsigned cores : kPlans) expect_same_trace(load_trace(cut, with_cores(cores, allow)), one, cores);
}

}  // namespace
}  // namespace whyslow
