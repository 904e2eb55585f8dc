// Lazy submission: one rule, read by the idle split (idle_gaps.cpp rule 3: the gap's queued part
// is the CPU's) and by the dependency graph (build_graph.cpp: a `Submit` edge from the wait to the
// work, docs/GRAPH.md). In a trace with no evidence of a dependency (GpuIdle::dependency_evidence:
// no stream wait, event record, host function or GPU sync record), work that sat queued longer than
// kQueueLatencyNs and starts within kSubmittedByWaitNs after a host-blocking call (a sync, a blocking
// copy) on its launching thread began, reached the GPU only when the host waited: a driver that
// batches submissions sends them when the host waits (as under WDDM). Where a stream can wait on an
// event, a wait that ends as a host call begins may be that event's, so the rule stays out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/core/event_names.hpp"
#include "analysis/facts.hpp"
#include "trace/trace.hpp"

namespace whyslow {

// The GPU's queue latency (kQueueLatencyNs, facts.hpp) is also the window after a host wait
// begins: work that starts within it, after sitting queued longer than that, was sent by that wait.
// Held back by a real dependency (an event, another stream), it starts when that is met, which lands
// in the 50 µs after a host wait began only by chance, not gap after gap.
inline constexpr int64_t kSubmittedByWaitNs = kQueueLatencyNs;

// A host-to-device copy ("Memcpy HtoD (Pageable -> Device)", HIP's "…HostToDevice…"): a blocking
// upload stages the data through a bounce buffer on the CPU before its DMA can start.
inline bool is_upload(std::string_view n) {
  return n.find("HtoD") != std::string_view::npos || n.find("HostToDevice") != std::string_view::npos;
}

// When a launch call's work is in its stream's queue: at the call's start when it is a graph launch
// (its nodes start while the call runs) or blocks the host and is not an upload (a sync copy queues
// its copy, then waits for it), else at the call's end. `blocks`: the call is a host wait.
inline bool queues_at_start(const Trace& t, EventId launch, bool blocks) {
  return (blocks && !is_upload(t.name_of(t.launch_link[launch]))) || is_graph_launch(t.name_of(launch));
}
inline int64_t queued_at(const Trace& t, EventId launch, bool blocks) {
  return queues_at_start(t, launch, blocks) ? t.start_ns[launch] : t.end_ns(launch);
}

// Of the host waits on the launching thread (their starts, ascending), the one that sent work queued
// at `queued` and started at `start` on a GPU (idle_gaps: every stream; the graph: its stream) idle
// since `idle_since`: the last to begin at or before `start`, when it began after `queued`, after the
// GPU went idle, and within kSubmittedByWaitNs before `start`, and the work sat queued and the GPU
// idle longer than kQueueLatencyNs (work that starts within the GPU's own latency of the work before
// it ran in its stream's order, whatever the host did then). Its index, or -1. The caller checks
// the trace's dependency evidence.
inline std::ptrdiff_t submitting_wait(const std::vector<int64_t>& wait_starts, int64_t queued, int64_t idle_since,
                                      int64_t start) {
  if (start - queued <= kQueueLatencyNs || (idle_since != INT64_MIN && start - idle_since <= kQueueLatencyNs)) return -1;
  const auto it = std::upper_bound(wait_starts.begin(), wait_starts.end(), start);
  if (it == wait_starts.begin()) return -1;
  const int64_t wait = *(it - 1);
  if (wait <= queued || wait <= idle_since || start - wait > kSubmittedByWaitNs) return -1;
  return (it - 1) - wait_starts.begin();
}

}  // namespace whyslow
