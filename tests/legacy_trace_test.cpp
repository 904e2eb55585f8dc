// torch's legacy profiler format (Debian's python3-torch 1.13, built without Kineto): a bare
// array, no `cat`, "pid": "CPU functions", integer µs. tests/fixtures/legacy/ holds a real one
// and the key_averages() torch printed for it (tools/record_legacy_fixture.py); the op table is
// held to that oracle row for row by ops_oracle_test.cpp, these tests check the rest.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>

#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace/legacy_events.hpp"
#include "trace/steps.hpp"

namespace whyslow {
namespace {

const std::string kFixture = std::string(WHYSLOW_FIXTURES) + "/legacy/mlp_cpu_legacy";

// key_averages() rows of the fixture's oracle: name → (count, CPU total µs).
std::map<std::string, std::pair<uint64_t, double>> oracle_rows() {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(kFixture + ".oracle.json");
  std::map<std::string, std::pair<uint64_t, double>> rows;
  for (simdjson::dom::element r : doc["key_averages"].get_array())
    rows[std::string(std::string_view(r["key"]))] = {uint64_t(r["count"].get_int64()), double(r["cpu_time_total"])};
  return rows;
}

TEST(LegacyTrace, KindsFromNames) {
  EXPECT_EQ(legacy_cpu_event_kind("aten::addmm"), EventKind::CpuOp);
  EXPECT_EQ(legacy_cpu_event_kind("autograd::engine::evaluate_function: AddmmBackward0"), EventKind::CpuOp);
  EXPECT_EQ(legacy_cpu_event_kind("torch::autograd::AccumulateGrad"), EventKind::CpuOp);
  EXPECT_EQ(legacy_cpu_event_kind("AddmmBackward0"), EventKind::CpuOp);
  EXPECT_EQ(legacy_cpu_event_kind("MulBackward12"), EventKind::CpuOp);
  EXPECT_EQ(legacy_cpu_event_kind("ProfilerStep#3"), EventKind::UserAnnotation);
  EXPECT_EQ(legacy_cpu_event_kind("forward"), EventKind::UserAnnotation);
  EXPECT_EQ(legacy_cpu_event_kind("Optimizer.step#SGD.step"), EventKind::UserAnnotation);
  EXPECT_EQ(legacy_cpu_event_kind("Backward0"), EventKind::UserAnnotation);     // no forward name
  EXPECT_EQ(legacy_cpu_event_kind("Backwards"), EventKind::UserAnnotation);     // no version
  EXPECT_EQ(legacy_cpu_event_kind("my_backward2"), EventKind::UserAnnotation);  // not torch's spelling
}

TEST(LegacyTrace, StepsAreTheProfilerStepsAsWritten) {
  const auto x = testing::explain_file(kFixture + ".json.gz");
  // The raw events, read apart from the loader: every ProfilerStep#N with its ts and dur in µs.
  simdjson::dom::parser parser;
  const simdjson::padded_string json(testing::gunzip_file(kFixture + ".json.gz"));
  std::vector<std::tuple<std::string, int64_t, int64_t>> raw;
  for (simdjson::dom::element e : parser.parse(json).get_array()) {
    const std::string name{std::string_view(e["name"])};
    if (name.starts_with("ProfilerStep#")) raw.emplace_back(name, int64_t(e["ts"]), int64_t(e["dur"]));
  }
  ASSERT_EQ(raw.size(), 3u);
  ASSERT_EQ(x.facts.steps.size(), raw.size());
  const auto oracle = oracle_rows();
  ASSERT_TRUE(oracle.count("ProfilerStep*"));
  EXPECT_EQ(oracle.at("ProfilerStep*").first, x.facts.steps.size());
  int64_t total_ns = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    const StepFacts& s = x.facts.steps[i];
    const auto& [name, ts_us, dur_us] = raw[i];
    EXPECT_EQ(s.name, name);
    EXPECT_EQ(s.start_ns, ts_us * 1000) << name;
    EXPECT_EQ(s.duration_ns, dur_us * 1000) << name;
    EXPECT_EQ(s.gpu_busy_ns, 0) << name;
    EXPECT_EQ(s.kernels, 0u) << name;
    total_ns += s.duration_ns;
  }
  EXPECT_NEAR(total_ns / 1e3, oracle.at("ProfilerStep*").second, 1.0);
}

TEST(LegacyTrace, RecordFunctionBlocksAreAnnotations) {
  const auto x = testing::explain_file(kFixture + ".json.gz");
  const auto oracle = oracle_rows();
  std::map<std::string, const AnnotationRow*> by_name;
  for (const AnnotationRow& a : x.facts.annotations) by_name[a.name] = &a;
  for (const char* block : {"forward", "backward", "optimizer", "Optimizer.step#SGD.step"}) {
    ASSERT_TRUE(by_name.count(block)) << block;
    ASSERT_TRUE(oracle.count(block)) << block;
    EXPECT_EQ(by_name[block]->calls, oracle.at(block).first) << block;
    EXPECT_NEAR(by_name[block]->cpu_total_ns / 1e3, oracle.at(block).second, 1.0) << block;
  }
  EXPECT_FALSE(by_name.count("aten::addmm"));
}

TEST(LegacyTrace, AllOnOneCpuThread) {
  const auto x = testing::explain_file(kFixture + ".json.gz");
  ASSERT_EQ(x.trace.tracks.size(), 1u);
  EXPECT_EQ(x.trace.tracks[0].pid, kLegacyCpuPid);
  EXPECT_EQ(x.trace.tracks[0].kind, TrackKind::Cpu);
}

TEST(LegacyTrace, OnlyTheLegacyProcessInfersKinds) {
  // A cat-less event of any other writer stays unknown: names decide only for the legacy writer.
  testing::TempDir dir;
  const std::string path = dir.write("bare.json",
      R"([{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 5, "tid": 1, "pid": "CPU functions"},)"
      R"( {"name": "aten::mm", "ph": "X", "ts": 1, "dur": 5, "tid": 1, "pid": 7},)"
      R"( {"name": "ProfilerStep#4", "ph": "X", "ts": 0, "dur": 9, "tid": 1, "pid": "CPU functions"}])");
  const Trace t = load_trace(path);
  const auto mm = testing::events_named(t, "aten::mm");
  ASSERT_EQ(mm.size(), 2u);
  EXPECT_EQ(t.kind[mm[0]], EventKind::CpuOp);
  EXPECT_EQ(t.kind[mm[1]], EventKind::Other);
  EXPECT_EQ(t.kind[testing::event_named(t, "ProfilerStep#4")], EventKind::UserAnnotation);
  ASSERT_EQ(profiler_steps(t).size(), 1u);
}

}  // namespace
}  // namespace whyslow
