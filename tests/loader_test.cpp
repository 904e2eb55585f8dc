// load_trace on small hand-written traces: times, ids, categories, tracks, nesting, links,
// flows, odd JSON that real writers produce, gzip, and a large file that spans the loader's
// internal buffers.
#include "trace/load_trace.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "trace/distinct_rows.hpp"
#include "trace/load_error.hpp"

namespace whyslow {
namespace {

using testing::category_of;
using testing::event_named;
using testing::events_named;
using testing::load_through_pipe;
using testing::TempDir;
using testing::trace_json;

Trace load_text(const TempDir& dir, const std::string& text, const std::string& name = "t.json") {
  return load_trace(dir.write(name, text));
}

TEST(Loader, IntegerAndDecimalTimestampsAreExactNanoseconds) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "int_ts", "pid": 1, "tid": 1, "ts": 1694128201435418, "dur": 5})",
      R"({"ph": "X", "cat": "cpu_op", "name": "dec_ts", "pid": 1, "tid": 1, "ts": 1712195495519689.047, "dur": 274.975})",
      R"({"ph": "X", "cat": "cpu_op", "name": "float_ts", "pid": 1, "tid": 2, "ts": 12.5, "dur": 5.0})",
      R"({"ph": "X", "cat": "cpu_op", "name": "exp_ts", "pid": 1, "tid": 2, "ts": 1.5e3, "dur": 2e-3})",
      R"({"ph": "X", "cat": "cpu_op", "name": "round_ts", "pid": 1, "tid": 2, "ts": 100.0005, "dur": 0.0004})",
      R"({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1712195495519690.001})",
  }));
  ASSERT_EQ(t.size(), 6u);
  EventId e = event_named(t, "int_ts");
  EXPECT_EQ(t.start_ns[e], 1694128201435418000);
  EXPECT_EQ(t.dur_ns[e], 5000);
  e = event_named(t, "dec_ts");
  EXPECT_EQ(t.start_ns[e], 1712195495519689047);
  EXPECT_EQ(t.dur_ns[e], 274975);
  EXPECT_EQ(t.end_ns(e), 1712195495519964022);
  e = event_named(t, "float_ts");
  EXPECT_EQ(t.start_ns[e], 12500);
  EXPECT_EQ(t.dur_ns[e], 5000);
  e = event_named(t, "exp_ts");
  EXPECT_EQ(t.start_ns[e], 1500000);
  EXPECT_EQ(t.dur_ns[e], 2);
  e = event_named(t, "round_ts");
  EXPECT_EQ(t.start_ns[e], 100001);
  EXPECT_EQ(t.dur_ns[e], 0);
  e = event_named(t, "[memory]");
  EXPECT_EQ(t.start_ns[e], 1712195495519690001);
  EXPECT_EQ(t.dur_ns[e], 0);
  EXPECT_EQ(t.kind[e], EventKind::Instant);
}

TEST(Loader, BaseTimeNanosecondsAndSchemaVersion) {
  TempDir dir;
  const Trace t = load_text(
      dir, trace_json({R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 431, "tid": 431, "ts": 5123253847663.197, "dur": 274.975})"},
                      R"("displayTimeUnit": "ms", "baseTimeNanoseconds": 1790857026000000000, )"));
  EXPECT_EQ(t.base_time_ns, 1790857026000000000);
  EXPECT_EQ(t.schema_version, 1);
  ASSERT_EQ(t.size(), 1u);
  // Times stay on the trace's own clock: the base is reported, not added.
  EXPECT_EQ(t.start_ns[0], 5123253847663197);
  EXPECT_EQ(t.dur_ns[0], 274975);
  EXPECT_FALSE(t.truncated);

  const Trace none = load_text(dir, R"({"traceEvents": []})", "none.json");
  EXPECT_EQ(none.base_time_ns, 0);
  EXPECT_EQ(none.schema_version, 0);
  EXPECT_EQ(none.size(), 0u);
}

// The 2021 schema (tb_plugin samples): string tids, old category names, "external id",
// flows "async"/"launch" whose tid is an integer while the slice's tid is a string.
TEST(Loader, Schema2021CategoriesAndStringIds) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": 25738, "tid": "25738", "ts": 1623143090000000, "dur": 100, "args": {"Device": 25738, "external id": 42, "Trace name": "PyTorch Profiler", "Trace iteration": 0}})",
      R"({"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1623143090000010, "dur": 5, "args": {"correlation": 7, "external id": 42, "external ts": 1623143090000000}})",
      R"({"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7", "ts": 1623143090000050, "dur": 20, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 7, "external id": 42, "registers per thread": 126, "shared memory": 12544, "grid": [16, 4, 1], "block": [256, 1, 1], "theoretical occupancy %": 12}})",
      R"j({"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 1623143090000080, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 8, "external id": 43, "bytes": 4096}})j",
      R"j({"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 1623143090000090, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 9, "bytes": 64}})j",
      R"({"ph": "s", "id": 7, "pid": 25738, "tid": 25738, "ts": 1623143090000010, "cat": "async", "name": "launch"})",
      R"({"ph": "f", "id": 7, "pid": 0, "tid": "stream 7", "ts": 1623143090000050, "cat": "async", "name": "launch", "bp": "e"})",
      R"j({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Traces", "tid": "PyTorch Profiler", "ts": 1623143089999000, "dur": 2000, "args": {"Op count": 0}})j",
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 25738, "tid": 25738, "ts": 1623143090000020, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 512}})",
      R"({"name": "thread_name", "ph": "M", "ts": 1623143089999000, "pid": 0, "tid": "stream 7", "args": {"name": "stream 7 "}})",
      R"({"name": "process_name", "ph": "M", "ts": 1623143089999000, "pid": 25738, "tid": 0, "args": {"name": "python"}})",
  }));
  ASSERT_EQ(t.size(), 7u);  // 6 X + 1 i; s, f and M are not events
  const EventId op = event_named(t, "aten::conv2d");
  const EventId rt = event_named(t, "cudaLaunchKernel");
  const EventId k = event_named(t, "volta_sgemm_128x64_nn");
  const EventId cp = event_named(t, "Memcpy HtoD (Pageable -> Device)");
  const EventId ms = event_named(t, "Memset (Device)");
  const EventId span = event_named(t, "PyTorch Profiler (0)");
  const EventId mem = event_named(t, "[memory]");
  EXPECT_EQ(t.kind[op], EventKind::CpuOp);
  EXPECT_EQ(t.kind[rt], EventKind::Runtime);
  EXPECT_EQ(t.kind[k], EventKind::Kernel);
  EXPECT_EQ(t.kind[cp], EventKind::Memcpy);
  EXPECT_EQ(t.kind[ms], EventKind::Memset);
  EXPECT_EQ(t.kind[span], EventKind::TraceSpan);
  EXPECT_EQ(t.kind[mem], EventKind::Instant);
  EXPECT_EQ(category_of(t, op), "Operator");
  EXPECT_EQ(category_of(t, k), "Kernel");
  EXPECT_EQ(t.category[mem], kNoName);  // [memory] has no cat in 2021

  // Tracks: the string tid "25738" and the integer tid 25738 are the same thread.
  const Track& cpu = t.tracks[t.track[op]];
  EXPECT_EQ(cpu.pid, "25738");
  EXPECT_EQ(cpu.tid, "25738");
  EXPECT_EQ(cpu.kind, TrackKind::Cpu);
  EXPECT_EQ(t.track[rt], t.track[op]);
  EXPECT_EQ(t.track[mem], t.track[op]);
  const Track& gpu = t.tracks[t.track[k]];
  EXPECT_EQ(gpu.pid, "0");
  EXPECT_EQ(gpu.tid, "stream 7");
  EXPECT_EQ(gpu.kind, TrackKind::Gpu);
  EXPECT_EQ(gpu.device, 0);
  EXPECT_EQ(gpu.stream, 7);
  EXPECT_EQ(gpu.name, "stream 7");  // from thread_name, trailing space dropped
  EXPECT_EQ(t.track[cp], t.track[k]);
  const Track& spans = t.tracks[t.track[span]];
  EXPECT_EQ(spans.pid, "Traces");
  EXPECT_EQ(spans.tid, "PyTorch Profiler");
  EXPECT_EQ(spans.kind, TrackKind::Other);

  // Links through "correlation" and the 2021 lower-case "external id".
  EXPECT_EQ(t.correlation[k], 7);
  EXPECT_EQ(t.external_id[k], 42);
  EXPECT_EQ(t.launch_link[k], rt);
  EXPECT_EQ(t.launch_link[rt], k);
  EXPECT_EQ(t.op_link[k], op);
  EXPECT_EQ(t.op_link[rt], op);
  EXPECT_EQ(t.launch_link[cp], kNoEvent);  // no runtime call with correlation 8
  EXPECT_EQ(t.op_link[cp], kNoEvent);      // no op with external id 43

  const GpuDetail& d = t.gpu_detail[t.detail[k]];
  EXPECT_EQ(d.registers, 126);
  EXPECT_EQ(d.shared_memory, 12544);
  EXPECT_EQ(d.grid[0], 16);
  EXPECT_EQ(d.grid[1], 4);
  EXPECT_EQ(d.block[0], 256);
  EXPECT_EQ(t.gpu_detail[t.detail[cp]].bytes, 4096);
  EXPECT_EQ(t.gpu_detail[t.detail[ms]].bytes, 64);

  EXPECT_EQ(t.flows.starts, 1u);
  EXPECT_EQ(t.flows.finishes, 1u);
  EXPECT_EQ(t.flows.unmatched_starts, 0u);
  EXPECT_EQ(t.flows.unmatched_finishes, 0u);
}

TEST(Loader, ThreadNameMetadataNamesTracks) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"name": "process_name", "ph": "M", "ts": 1, "pid": 431, "tid": 0, "args": {"name": "python3"}})",
      R"({"name": "process_labels", "ph": "M", "ts": 1, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}})",
      R"({"name": "thread_name", "ph": "M", "ts": 1, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}})",
      R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 0, "tid": 99, "args": {"name": "stream 99 (no events)"}})j",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 431, "tid": 431, "ts": 10, "dur": 5})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 431, "tid": 639, "ts": 10, "dur": 5})",
      R"({"ph": "X", "cat": "kernel", "name": "k7", "pid": 0, "tid": 7, "ts": 20, "dur": 5})",
      R"({"ph": "X", "cat": "kernel", "name": "k20", "pid": 1, "tid": 20, "ts": 20, "dur": 5})",
      R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": -1, "ts": 30, "dur": 1, "args": {"cuda_sync_kind": "Stream Sync"}})",
      // Metadata may come after the events it names.
      R"j({"name": "thread_name", "ph": "M", "ts": 1, "pid": 431, "tid": 639, "args": {"name": "thread 639 (pt_autograd_0)"}})j",
      R"({"name": "thread_sort_index", "ph": "M", "ts": 1, "pid": 431, "tid": 639, "args": {"sort_index": 639}})",
  }));
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t.tracks.size(), 5u);  // tracks exist only where events are
  EXPECT_EQ(t.tracks[t.track[event_named(t, "aten::add")]].name, "thread 639 (pt_autograd_0)");
  EXPECT_EQ(t.tracks[t.track[event_named(t, "aten::mm")]].name, "thread 431");  // default
  const Track& s7 = t.tracks[t.track[event_named(t, "k7")]];
  EXPECT_EQ(s7.name, "stream 7");
  EXPECT_EQ(s7.kind, TrackKind::Gpu);
  EXPECT_EQ(s7.stream, 7);
  const Track& s20 = t.tracks[t.track[event_named(t, "k20")]];
  EXPECT_EQ(s20.name, "GPU 1 stream 20");  // default for an unnamed GPU track
  EXPECT_EQ(s20.device, 1);
  const Track& sync = t.tracks[t.track[event_named(t, "Stream Sync")]];
  EXPECT_EQ(sync.tid, "-1");
  EXPECT_EQ(sync.kind, TrackKind::Gpu);
  for (const Track& tr : t.tracks) EXPECT_NE(tr.name, "stream 99 (no events)");
}

TEST(Loader, FlowsWithMissingEndsAreCounted) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}})",
      R"({"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"})",
      R"({"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 30, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
      R"({"ph": "s", "id": 2, "pid": 1, "tid": 1, "ts": 11, "cat": "ac2g", "name": "ac2g"})",
      R"({"ph": "f", "id": 3, "pid": 1, "tid": 1, "ts": 12, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
      R"({"ph": "s", "id": 4, "pid": 1, "tid": 1, "ts": 13, "cat": "ac2g", "name": "ac2g"})",
      R"({"ph": "f", "id": 4, "pid": 0, "tid": 7, "ts": 40, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
      R"({"ph": "f", "id": 4, "pid": 0, "tid": 7, "ts": 50, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
      R"({"ph": "f", "id": 5, "pid": 0, "tid": 7, "ts": 60, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 5, "args": {"correlation": 1}})",
  }));
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.flows.starts, 3u);
  EXPECT_EQ(t.flows.finishes, 5u);
  EXPECT_EQ(t.flows.unmatched_starts, 1u);    // id 2
  EXPECT_EQ(t.flows.unmatched_finishes, 2u);  // ids 3 and 5
  EXPECT_EQ(t.ignored_events, 0u);
}

// A "B"/"E" pair is a duration event (issue 32 item 10: it was counted and dropped); a counter
// is counted, with its phase, for the warning that says so.
TEST(Loader, OtherPhasesAreCountedNotLoaded) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "B", "name": "begin", "pid": 1, "tid": 1, "ts": 1})",
      R"({"ph": "E", "name": "end", "pid": 1, "tid": 1, "ts": 2})",
      R"({"ph": "C", "name": "counter", "pid": 1, "ts": 2, "args": {"v": 1}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 1, "dur": 1})",
  }));
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.ignored_events, 1u);
  EXPECT_EQ(t.ignored_phases, "C");
}

TEST(Loader, IntegersAboveInt64InArgs) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"Comms Id": 10159970886766084423, "External id": 18446744073709551615, "Collective name": "all_reduce", "Rank": 0}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 11, "dur": 1, "args": {"correlation": 10159970886766084423, "External id": 5}})",
      R"({"ph": "X", "cat": "kernel", "name": "ncclKernel", "pid": 0, "tid": 7, "ts": 20, "dur": 5, "args": {"correlation": 10159970886766084423, "External id": -99999999999999999999, "Comms Id": 10159970886766084423}})",
      R"({"ph": "s", "id": 10159970886766084423, "pid": 1, "tid": 1, "ts": 11, "cat": "ac2g", "name": "ac2g"})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 70, "dur": 5, "args": {"External id": 9223372036854775807}})",
  }));
  ASSERT_EQ(t.size(), 4u);
  const EventId comms = event_named(t, "record_param_comms");
  const EventId rt = event_named(t, "cudaLaunchKernel");
  const EventId k = event_named(t, "ncclKernel");
  EXPECT_EQ(t.external_id[comms], 0);  // unreadable ids read as "absent"
  EXPECT_EQ(t.correlation[rt], 0);
  EXPECT_EQ(t.correlation[k], 0);
  EXPECT_EQ(t.external_id[k], 0);
  EXPECT_EQ(t.launch_link[k], kNoEvent);  // no link through a clipped id
  EXPECT_EQ(t.external_id[rt], 5);
  EXPECT_EQ(t.external_id[event_named(t, "aten::mul")], INT64_MAX);
  EXPECT_EQ(t.flows.starts, 1u);
}

TEST(Loader, NullValues) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "python_function", "name": "f.py(1): g", "pid": 1, "tid": 1, "ts": 1, "dur": 20, "args": {"Python parent id": null, "Python id": 3, "Ev Idx": 0}})",
      R"({"ph": "X", "cat": null, "name": "nocat", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": null})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"External id": null, "correlation": null, "Input Dims": null, "Input type": null}})",
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 7, "dur": 1, "args": {"grid": null, "block": [null, 2, 3], "registers per thread": null, "shared memory": 0}})",
      R"({"ph": "X", "cat": "cpu_op", "name": null, "pid": null, "tid": 1, "ts": 9, "dur": 1})",
  }));
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t.kind[event_named(t, "f.py(1): g")], EventKind::PythonFunction);
  const EventId nocat = event_named(t, "nocat");
  EXPECT_EQ(t.category[nocat], kNoName);
  EXPECT_EQ(t.kind[nocat], EventKind::Other);
  const EventId mm = event_named(t, "aten::mm");
  EXPECT_EQ(t.external_id[mm], 0);
  EXPECT_EQ(t.correlation[mm], 0);
  const GpuDetail& d = t.gpu_detail[t.detail[event_named(t, "k")]];
  EXPECT_EQ(d.grid[0], -1);
  EXPECT_EQ(d.block[1], 2);
  EXPECT_EQ(d.block[2], 3);
  EXPECT_EQ(d.registers, -1);
  EXPECT_EQ(d.shared_memory, 0);
  const EventId unnamed = event_named(t, "");
  ASSERT_NE(unnamed, kNoEvent);
  EXPECT_EQ(t.tracks[t.track[unnamed]].pid, "");
}

// Checks each track's order and that every parent link is a real, same-track nesting.
void expect_well_formed(const Trace& t) {
  ASSERT_EQ(t.parent.size(), t.size());
  std::vector<int> seen(t.size(), 0);
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    const auto& ev = t.tracks[tr].events;
    for (size_t i = 0; i < ev.size(); ++i) {
      ++seen[ev[i]];
      EXPECT_EQ(t.track[ev[i]], tr);
      if (i > 0) {
        const EventId a = ev[i - 1], b = ev[i];
        EXPECT_TRUE(t.start_ns[a] < t.start_ns[b] ||
                    (t.start_ns[a] == t.start_ns[b] && t.dur_ns[a] >= t.dur_ns[b]))
            << "track " << tr << " position " << i;
      }
    }
  }
  for (EventId e = 0; e < t.size(); ++e) {
    EXPECT_EQ(seen[e], 1) << "event " << e << " is on " << seen[e] << " tracks";
    const EventId p = t.parent[e];
    if (p == kNoEvent) continue;
    EXPECT_EQ(t.track[p], t.track[e]);
    EXPECT_LE(t.start_ns[p], t.start_ns[e]);
    EXPECT_GE(t.end_ns(p), t.end_ns(e));
    EXPECT_NE(p, e);
  }
}

TEST(Loader, UnsortedEventsAreSortedPerTrackAndNest) {
  TempDir dir;
  auto x = [](const char* name, int tid, const char* ts, const char* dur) {
    return std::string(R"({"ph": "X", "cat": "cpu_op", "name": ")") + name +
           R"(", "pid": 1, "tid": )" + std::to_string(tid) + R"(, "ts": )" + ts +
           R"(, "dur": )" + dur + "}";
  };
  // Track 1: A ⊃ B ⊃ C; D overlaps A's end (partial: no parent) and holds E; H ⊃ I, K.
  const Trace t = load_text(dir, trace_json({
      x("E", 1, "1070.000", "10.000"),
      x("K", 1, "1250.000", "50.000"),
      x("C", 1, "1020.000", "10.000"),
      x("Q", 2, "1010.000", "10.000"),
      x("J", 1, "1300.000", "0.000"),
      x("A", 1, "1000.000", "100.000"),
      x("F", 1, "1130.000", "10.000"),
      x("I", 1, "1200.000", "50.000"),
      x("D", 1, "1060.000", "60.000"),
      x("P", 2, "1000.000", "500.000"),
      x("H", 1, "1200.000", "100.000"),
      x("B", 1, "1010.000", "40.000"),
      R"({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "G", "pid": 1, "tid": 1, "ts": 1025.000})",
      R"({"ph": "X", "cat": "kernel", "name": "kern", "pid": 0, "tid": 7, "ts": 1015.000, "dur": 5.000})",
  }));
  ASSERT_EQ(t.size(), 14u);
  auto id = [&](const char* n) { return event_named(t, n); };
  const Track& t1 = t.tracks[t.track[id("A")]];
  std::vector<std::string> order;
  for (EventId e : t1.events) order.emplace_back(t.name_of(e));
  EXPECT_EQ(order, (std::vector<std::string>{"A", "B", "C", "G", "D", "E", "F", "H", "I", "K", "J"}));

  EXPECT_EQ(t.parent[id("A")], kNoEvent);
  EXPECT_EQ(t.parent[id("B")], id("A"));
  EXPECT_EQ(t.parent[id("C")], id("B"));
  EXPECT_EQ(t.parent[id("G")], kNoEvent);  // instants get no parent
  EXPECT_EQ(t.parent[id("D")], kNoEvent);  // starts inside A, ends after it
  EXPECT_EQ(t.parent[id("E")], id("D"));
  EXPECT_EQ(t.parent[id("F")], kNoEvent);
  EXPECT_EQ(t.parent[id("H")], kNoEvent);
  EXPECT_EQ(t.parent[id("I")], id("H"));   // same start, shorter
  EXPECT_EQ(t.parent[id("K")], id("H"));   // same end
  EXPECT_EQ(t.parent[id("J")], kNoEvent);  // zero length at H's end
  EXPECT_EQ(t.parent[id("P")], kNoEvent);
  EXPECT_EQ(t.parent[id("Q")], id("P"));   // not A: another track
  EXPECT_EQ(t.parent[id("kern")], kNoEvent);
  expect_well_formed(t);
}

TEST(Loader, RawControlCharactersInStrings) {
  TempDir dir;
  const std::string text = trace_json(
      {"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\tb\", \"pid\": 1, \"tid\": 1, \"ts\": 1, "
       "\"dur\": 1, \"args\": {\"Input Dims\": \"x\ny\x01\"}}",
       R"({"ph": "X", "cat": "cpu_op", "name": "clean\tescaped", "pid": 1, "tid": 1, "ts": 3, "dur": 1})"},
      "\"traceName\": \"raw\nnewline in a top-level string\", ");
  const Trace t = load_text(dir, text);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.replaced_control_chars, 4u);  // 3 in the events, 1 in traceName
  const EventId e = event_named(t, "a b");
  ASSERT_NE(e, kNoEvent);
  ASSERT_NE(t.detail[e], UINT32_MAX);
  EXPECT_EQ(t.names.view(t.op_shapes[t.detail[e]].input_dims), "x y ");
  EXPECT_NE(event_named(t, "clean\tescaped"), kNoEvent);  // the JSON escape \t decodes to a tab
}

TEST(Loader, ControlCharactersOnlyInLaterBatchesStillLoad) {
  // Many clean events, then one with a raw tab: the retry must only touch that batch.
  TempDir dir;
  std::vector<std::string> events;
  for (int i = 0; i < 20000; ++i)
    events.push_back(R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": )" +
                     std::to_string(i * 10) + R"(, "dur": 1})");
  events.push_back("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"tab\there\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}");
  const Trace t = load_text(dir, trace_json(events));
  EXPECT_EQ(t.size(), 20001u);
  EXPECT_EQ(t.replaced_control_chars, 1u);
  EXPECT_NE(event_named(t, "tab here"), kNoEvent);
}

std::string small_trace() {
  return trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1712195495519689.047, "dur": 10.001})",
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495519699.500, "dur": 2.5})",
      R"({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1712195495519690})",
  });
}

void expect_small_trace(const Trace& t) {
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.start_ns[event_named(t, "aten::mm")], 1712195495519689047);
  EXPECT_EQ(t.dur_ns[event_named(t, "aten::mm")], 10001);
  EXPECT_EQ(t.start_ns[event_named(t, "k")], 1712195495519699500);
  EXPECT_EQ(t.dur_ns[event_named(t, "k")], 2500);
  EXPECT_EQ(t.start_ns[event_named(t, "[memory]")], 1712195495519690000);
}

TEST(Loader, GzipInput) {
  TempDir dir;
  const std::string text = small_trace();
  const Trace t = load_trace(dir.write_gz("t.json.gz", text));
  expect_small_trace(t);
  EXPECT_EQ(t.input_bytes, text.size());  // uncompressed bytes
  // Detected by the magic bytes, not by the name.
  expect_small_trace(load_trace(dir.write_gz("gz_without_suffix.json", text)));
  expect_small_trace(load_trace(dir.write("plain_with_suffix.json.gz", text)));
  // Several gzip members back to back (what `cat a.gz b.gz` gives) are one stream.
  expect_small_trace(load_trace(dir.write_gz("members.json.gz", text, 3)));
  // From a pipe, which cannot seek back over the bytes that told gzip from plain JSON
  // (`whyslow explain <(cat t.json.gz)`): both kinds.
  const auto load = [](const std::string& p) { return load_trace(p); };
  expect_small_trace(load_through_pipe(dir, dir.path("t.json.gz"), load));
  expect_small_trace(load_through_pipe(dir, dir.path("plain_with_suffix.json.gz"), load));
}

TEST(Loader, BareTopLevelArray) {
  TempDir dir;
  const Trace t = load_text(dir, R"([
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 5, "dur": 2},
    {"ph": "i", "s": "t", "name": "b", "pid": 1, "tid": 1, "ts": 6}
  ])");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.start_ns[event_named(t, "a")], 5000);
  EXPECT_EQ(load_text(dir, "  [ ]  ", "empty.json").size(), 0u);
}

TEST(Loader, TopLevelKeysInAnyOrder) {
  TempDir dir;
  const std::string events =
      R"([{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 5.001, "dur": 2},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 6, "dur": 1}])";
  const std::string devices =
      R"([{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "warpSize": 32, "numSms": 132}])";
  const std::string first = "{\"traceEvents\": " + events + ", \"deviceProperties\": " + devices +
                            ", \"baseTimeNanoseconds\": 1790857026000000000, \"schemaVersion\": 1, "
                            "\"traceName\": \"/tmp/x.json\"}";
  // "metadata" first (TraceLens), holding a nested "traceEvents" that is not the events array.
  const std::string last =
      R"({"metadata": {"traceEvents": "not this one", "list": [{"traceEvents": []}]}, "traceName": "x", "deviceProperties": )" +
      devices + R"(, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8}, "baseTimeNanoseconds": 1790857026000000000, "schemaVersion": 1, "traceEvents": )" +
      events + "}";
  for (const std::string& text : {first, last}) {
    const Trace t = load_text(dir, text);
    ASSERT_EQ(t.size(), 2u) << text;
    EXPECT_EQ(t.start_ns[event_named(t, "a")], 5001);
    EXPECT_EQ(t.base_time_ns, 1790857026000000000);
    EXPECT_EQ(t.schema_version, 1);
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_EQ(t.devices[0].name, "NVIDIA H200");
    EXPECT_EQ(t.devices[0].num_sms, 132);
    EXPECT_EQ(t.devices[0].total_global_mem, 150109880320);
    EXPECT_EQ(t.devices[0].compute_major, 9);
    EXPECT_EQ(t.devices[0].compute_minor, 0);
  }
}

TEST(Loader, KernelCopyAndOpArgs) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm", "pid": 0, "tid": 7, "ts": 100, "dur": 12.5, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 99, "registers per thread": 168, "shared memory": 232448, "blocks per SM": 0.6, "warps per SM": 2.4, "grid": [80, 2, 3], "block": [384, 1, 1], "est. achieved occupancy %": 6}})",
      R"({"ph": "X", "cat": "kernel", "name": "bare_kernel", "pid": 0, "tid": 7, "ts": 120, "dur": 1})",
      R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 130, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 100, "bytes": 1048576, "memory bandwidth (GB/s)": 349.5}})j",
      R"j({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 140, "dur": 1, "args": {"bytes": 512}})j",
      R"({"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 150, "dur": 4, "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": 7}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 90, "dur": 30, "args": {"External id": 3, "Input Dims": [[64], [64, 64], [64, 64], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"], "Input Strides": [[1], [64, 1], [64, 1], [], []]}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 91, "dur": 1, "args": {"External id": 4}})",
  }));
  ASSERT_EQ(t.size(), 7u);
  const EventId k = event_named(t, "sm90_xmma_gemm");
  ASSERT_NE(t.detail[k], UINT32_MAX);
  const GpuDetail& d = t.gpu_detail[t.detail[k]];
  EXPECT_EQ(d.grid[0], 80);
  EXPECT_EQ(d.grid[1], 2);
  EXPECT_EQ(d.grid[2], 3);
  EXPECT_EQ(d.block[0], 384);
  EXPECT_EQ(d.block[1], 1);
  EXPECT_EQ(d.block[2], 1);
  EXPECT_EQ(d.registers, 168);
  EXPECT_EQ(d.shared_memory, 232448);
  EXPECT_EQ(t.correlation[k], 99);
  EXPECT_EQ(t.dur_ns[k], 12500);

  const GpuDetail& bare = t.gpu_detail[t.detail[event_named(t, "bare_kernel")]];
  EXPECT_EQ(bare.grid[0], -1);
  EXPECT_EQ(bare.block[0], -1);
  EXPECT_EQ(bare.registers, -1);
  EXPECT_EQ(bare.shared_memory, -1);

  EXPECT_EQ(t.gpu_detail[t.detail[event_named(t, "Memcpy DtoD (Device -> Device)")]].bytes, 1048576);
  EXPECT_EQ(t.gpu_detail[t.detail[event_named(t, "Memset (Device)")]].bytes, 512);

  const EventId sync = event_named(t, "Event Sync");
  EXPECT_EQ(t.kind[sync], EventKind::Sync);
  ASSERT_LT(t.detail[sync], t.sync_kind.size());
  EXPECT_EQ(t.names.view(t.sync_kind[t.detail[sync]]), "Event Sync");

  const EventId op = event_named(t, "aten::addmm");
  ASSERT_NE(t.detail[op], UINT32_MAX);
  EXPECT_EQ(t.names.view(t.op_shapes[t.detail[op]].input_dims), "[[64], [64, 64], [64, 64], [], []]");
  EXPECT_EQ(t.names.view(t.op_shapes[t.detail[op]].input_type),
            R"(["float", "float", "float", "Scalar", "Scalar"])");
  EXPECT_EQ(t.detail[event_named(t, "aten::empty")], UINT32_MAX);  // no shapes recorded
}

TEST(Loader, CorrelationAndExternalIdLinks) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "user_annotation", "name": "matmul", "pid": 1, "tid": 1, "ts": 90, "dur": 200, "args": {"External id": 2}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 3}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 11, "External id": 3, "cbid": 211}})",
      R"({"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 200, "dur": 10, "args": {"correlation": 11, "External id": 3}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 120, "dur": 5, "args": {"correlation": 12, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "g2", "pid": 0, "tid": 7, "ts": 260, "dur": 10, "args": {"correlation": 12, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "g1", "pid": 0, "tid": 7, "ts": 250, "dur": 5, "args": {"correlation": 12, "External id": 3}})",
      R"({"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 160, "dur": 5, "args": {"correlation": 14, "External id": 2}})",
      R"({"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 280, "dur": 3, "args": {"correlation": 14, "External id": 2}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 170, "dur": 5, "args": {"correlation": 15, "External id": 2}})",
      R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 290, "dur": 2, "args": {"correlation": 15, "External id": 2, "bytes": 4}})j",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 180, "dur": 100, "args": {"correlation": 16}})",
      R"({"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": 7, "ts": 275, "dur": 4, "args": {"correlation": 16, "cuda_sync_kind": "Context Sync"}})",
      R"({"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": 300, "dur": 1, "args": {"correlation": 13, "External id": 77}})",
      // The GPU mirror of an annotation carries an External id but is not an op to link to.
      R"({"ph": "X", "cat": "gpu_user_annotation", "name": "gpu_matmul", "pid": 0, "tid": 7, "ts": 199, "dur": 102, "args": {"External id": 5}})",
      R"({"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 7, "ts": 305, "dur": 1, "args": {"correlation": 17, "External id": 5}})",
  }));
  ASSERT_EQ(t.size(), 16u);
  auto id = [&](const char* n) { return event_named(t, n); };
  // correlation: GPU activity → launch, launch → first GPU activity.
  EXPECT_EQ(t.launch_link[id("k1")], id("cudaLaunchKernel"));
  EXPECT_EQ(t.launch_link[id("cudaLaunchKernel")], id("k1"));
  EXPECT_EQ(t.launch_link[id("g1")], id("cudaGraphLaunch"));
  EXPECT_EQ(t.launch_link[id("g2")], id("cudaGraphLaunch"));
  EXPECT_EQ(t.launch_link[id("cudaGraphLaunch")], id("g1"));  // the earliest, not the first in the file
  EXPECT_EQ(t.launch_link[id("triton_poi_fused_add_0")], id("cuLaunchKernel"));
  EXPECT_EQ(t.launch_link[id("cuLaunchKernel")], id("triton_poi_fused_add_0"));
  EXPECT_EQ(t.launch_link[id("Memcpy DtoH (Device -> Pinned)")], id("cudaMemcpyAsync"));
  EXPECT_EQ(t.launch_link[id("cudaMemcpyAsync")], id("Memcpy DtoH (Device -> Pinned)"));
  EXPECT_EQ(t.launch_link[id("Context Sync")], id("cudaDeviceSynchronize"));
  EXPECT_EQ(t.launch_link[id("cudaDeviceSynchronize")], id("Context Sync"));
  EXPECT_EQ(t.launch_link[id("orphan")], kNoEvent);
  EXPECT_EQ(t.launch_link[id("aten::mm")], kNoEvent);
  // External id: GPU activity and host calls → the op.
  EXPECT_EQ(t.op_link[id("k1")], id("aten::mm"));
  EXPECT_EQ(t.op_link[id("g1")], id("aten::mm"));
  EXPECT_EQ(t.op_link[id("cudaLaunchKernel")], id("aten::mm"));
  EXPECT_EQ(t.op_link[id("cudaGraphLaunch")], id("aten::mm"));
  EXPECT_EQ(t.op_link[id("triton_poi_fused_add_0")], id("matmul"));
  EXPECT_EQ(t.op_link[id("cuLaunchKernel")], id("matmul"));
  EXPECT_EQ(t.op_link[id("Memcpy DtoH (Device -> Pinned)")], id("matmul"));
  EXPECT_EQ(t.op_link[id("orphan")], kNoEvent);
  EXPECT_EQ(t.op_link[id("k5")], kNoEvent);
  EXPECT_EQ(t.op_link[id("aten::mm")], kNoEvent);
  expect_well_formed(t);
}

// A link whose External id names an op that does not enclose the launch call (writers that copy
// the correlation id into External id: PARAM 2023, HTA critical_path) is repaired with the
// innermost op or annotation around the launch on its thread, and counted.
TEST(Loader, ExternalIdNamingAnOpAwayFromTheLaunchIsRepaired) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      // Thread 1: the launch is inside aten::cudnn_convolution, after an aten::empty.
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::cudnn_convolution", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 1}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 101, "dur": 2, "args": {"External id": 2}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 3, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "conv_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 10, "args": {"correlation": 3, "External id": 3}})",
      // …and its External id (= the correlation) names an unrelated op later on.
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::result_type", "pid": 1, "tid": 1, "ts": 900, "dur": 1, "args": {"External id": 3}})",
      // A copy launched outside any op, naming aten::empty: no op to credit.
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 500, "dur": 5, "args": {"correlation": 2, "External id": 2}})",
      R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 505, "dur": 5, "args": {"correlation": 2, "External id": 2}})j",
      // Thread 2: inside the convolution's time but on another thread, under a python frame in an
      // annotation: the annotation is the op that encloses it.
      R"({"ph": "X", "cat": "user_annotation", "name": "backward_block", "pid": 1, "tid": 2, "ts": 100, "dur": 100, "args": {"External id": 8}})",
      R"({"ph": "X", "cat": "python_function", "name": "model.py(7): f", "pid": 1, "tid": 2, "ts": 115, "dur": 20})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cuLaunchKernel", "pid": 1, "tid": 2, "ts": 120, "dur": 5, "args": {"correlation": 5, "External id": 1}})",
      R"({"ph": "X", "cat": "kernel", "name": "thread2_kernel", "pid": 0, "tid": 7, "ts": 220, "dur": 10, "args": {"correlation": 5, "External id": 1}})",
      // Sane: the named op encloses the launch.
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 600, "dur": 50, "args": {"External id": 10}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 610, "dur": 5, "args": {"correlation": 11, "External id": 10}})",
      R"({"ph": "X", "cat": "kernel", "name": "mm_kernel", "pid": 0, "tid": 7, "ts": 620, "dur": 10, "args": {"correlation": 11, "External id": 10}})",
      // No launch call to check against (correlation 99 is not in the trace): kept as written.
      R"({"ph": "X", "cat": "kernel", "name": "unchecked_kernel", "pid": 0, "tid": 7, "ts": 700, "dur": 1, "args": {"correlation": 99, "External id": 3}})",
  }));
  auto id = [&](const char* n) { return event_named(t, n); };
  EXPECT_EQ(t.op_link[id("conv_kernel")], id("aten::cudnn_convolution"));
  EXPECT_EQ(t.op_link[id("Memcpy HtoD (Pageable -> Device)")], kNoEvent);
  EXPECT_EQ(t.op_link[id("thread2_kernel")], id("backward_block"));
  EXPECT_EQ(t.op_link[id("mm_kernel")], id("aten::mm"));
  EXPECT_EQ(t.op_link[id("unchecked_kernel")], id("aten::result_type"));
  // The launch calls' own links are repaired the same way, but only GPU work is counted.
  EXPECT_EQ(t.op_link[t.launch_link[id("conv_kernel")]], id("aten::cudnn_convolution"));
  EXPECT_EQ(t.op_link[id("cudaMemcpyAsync")], kNoEvent);
  EXPECT_EQ(t.op_link[id("cuLaunchKernel")], id("backward_block"));
  EXPECT_EQ(t.repaired_op_links, 3u);
  expect_well_formed(t);
}

// A sane trace repairs nothing.
TEST(Loader, SaneExternalIdLinksAreNotRepaired) {
  TempDir dir;
  const Trace t = load_text(dir, trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 600, "dur": 50, "args": {"External id": 10}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 600, "dur": 50, "args": {"correlation": 11, "External id": 10}})",
      R"({"ph": "X", "cat": "kernel", "name": "mm_kernel", "pid": 0, "tid": 7, "ts": 620, "dur": 10, "args": {"correlation": 11, "External id": 10}})",
  }));
  EXPECT_EQ(t.op_link[event_named(t, "mm_kernel")], event_named(t, "aten::mm"));
  EXPECT_EQ(t.repaired_op_links, 0u);
}

// ---- large inputs: the loader reads through a 16 MiB buffer and parses 1 MiB batches ----

constexpr size_t kReadBuffer = 16u << 20;

struct Synthetic {
  std::string body;  // the events, comma-separated
  std::vector<size_t> event_end;  // offset in body one past each event
  std::vector<int64_t> start, dur;  // expected, for X and i events in file order
  std::vector<std::string> name;
  uint64_t flows = 0, metadata = 0;
};

// Events with strings full of escapes and brackets; 3-decimal, integer and float times.
Synthetic make_events(size_t min_bytes) {
  Synthetic s;
  char buf[512];
  for (uint64_t i = 0; s.body.size() < min_bytes; ++i) {
    if (!s.body.empty()) s.body += ",\n";
    const int64_t ts_ns = 1000000000 + static_cast<int64_t>(i) * 10007;
    const int64_t dur_ns = static_cast<int64_t>((i * 7919) % 100000);
    if (i % 997 == 5) {
      std::snprintf(buf, sizeof buf,
                    R"({"ph": "f", "id": %llu, "pid": 0, "tid": 7, "ts": %lld.%03lld, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
                    static_cast<unsigned long long>(i), static_cast<long long>(ts_ns / 1000),
                    static_cast<long long>(ts_ns % 1000));
      ++s.flows;
    } else if (i % 1009 == 7) {
      std::snprintf(buf, sizeof buf,
                    R"({"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": %llu, "args": {"name": "thread \"%llu\" {"}})",
                    static_cast<unsigned long long>(i % 3), static_cast<unsigned long long>(i));
      ++s.metadata;
    } else if (i % 101 == 3) {
      std::snprintf(buf, sizeof buf,
                    R"({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": %llu, "ts": %lld.%03lld, "args": {"Bytes": -%llu}})",
                    static_cast<unsigned long long>(i % 3), static_cast<long long>(ts_ns / 1000),
                    static_cast<long long>(ts_ns % 1000), static_cast<unsigned long long>(i));
      s.start.push_back(ts_ns);
      s.dur.push_back(0);
      s.name.push_back("[memory]");
    } else {
      const unsigned long long n = i % 97;
      // Alternate the number formats: "<µs>.<3 digits>", integers, and short floats.
      const int64_t ts = i % 3 == 2 ? ts_ns / 1000 * 1000 : ts_ns;
      const int64_t dur = i % 3 == 2 ? dur_ns / 1000 * 1000 : i % 3 == 1 ? dur_ns / 100 * 100 : dur_ns;
      char ts_text[64], dur_text[64];
      if (i % 3 == 2) {
        std::snprintf(ts_text, sizeof ts_text, "%lld", static_cast<long long>(ts / 1000));
        std::snprintf(dur_text, sizeof dur_text, "%lld", static_cast<long long>(dur / 1000));
      } else {
        std::snprintf(ts_text, sizeof ts_text, "%lld.%03lld", static_cast<long long>(ts / 1000),
                      static_cast<long long>(ts % 1000));
        if (i % 3 == 1)
          std::snprintf(dur_text, sizeof dur_text, "%lld.%lld", static_cast<long long>(dur / 1000),
                        static_cast<long long>(dur % 1000 / 100));
        else
          std::snprintf(dur_text, sizeof dur_text, "%lld.%03lld", static_cast<long long>(dur / 1000),
                        static_cast<long long>(dur % 1000));
      }
      std::snprintf(buf, sizeof buf,
                    R"({"ph": "X", "cat": "cpu_op", "name": "op_%llu \"q\" {[\\", "pid": 1, "tid": %llu, "ts": %s, "dur": %s, "args": {"External id": %llu, "s": "\\\"}]\\\\", "Input Dims": [[%llu, 64], []]}})",
                    n, static_cast<unsigned long long>(i % 3), ts_text, dur_text,
                    static_cast<unsigned long long>(i), n);
      s.start.push_back(ts);
      s.dur.push_back(dur);
      s.name.push_back("op_" + std::to_string(n) + " \"q\" {[\\");
    }
    s.body += buf;
    s.event_end.push_back(s.body.size());
  }
  return s;
}

void expect_synthetic(const Trace& t, const Synthetic& s) {
  ASSERT_EQ(t.size(), s.start.size());
  int64_t sum_dur = 0, expected_sum = 0;
  size_t wrong = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    sum_dur += t.dur_ns[e];
    expected_sum += s.dur[e];
    if (t.start_ns[e] != s.start[e] || t.dur_ns[e] != s.dur[e] || t.name_of(e) != s.name[e]) {
      if (wrong++ < 5)
        ADD_FAILURE() << "event " << e << ": " << t.name_of(e) << " " << t.start_ns[e] << " "
                      << t.dur_ns[e] << " expected " << s.name[e] << " " << s.start[e] << " "
                      << s.dur[e];
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(sum_dur, expected_sum);
  EXPECT_EQ(t.flows.finishes, s.flows);
  EXPECT_EQ(t.tracks.size(), 3u);
  EXPECT_FALSE(t.truncated);
}

TEST(LoaderLarge, FortyMegabytesAcrossBufferAndBatchBoundaries) {
  const Synthetic s = make_events(42u << 20);
  // Pad the header so that one event's closing '}' is the last byte of the first 16 MiB read:
  // the batch then ends exactly at the end of the read buffer.
  const std::string head = "{\"schemaVersion\": 1, \"traceEvents\": [";
  size_t k = 0;
  while (k + 1 < s.event_end.size() && head.size() + s.event_end[k + 1] <= kReadBuffer) ++k;
  const std::string text =
      head + std::string(kReadBuffer - head.size() - s.event_end[k], ' ') + s.body + "]}";
  ASSERT_EQ(text[kReadBuffer - 1], '}');
  ASSERT_GT(text.size(), 40u << 20);

  TempDir dir;
  const std::string path = dir.write("large.json", text);
  const Trace t = load_trace(path);
  expect_synthetic(t, s);
  EXPECT_EQ(t.input_bytes, text.size());
  // Through the reader thread instead (a pipe): the same trace.
  const Trace streamed = load_through_pipe(dir, path, [](const std::string& p) { return load_trace(p); });
  expect_synthetic(streamed, s);
  EXPECT_EQ(streamed.input_bytes, text.size());
  EXPECT_EQ(streamed.start_ns, t.start_ns);
  EXPECT_EQ(streamed.name, t.name);
  // The event count once more, counted in the file text rather than by the generator.
  size_t x_and_i = 0;
  for (const char* ph : {"\"ph\": \"X\"", "\"ph\": \"i\""})
    for (size_t at = text.find(ph); at != std::string::npos; at = text.find(ph, at + 1)) ++x_and_i;
  EXPECT_EQ(t.size(), x_and_i);
}

// The first 16 MiB boundary at every byte of one event: inside escapes, on quotes and
// brackets, on its closing brace, on the comma after it. Through a pipe, so the bytes come from
// the reader thread's chunks (a regular file is read on the loading thread: the same boundaries).
TEST(LoaderLarge, ReadBufferBoundaryAtEveryByteOfAnEvent) {
  const std::string tricky =
      R"({"ph": "X", "cat": "cpu_op", "name": "q\"}\\{", "pid": 1, "tid": 2, "ts": 12.345, "dur": 6.789, "args": {"s": "\\\"]", "t": [{"u": "\\"}]}})";
  const std::string before =
      R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}, )"
      R"({"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1}, )";
  const std::string after =
      R"(, {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 1, "ts": 3.5, "dur": 1}]})";
  // A long top-level string puts the events near the boundary cheaply (the loader skips it
  // without parsing it). Every variant shares the first `common` bytes, so the file is written
  // once and only its tail is rewritten.
  const std::string head = "{\"traceName\": \"";
  const std::string mid = "\", \"traceEvents\": [";
  const size_t common = kReadBuffer - 4096;
  TempDir dir;
  const std::string path = dir.write("boundary.json", head + std::string(common - head.size(), 'x'));
  for (size_t at = 0; at <= tricky.size() + 2; ++at) {
    // The boundary falls before byte `at` of `tricky` (at == size: right after its '}').
    const size_t tricky_begin = kReadBuffer - at;
    const size_t filler_end = tricky_begin - before.size() - mid.size();
    const std::string tail = std::string(filler_end - common, 'x') + mid + before + tricky + after;
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(common));
      f.write(tail.data(), static_cast<std::streamsize>(tail.size()));
      ASSERT_TRUE(f.good());
    }
    std::filesystem::resize_file(path, common + tail.size());
    ASSERT_EQ(tail.compare(tricky_begin - common, tricky.size(), tricky), 0);
    Trace t;
    ASSERT_NO_THROW(t = load_through_pipe(dir, path, [](const std::string& p) { return load_trace(p); }))
        << "boundary at byte " << at << " of the event";
    ASSERT_EQ(t.size(), 4u) << "boundary at byte " << at;
    const EventId e = event_named(t, "q\"}\\{");
    ASSERT_NE(e, kNoEvent) << "boundary at byte " << at;
    EXPECT_EQ(t.start_ns[e], 12345);
    EXPECT_EQ(t.dur_ns[e], 6789);
    EXPECT_EQ(t.start_ns[event_named(t, "c")], 3500);
  }
}

TEST(LoaderLarge, GzipAcrossBufferBoundary) {
  const Synthetic s = make_events(18u << 20);
  const std::string head = "{\"traceEvents\": [";
  size_t k = 0;
  while (k + 1 < s.event_end.size() && head.size() + s.event_end[k + 1] <= kReadBuffer) ++k;
  const std::string text =
      head + std::string(kReadBuffer - head.size() - s.event_end[k], '\n') + s.body + "]}";
  ASSERT_EQ(text[kReadBuffer - 1], '}');
  TempDir dir;
  const Trace t = load_trace(dir.write_gz("large.json.gz", text));
  expect_synthetic(t, s);
  EXPECT_EQ(t.input_bytes, text.size());
}

TEST(LoaderLarge, EventLargerThanTheReadBuffer) {
  const std::string big(kReadBuffer + (1u << 20), 'z');
  const std::string text = trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "small", "pid": 1, "tid": 1, "ts": 1, "dur": 1})",
      R"({"ph": "X", "cat": "cpu_op", "name": "huge", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"Input Dims": ")" + big + R"("}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "after", "pid": 1, "tid": 1, "ts": 3, "dur": 1})",
  });
  TempDir dir;
  const std::string path = dir.write("huge.json", text);
  for (const bool streamed : {false, true}) {
    const Trace t = streamed ? load_through_pipe(dir, path, [](const std::string& p) { return load_trace(p); })
                             : load_trace(path);
    ASSERT_EQ(t.size(), 3u) << streamed;
    const EventId e = event_named(t, "huge");
    ASSERT_NE(e, kNoEvent);
    ASSERT_NE(t.detail[e], UINT32_MAX);
    EXPECT_EQ(t.names.view(t.op_shapes[t.detail[e]].input_dims).size(), big.size());
    EXPECT_EQ(t.start_ns[event_named(t, "after")], 3000);
  }
}

// What the loader blanks stays out of the file, and a top-level value ending at the file's last
// byte is parsed with the padding simdjson needs after it.
TEST(LoaderLarge, TheFileIsNeverWrittenAndItsLastValueEndsTheFile) {
  TempDir dir;
  const std::string events = trace_json(
      {"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\tb\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}"},
      "\"traceName\": \"raw\nnewline\", ");
  // The events, then a top-level key whose value is padded so the file ends at 8 KiB exactly.
  std::string text = events.substr(0, events.rfind('}'));
  const std::string key = ", \"distributedInfo\": {\"rank\": 3, \"pad\": \"";
  const std::string close = "\"}}";
  text += key + std::string(8192 - text.size() - key.size() - close.size(), 'p') + close;
  ASSERT_EQ(text.size(), 8192u);
  const std::string path = dir.write("paged.json", text);
  const Trace t = load_trace(path);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.replaced_control_chars, 2u);
  EXPECT_NE(event_named(t, "a b"), kNoEvent);
  EXPECT_EQ(t.distributed.rank, 3);
  EXPECT_EQ(testing::read_file(path), text);  // the raw tab and newline are still in the file
}

// A value over --max-value-size is refused from a file and from a pipe, larger than the read
// buffer or not.
TEST(LoaderLarge, AnEventOverTheLimitIsRefusedWhereverItComesFrom) {
  TempDir dir;
  const std::string big(3u << 20, 'w');
  const std::string text = trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "small", "pid": 1, "tid": 1, "ts": 1, "dur": 1})",
      R"({"ph": "X", "cat": "cpu_op", "name": ")" + big + R"(", "pid": 1, "tid": 1, "ts": 2, "dur": 1})",
  });
  const std::string path = dir.write("limit.json", text);
  for (const bool streamed : {false, true}) {
    try {
      const LoadOptions two_mib{.max_value_bytes = size_t{2} << 20};
      if (streamed)
        load_through_pipe(dir, path, [&](const std::string& p) { return load_trace(p, two_mib); });
      else
        load_trace(path, two_mib);
      ADD_FAILURE() << "loaded, streamed " << streamed;
    } catch (const LoadError& e) {
      EXPECT_EQ(e.kind(), LoadError::Kind::TooLarge) << e.what();
      EXPECT_EQ(e.byte_offset(), text.find(R"({"ph": "X", "cat": "cpu_op", "name": "ww)")) << e.what();
      EXPECT_NE(std::string(e.what()).find("event #1"), std::string::npos) << e.what();
    }
  }
  // 300 KiB against a 256 KiB limit: it fits the read buffer, and is refused all the same.
  const std::string mid = trace_json({R"({"ph": "X", "name": ")" + std::string(300u << 10, 'm') + R"(", "ts": 2, "dur": 1})"});
  try {
    load_trace(dir.write("mid.json", mid), LoadOptions{.max_value_bytes = size_t{256} << 10});
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::TooLarge) << e.what();
  }
}

// A file cut short or rewritten while it loads (a profiler exporting to the same name again) is
// a load error naming the cut, never a crash: a memory-mapped read would die of SIGBUS there.
TEST(LoaderLarge, AFileTruncatedWhileItLoadsIsAnErrorNotACrash) {
  TempDir dir;
  std::string json = R"({"traceEvents": [)";
  const std::string event = R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 2},)";
  while (json.size() < (24u << 20)) json += event;
  json.back() = ']';
  json += "}";
  for (const unsigned cores : {1u, 8u}) {
    const std::string path = dir.write("shrinking.json", json);
    LoadOptions options;
    options.cores = cores;
    bool cut = false;
    options.progress = [&](const LoadProgress& p) {
      if (!cut && p.bytes > (4u << 20)) {
        cut = true;
        std::filesystem::resize_file(path, 1u << 20);
      }
    };
    try {
      load_trace(path, options);
      ADD_FAILURE() << "loaded a file cut to 1 MiB mid-load, " << cores << " cores";
    } catch (const LoadError& e) {
      EXPECT_TRUE(cut) << cores;
      EXPECT_EQ(e.kind(), LoadError::Kind::Truncated) << e.what();
    }
  }
}

// Side tables hold each distinct row once (trace/distinct_rows.hpp): op calls with the same shapes,
// and kernels with the same launch configuration, share their row.
TEST(Loader, EqualShapesAndKernelDetailsShareOneRow) {
  const auto op = [](int ts, const char* dims) {
    return std::string(R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )") +
           std::to_string(ts) + R"(, "dur": 1, "args": {"Input Dims": )" + dims + R"(, "Input type": ["float", "float"]}})";
  };
  const auto kernel = [](int ts, int grid) {
    return std::string(R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )") + std::to_string(ts) +
           R"(, "dur": 1, "args": {"device": 0, "stream": 7, "grid": [)" + std::to_string(grid) +
           R"(, 1, 1], "block": [128, 1, 1], "registers per thread": 32}})";
  };
  TempDir dir;
  const Trace t = load_text(dir, trace_json({op(10, "[[4, 8], [8, 2]]"), op(20, "[[4, 8], [8, 2]]"), op(30, "[[2, 8], [8, 2]]"),
                                          op(40, "[[4, 8], [8, 2]]"), kernel(11, 64), kernel(21, 64), kernel(31, 32)}));
  std::vector<EventId> ops, kernels;
  for (EventId e = 0; e < t.size(); ++e) (t.kind[e] == EventKind::CpuOp ? ops : kernels).push_back(e);
  ASSERT_EQ(ops.size(), 4u);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(t.op_shapes.size(), 2u);
  EXPECT_EQ(t.detail[ops[0]], t.detail[ops[1]]);
  EXPECT_EQ(t.detail[ops[0]], t.detail[ops[3]]);
  EXPECT_NE(t.detail[ops[0]], t.detail[ops[2]]);
  EXPECT_EQ(t.names.view(t.op_shapes[t.detail[ops[2]]].input_dims), "[[2, 8], [8, 2]]");
  EXPECT_EQ(t.gpu_detail.size(), 2u);
  EXPECT_EQ(t.detail[kernels[0]], t.detail[kernels[1]]);
  EXPECT_EQ(t.gpu_detail[t.detail[kernels[2]]].grid[0], 32);
  EXPECT_EQ(t.gpu_detail[t.detail[kernels[0]]].registers, 32);
}

// Many distinct rows: the table grows and every row keeps its own index, equal rows the first one's.
TEST(Loader, DistinctRowsKeepEveryRowThroughGrowth) {
  DistinctRows<OpShapes> index;
  std::vector<OpShapes> table;
  for (uint32_t round = 0; round < 2; ++round)
    for (uint32_t k = 0; k < 5000; ++k) {
      const OpShapes s{k, k % 7, kNoName, k / 3};
      EXPECT_EQ(index.intern(s, table), k);
    }
  EXPECT_EQ(table.size(), 5000u);
  EXPECT_EQ(table[4321].input_dims, 4321u);
}

}  // namespace
}  // namespace whyslow
