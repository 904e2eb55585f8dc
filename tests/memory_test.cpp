// Where the memory goes, on the H200 recordings of tests/fixtures/memory/ (tools/record_memory.py,
// profile_memory=True). The oracle is torch's own allocator counters, read in each step by the
// recorder (NAME.truth.json: reset_peak_memory_stats() at the step's start, max_memory_allocated(),
// max_memory_reserved() and memory_allocated() at its end): whyslow's per-step numbers must equal
// them to the byte.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "report/json/json_report.hpp"
#include "report/format.hpp"
#include "report/text/tables.hpp"
#include "test_support.hpp"
#include "trace/slice_trace.hpp"

namespace whyslow {
namespace {

using testing::evidence;
using testing::Explained;
using testing::explain_file;
using testing::find;

std::string memory_fixture(const std::string& name) { return testing::fixture_in("memory", name + ".json.gz"); }

struct TorchStep {
  std::string step;
  int64_t start, max_allocated, end, max_reserved;
};

std::vector<TorchStep> torch_steps(const std::string& name) {
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.load(testing::fixture_in("memory", name + ".truth.json"));
  std::vector<TorchStep> out;
  for (simdjson::dom::element s : root["profiled_steps"].get_array())
    out.push_back({std::string(std::string_view(s["profiler_step"])), int64_t(s["allocated_start"]),
                   int64_t(s["max_allocated"]), int64_t(s["allocated_end"]), int64_t(s["max_reserved"])});
  return out;
}

int64_t truth_int(const std::string& name, const char* key) {
  simdjson::dom::parser parser;
  return int64_t(parser.load(testing::fixture_in("memory", name + ".truth.json"))[key]);
}

TEST(Memory, EveryStepsPeakStartAndEndEqualTorchsCountersToTheByte) {
  for (const char* name : {"logits", "leak", "ckpt_off", "ckpt_on", "fragment"}) {
    SCOPED_TRACE(name);
    const Explained e = explain_file(memory_fixture(name));
    ASSERT_FALSE(e.facts.memory.devices.empty());
    const DeviceMemory& gpu = e.facts.memory.devices.front();
    EXPECT_EQ(gpu.device_type, 1);
    EXPECT_EQ(gpu.device_id, 0);
    EXPECT_EQ(gpu.total_mismatches, 0u);  // a running sum of Bytes gives every Total Allocated
    const std::vector<TorchStep> truth = torch_steps(name);
    ASSERT_EQ(truth.size(), e.facts.steps.size());
    for (size_t i = 0; i < truth.size(); ++i) {
      SCOPED_TRACE(truth[i].step);
      ASSERT_EQ(e.facts.steps[i].name, truth[i].step);
      const StepMemory& m = gpu.steps[i];
      EXPECT_EQ(m.start_allocated, truth[i].start);
      EXPECT_EQ(m.peak_allocated, truth[i].max_allocated);
      EXPECT_EQ(m.end_allocated, truth[i].end);
      EXPECT_EQ(m.peak_reserved, truth[i].max_reserved);
    }
  }
}

TEST(Memory, OutsizedLogitsAreTheLargestLiveTensorsAndTheAdviceSaysSo) {
  const Explained e = explain_file(memory_fixture("logits"));
  const int64_t logits = truth_int("logits", "logits_bytes");  // 8 × 1024 × 32000 × 4 B
  ASSERT_EQ(logits, 1048576000);
  const DeviceMemory& gpu = e.facts.memory.devices.front();
  size_t of_logits_size = 0;
  for (const LiveAllocation& a : gpu.live_at_peak) of_logits_size += a.bytes == logits;
  EXPECT_EQ(of_logits_size, 4u);  // logits, log_softmax, and their gradients, live at once
  const Finding* f = find(e, FindingId::memory_peak);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(evidence(*f, "peak_allocated_bytes"), 5025353728.0);
  EXPECT_EQ(evidence(*f, "largest_bytes"), static_cast<double>(logits));
  ASSERT_FALSE(f->try_next.empty());
  EXPECT_NE(f->try_next.front().find("fuse the last linear layer with the cross-entropy"), std::string::npos) << f->try_next.front();
  EXPECT_EQ(find(e, FindingId::memory_growth), nullptr);  // every step ends where it started
}

TEST(Memory, ALeakIsGrowthStepAfterStep) {
  const Explained e = explain_file(memory_fixture("leak"));
  const Finding* f = find(e, FindingId::memory_growth);
  ASSERT_NE(f, nullptr);
  // torch: allocated_end − allocated_start = 65,536,512 in every step (a logits clone and the loss).
  for (const TorchStep& s : torch_steps("leak")) EXPECT_EQ(s.end - s.start, 65536512);
  EXPECT_EQ(evidence(*f, "growth_per_step_bytes"), 65536512.0);
  EXPECT_EQ(evidence(*f, "steps"), 3);
}

TEST(Memory, CheckpointingTradesActivationsAway) {
  const Explained off = explain_file(memory_fixture("ckpt_off"));
  const Explained on = explain_file(memory_fixture("ckpt_on"));
  const Finding* foff = find(off, FindingId::memory_peak);
  const Finding* fon = find(on, FindingId::memory_peak);
  ASSERT_NE(foff, nullptr);
  ASSERT_NE(fon, nullptr);
  // Without checkpointing the saved activations hold most of the peak, and the advice is checkpointing.
  EXPECT_GT(evidence(*foff, "activation_bytes"), 0.5 * evidence(*foff, "peak_allocated_bytes"));
  EXPECT_TRUE(std::any_of(foff->try_next.begin(), foff->try_next.end(),
                          [](const std::string& t) { return t.find("activation checkpointing") != std::string::npos; }));
  EXPECT_LT(evidence(*fon, "activation_bytes"), 0.25 * evidence(*foff, "activation_bytes"));
  EXPECT_LT(evidence(*fon, "peak_allocated_bytes"), 0.4 * evidence(*foff, "peak_allocated_bytes"));
}

TEST(Memory, ReservedFarAboveAllocatedIsFragmentation) {
  const Explained e = explain_file(memory_fixture("fragment"));
  const Finding* f = find(e, FindingId::memory_peak);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(std::any_of(f->try_next.begin(), f->try_next.end(),
                          [](const std::string& t) { return t.find("expandable_segments:True") != std::string::npos; }));
  // Its kept deque was filled before profiling: frees of those are of memory the trace never saw allocated.
  EXPECT_GT(e.facts.memory.devices.front().unmatched_frees, 0u);
}

TEST(Memory, CpuMemoryIsItsOwnAllocator) {
  const Explained e = explain_file(memory_fixture("logits_cpu"));
  ASSERT_EQ(e.facts.memory.devices.size(), 1u);
  const DeviceMemory& cpu = e.facts.memory.devices.front();
  EXPECT_EQ(cpu.device_type, 0);
  // The recorder's own read of the raw events: the largest CPU Total Allocated in each step.
  for (const StepMemory& m : cpu.steps) EXPECT_EQ(m.peak_allocated, 311839760);
  const Finding* f = find(e, FindingId::memory_peak);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("on the CPU"), std::string::npos) << f->title;
  EXPECT_EQ(f->title.find("reserved"), std::string::npos) << f->title;  // the CPU allocator reserves nothing
}

TEST(Memory, OneStepSlicedOutKeepsItsNumbers) {
  const Explained whole = explain_file(memory_fixture("leak"));
  const Trace& t = whole.trace;
  const StepFacts& s = whole.facts.steps[1];
  const Trace one = slice_trace(t, s.start_ns, s.end_ns);
  const Facts f = analyze(one);
  ASSERT_EQ(f.steps.size(), 1u);
  ASSERT_FALSE(f.memory.devices.empty());
  EXPECT_EQ(f.memory.devices.front().steps[0].peak_allocated, whole.facts.memory.devices.front().steps[1].peak_allocated);
  EXPECT_EQ(f.memory.devices.front().steps[0].start_allocated, whole.facts.memory.devices.front().steps[1].start_allocated);
}

TEST(Memory, ATraceWithoutRecordsSaysHowToRecordThemAndNothingElse) {
  const Explained e = explain_file(testing::fixture("mm_bias_64_fp32.json.gz"));
  EXPECT_TRUE(e.facts.memory.devices.empty());
  EXPECT_EQ(find(e, FindingId::memory_peak), nullptr);
  EXPECT_NE(report::memory_table(e.trace, e.facts, report::kDefaultLineWidth).find("profile_memory=True"), std::string::npos);
  const std::string json = render_json(e.trace, e.facts, e.findings);
  EXPECT_NE(json.find("\"memory\": null"), std::string::npos);
}

TEST(Memory, RecordsThatContradictThemselvesAreCountedNotBelieved) {
  // A free of an address never allocated, a Total Allocated that skips ahead, a negative total.
  const std::string path = ::testing::TempDir() + "/memory_bad.json";
  std::ofstream(path) << R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 10, "dur": 100},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 20,
     "args": {"Addr": 4096, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2048, "Device Id": 0, "Device Type": 1}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 30,
     "args": {"Addr": 9999, "Bytes": -256, "Total Allocated": 256, "Total Reserved": 2048, "Device Id": 0, "Device Type": 1}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 40,
     "args": {"Addr": 8192, "Bytes": 100, "Total Allocated": 5000, "Total Reserved": 8192, "Device Id": 0, "Device Type": 1}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 50,
     "args": {"Addr": 4096, "Bytes": -6000, "Total Allocated": -1000, "Total Reserved": 8192, "Device Id": 0, "Device Type": 1}}
  ]})";
  const Explained e = explain_file(path);
  ASSERT_EQ(e.facts.memory.devices.size(), 1u);
  const DeviceMemory& d = e.facts.memory.devices.front();
  EXPECT_EQ(d.records, 4u);
  EXPECT_EQ(d.unmatched_frees, 1u);    // 9999 was never allocated
  EXPECT_EQ(d.total_mismatches, 1u);   // 256 after 512 − 256 is right, 5000 after 256 + 100 is not
  EXPECT_EQ(d.negative_totals, 1u);
  EXPECT_EQ(d.peak_allocated, 5000);   // the allocator's own total, as written
  EXPECT_NE(report::memory_table(e.trace, e.facts, report::kDefaultLineWidth).find("1 free of memory allocated before the trace"), std::string::npos);
}

}  // namespace
}  // namespace whyslow
