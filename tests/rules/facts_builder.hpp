// Hand-built inputs for the rule tests: a Trace assembled event by event (only the columns the
// rules read), Facts filled field by field, and one way to state and check what a rule should
// conclude. Each rule test is a table of cases at the edges of the rule's thresholds; the
// threshold values are the ones docs/JSON.md documents and the rule's constants hold.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "explain/rules.hpp"
#include "../test_support.hpp"  // evidence()

namespace whyslow::testing {

// ---- a trace, event by event ----

// Appends an event with every link unresolved; returns its id. GPU work goes on a GPU stream's
// track, everything else on one CPU thread's, as the loader would file them.
inline EventId add_event(Trace& t, EventKind kind, std::string_view name, int64_t start_ns, int64_t dur_ns,
                         EventId parent = kNoEvent) {
  if (t.tracks.empty()) {
    t.tracks.resize(2);
    t.tracks[0].kind = TrackKind::Cpu, t.tracks[0].name = "thread 1";
    t.tracks[1].kind = TrackKind::Gpu, t.tracks[1].name = "GPU 0 stream 7";
  }
  const EventId e = static_cast<EventId>(t.size());
  const TrackId track = is_gpu_activity(kind) ? 1 : 0;
  t.tracks[track].events.push_back(e);
  t.start_ns.push_back(start_ns);
  t.dur_ns.push_back(dur_ns);
  t.name.push_back(t.names.intern(name));
  t.kind.push_back(kind);
  t.category.push_back(kNoName);
  t.track.push_back(track);
  t.correlation.push_back(0);
  t.external_id.push_back(0);
  t.parent.push_back(parent);
  t.launch_link.push_back(kNoEvent);
  t.op_link.push_back(kNoEvent);
  t.detail.push_back(UINT32_MAX);
  return e;
}

// A kernel, memcpy or memset with its launch details (grid, block, bytes).
inline EventId add_gpu_event(Trace& t, EventKind kind, std::string_view name, int64_t start_ns, int64_t dur_ns,
                             const GpuDetail& detail = {}) {
  const EventId e = add_event(t, kind, name, start_ns, dur_ns);
  t.detail[e] = static_cast<uint32_t>(t.gpu_detail.size());
  t.gpu_detail.push_back(detail);
  return e;
}

inline GpuDetail launch_config(int32_t grid_x, int32_t block_x) {
  GpuDetail d;
  d.grid[0] = grid_x, d.grid[1] = 1, d.grid[2] = 1;
  d.block[0] = block_x, d.block[1] = 1, d.block[2] = 1;
  return d;
}

// The launch call ↔ the GPU work it started, both ways, as the loader links them.
inline void link_launch(Trace& t, EventId call, EventId gpu) {
  t.launch_link[call] = gpu;
  t.launch_link[gpu] = call;
}

// An op with recorded input shapes (record_shapes): the raw JSON text of its Input Dims.
inline void set_input_dims(Trace& t, EventId op, std::string_view dims) {
  t.detail[op] = static_cast<uint32_t>(t.op_shapes.size());
  OpShapes s;
  s.input_dims = t.names.intern(dims);
  t.op_shapes.push_back(s);
}

// ---- facts ----

// One steady step's numbers; the rest of StepFacts follows from them.
struct StepSpec {
  int64_t duration_ns = 0;
  int64_t gpu_busy_ns = 0;
  int64_t sync_wait_ns = 0;
};

// The GPU inside a window of `duration_ns` busy `gpu_busy_ns` from its start (clipped to it), and
// idle for the rest waiting for the CPU's next launch: what the bound rules read.
inline GpuIdle launch_bound_idle(int64_t duration_ns, int64_t gpu_busy_ns) {
  GpuIdle idle;
  idle.busy_ns = std::min(duration_ns, gpu_busy_ns);
  idle.ns[static_cast<size_t>(IdleCause::Launch)] = duration_ns - idle.busy_ns;
  idle.gaps = idle.busy_ns < duration_ns ? 1 : 0;
  return idle;
}

// Appends a step right after the last one, with its ProfilerStep#N annotation in `t`.
inline StepFacts& add_step(Trace& t, Facts& f, const StepSpec& spec) {
  StepFacts s;
  s.start_ns = f.steps.empty() ? 0 : f.steps.back().end_ns;
  s.duration_ns = spec.duration_ns;
  s.end_ns = s.start_ns + spec.duration_ns;
  s.gpu_busy_ns = spec.gpu_busy_ns;
  s.compute_ns = spec.gpu_busy_ns;  // no communication: all GPU work is compute
  s.gpu_end_ns = s.start_ns + spec.gpu_busy_ns;
  s.sync_wait_ns = spec.sync_wait_ns;
  s.cpu_ns = spec.duration_ns - spec.sync_wait_ns;
  s.idle = launch_bound_idle(spec.duration_ns, spec.gpu_busy_ns);
  s.name = "ProfilerStep#" + std::to_string(f.steps.size());
  s.event = add_event(t, EventKind::UserAnnotation, s.name, s.start_ns, s.duration_ns);
  f.steps.push_back(s);
  return f.steps.back();
}

// `n` identical steps back to back from time 0; the trace's GPU busy time is their sum.
inline void add_steps(Trace& t, Facts& f, int n, const StepSpec& spec) {
  for (int i = 0; i < n; ++i) {
    add_step(t, f, spec);
    f.gpu_busy_ns += spec.gpu_busy_ns;
  }
  f.window.start_ns = 0;
  f.window.end_ns = f.window.duration_ns = f.steps.back().end_ns;
  f.window.gpu_busy_ns = f.window.compute_ns = f.gpu_busy_ns;
  f.window.idle = launch_bound_idle(f.window.duration_ns, f.gpu_busy_ns);
}

// A trace without ProfilerStep annotations: the whole window stands in for a step.
inline void set_window(Facts& f, const StepSpec& spec) {
  f.window.start_ns = 0;
  f.window.end_ns = f.window.duration_ns = spec.duration_ns;
  f.window.gpu_busy_ns = f.window.compute_ns = spec.gpu_busy_ns;
  f.window.sync_wait_ns = spec.sync_wait_ns;
  f.window.cpu_ns = spec.duration_ns - spec.sync_wait_ns;
  f.window.idle = launch_bound_idle(spec.duration_ns, spec.gpu_busy_ns);
  f.gpu_busy_ns = spec.gpu_busy_ns;
}

// A host sync (cudaStreamSynchronize) at `start_ns` waiting `wait_ns`, in the trace and in the
// sync facts (whose totals it updates).
inline EventId add_sync(Trace& t, Facts& f, int64_t start_ns, int64_t wait_ns, int64_t gpu_busy_ns = 0,
                        EventId parent = kNoEvent) {
  const EventId e = add_event(t, EventKind::Runtime, "cudaStreamSynchronize", start_ns, wait_ns, parent);
  f.syncs.calls.push_back({e, wait_ns, gpu_busy_ns, false});
  f.syncs.total_wait_ns += wait_ns;
  f.syncs.total_gpu_busy_ns += gpu_busy_ns;
  return e;
}

// One kernel row with one roofline group: `calls` calls of `kernel`, each launched by an `op`
// call, with this verdict over them all; `unit` is what the op's arithmetic runs on. The kernel
// events are in the trace (the first is the group's example). Returns the group.
inline const RooflineGroup& add_kernel_group(Trace& t, Facts& f, std::string_view kernel, std::string_view op,
                                             uint64_t calls, const RooflineVerdict& verdict,
                                             MathUnit unit = MathUnit::Vector, int device = -1) {
  KernelRow& row = f.kernels.emplace_back();
  row.name = t.names.intern(kernel);
  RooflineGroup g;
  g.calls = calls;
  g.cost.unit = unit;
  g.verdict = verdict;
  for (uint64_t i = 0; i < calls; ++i) {
    const int64_t at = static_cast<int64_t>(t.size()) * 1'000'000;
    const int64_t dur = verdict.ns / static_cast<int64_t>(calls);
    const EventId o = add_event(t, EventKind::CpuOp, op, at, dur);
    const EventId k = add_gpu_event(t, EventKind::Kernel, kernel, at, dur);
    t.op_link[k] = o;
    row.events.push_back(k);
    if (i == 0) g.example = k, g.op = o;
  }
  row.calls = calls;
  row.total_ns = verdict.ns;
  KernelRoofline& r = f.roofline.kernels.emplace_back();
  r.device = device;
  r.modelled_calls = calls;
  r.total = verdict;
  r.groups.push_back(g);
  return r.groups.back();
}

// ---- what a rule concludes ----

using Rule = void (*)(const Trace&, const Facts&, std::vector<Finding>&);

inline std::vector<Finding> run_rule(Rule rule, const Trace& t, const Facts& f) {
  std::vector<Finding> out;
  rule(t, f, out);
  return out;
}

// Whether the catalog documents `key` for this id, directly or through "same as `other_id`".
inline bool documented_key(FindingId id, std::string_view key) {
  std::string quoted(1, '`');
  quoted.append(key).push_back('`');
  const std::string_view keys = info(id).evidence_keys;
  if (keys.find(quoted) != std::string_view::npos) return true;
  if (key == "recoverable_us" || key == "recoverable_pct") return true;  // explain() ends every finding with them
  for (const FindingInfo& other : finding_catalog())
    if (keys.find(std::string("same as `").append(other.name).append("`")) != std::string_view::npos &&
        other.evidence_keys.find(quoted) != std::string_view::npos)
      return true;
  return false;
}

// Silent, or one finding of this id at this severity.
struct Outcome {
  std::optional<FindingId> id;
  Severity severity = Severity::Info;
};
inline constexpr Outcome kSilent{};
constexpr Outcome fires(FindingId id, Severity severity) { return {id, severity}; }

// Checks the rule's output against `want`, and what every finding promises: words, evidence
// whose keys the catalog documents, and events that exist in the trace. Returns the finding, or
// nothing when silent (as wanted or not).
inline std::optional<Finding> expect_outcome(const std::vector<Finding>& out, const Outcome& want, const Trace& t) {
  if (!want.id) {
    EXPECT_TRUE(out.empty()) << "fired " << (out.empty() ? "" : to_string(out.front().id));
    return std::nullopt;
  }
  EXPECT_EQ(out.size(), 1u) << "expected " << to_string(*want.id);
  if (out.size() != 1) return std::nullopt;
  const Finding& x = out.front();
  EXPECT_EQ(to_string(x.id), to_string(*want.id));
  EXPECT_EQ(to_string(x.severity), to_string(want.severity));
  EXPECT_FALSE(x.title.empty());
  EXPECT_FALSE(x.detail.empty());
  EXPECT_FALSE(x.try_next.empty());
  EXPECT_FALSE(x.evidence.empty()) << "no finding without evidence";
  for (const Evidence& e : x.evidence)
    EXPECT_TRUE(documented_key(x.id, e.key)) << "evidence key " << e.key << " is not in the catalog";
  for (const EventRef& r : x.events) EXPECT_LT(r.event, t.size()) << "event of role " << r.role;
  return x;
}

inline bool has_evidence(const Finding& x, std::string_view key) {
  for (const Evidence& e : x.evidence)
    if (e.key == key) return true;
  return false;
}

// The events the finding points at, in order.
inline std::vector<EventId> event_ids(const Finding& x) {
  std::vector<EventId> out;
  for (const EventRef& r : x.events) out.push_back(r.event);
  return out;
}

// gtest names for a table's cases: the case's `name` field.
template <class Case>
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

}  // namespace whyslow::testing
