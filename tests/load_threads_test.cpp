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

// compiled_cold.json.gz: 3.8 MB of JSON, about fifteen of the loader's 256 KiB batches.
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
  for (int i = 0; i < 40000; ++i) {  // ~3.8 MB: about fifteen batches
    if (i == 9000) {  // in the third or fourth batch
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

}  // namespace
}  // namespace whyslow
