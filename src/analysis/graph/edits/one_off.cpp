// The cold step's one-off costs removed (a trace without steps: its one-off events, slow first
// launches and first calls' excess, cold_start's, leave the whole window). Model, on the cold step
// (cold_start's outlier step):
// - the CPU time inside one-off events goes: those cold_start counts by name (is_one_off_by_name:
//   compilation, module and lazy loading, allocator, stream/event creation, library set-up, the
//   profiler's buffer requests) and the slow one-off calls it found;
// - a host call (a launch, an event record) whose name also runs in the steady steps takes its
//   steady median; so does a top-level op of the step (the rest of it was first-call work:
//   handles, plans, heuristics, caches); the step's time outside any recorded event (the
//   interpreter importing and initialising on first use) shrinks to the steady steps' median;
// - a kernel that also runs in the steady steps takes its steady median, and the step's launches
//   reach the GPU at the trace's nominal latency (a first launch waits for its module).
#include <fmt/core.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analysis/core/intervals.hpp"
#include "analysis/core/median.hpp"
#include "analysis/graph/edits/cpu_work_cuts.hpp"
#include "analysis/graph/edits/edits.hpp"
#include "analysis/passes.hpp"

namespace whyslow {
namespace {


// Each name's median of its steady durations, computed once (a cold step asks for the same names
// thousands of times).
std::unordered_map<NameId, int64_t> medians_by_name(std::unordered_map<NameId, std::vector<int64_t>>&& by_name) {
  std::unordered_map<NameId, int64_t> out;
  out.reserve(by_name.size());
  for (auto& [name, durations] : by_name) out.emplace(name, median(std::move(durations)));
  return out;
}

}  // namespace

EditOutcome edit_one_off(const EditContext& c, std::string_view, GraphState& s) {
  EditOutcome out;
  const Trace& t = c.trace;
  const Graph& g = c.graph;
  const int cold = c.facts.cold_start.step_index;
  // A stepless trace: the one-off events of its start-up stretch (without one: of all of it) leave
  // the whole window.
  const bool stepless = c.facts.steps.empty() && !c.facts.cold_start.causes.empty() && !c.whole.empty();
  if (!stepless && (cold < 0 || static_cast<size_t>(cold) >= c.spans.size() || c.spans[cold].empty() || c.steady.empty())) {
    out.why_not = "no step stands out as a cold start, and the trace has no start-up stretch";
    return out;
  }
  const StepSpan& sp = stepless ? c.whole : c.spans[cold];
  const int64_t from = g.nodes[sp.first].start_ns;
  const int64_t to = !stepless                                ? c.facts.steps[cold].end_ns
                     : c.facts.cold_start.startup_end_ns > 0 ? c.facts.cold_start.startup_end_ns
                                                               : g.nodes[c.whole.last].end_ns;
  const Track& tr = t.tracks[g.lanes[sp.lane].track];
  // The one-off events' time on the step's thread, merged: by name, and the slow one-off CUDA calls
  // cold_start found (a first launch or allocation of 100 ms or more, with the GPU idle).
  std::vector<Interval> one_off;
  for (EventId e : tr.events)
    if (t.start_ns[e] >= from && t.end_ns(e) <= to && t.dur_ns[e] > 0 && is_one_off_by_name(t, e))
      one_off.emplace_back(t.start_ns[e], t.end_ns(e));
  for (EventId e : c.facts.cold_start.evidence)
    if (t.track[e] == g.lanes[sp.lane].track && t.start_ns[e] >= from && t.end_ns(e) <= to)
      one_off.emplace_back(t.start_ns[e], t.end_ns(e));
  // A trace without steps: its kernels' slow first launches go whole (their module's loading).
  if (stepless)
    for (EventId e : c.facts.cold_start.first_launches)
      if (t.track[e] == g.lanes[sp.lane].track && t.start_ns[e] >= from && t.end_ns(e) <= to)
        one_off.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(one_off);
  int64_t removed = 0;
  std::unordered_map<NodeId, int64_t> cut_calls;  // host calls that lost one-off time: how much
  for (NodeId n = sp.first; n <= sp.last; ++n) {
    const int64_t cut = covered_length(one_off, g.nodes[n].start_ns, g.nodes[n].end_ns);
    const int64_t take = std::min(cut, s.dur[n]);
    s.dur[n] -= take;
    removed += take;
    if (take > 0 && g.nodes[n].kind == NodeKind::HostCall) cut_calls.emplace(n, take);
  }
  if (stepless) {
    // …and each first call's work beyond its op's usual time (cold_start's first_call_work) leaves
    // the op's own CPU work: its launches and their kernels stay.
    for (const auto& [op, ns] : c.facts.cold_start.first_call_work)
      if (t.track[op] == g.lanes[sp.lane].track && t.start_ns[op] >= from && t.start_ns[op] <= to)
        removed += shrink_work(g, s, sp.first, sp.last, t.start_ns[op], t.end_ns(op), ns);
    if (removed == 0) {
      out.why_not = "the start-up stretch holds no one-off event on the main thread";
      return out;
    }
    // A launch's lag runs from its call's start: work launched by a call that loaded its module
    // first (a 300 ms first cudaLaunchKernel) started only after that loading. With the loading
    // gone, its lag loses the same time, down to the trace's nominal launch latency.
    for (NodeId w : step_work(g, sp))
      for (uint32_t k = g.edge_begin[w]; k < g.edge_begin[w + 1]; ++k) {
        const auto it = cut_calls.find(g.edges[k].from);
        if (g.edges[k].kind != EdgeKind::Launch || it == cut_calls.end()) continue;
        s.edge_lag[k] = std::max(std::min(s.edge_lag[k], g.nominal.launch_ns), s.edge_lag[k] - it->second);
      }
    out.applies = true;
    out.scope_step = kScopeWholeTrace;
    out.change = fmt::format("{:.1f} ms of one-off calls {} removed", static_cast<double>(removed) / 1e6,
                             c.facts.cold_start.startup_end_ns > 0 ? "in the start-up stretch" : "on the main thread");
    return out;
  }
  const StepFacts& step = c.facts.steps[cold];
  // First-call work: the step's host calls, top-level ops and time between ops against the same
  // in the steady steps.
  std::unordered_map<NameId, std::vector<int64_t>> steady_ops, steady_calls, steady_kernels;
  std::unordered_set<EventId> steady_steps;
  for (size_t i : c.steady) steady_steps.insert(c.facts.steps[i].event);
  for (EventId e : tr.events)
    if (t.parent[e] != kNoEvent && t.dur_ns[e] > 0 && steady_steps.count(t.parent[e])) steady_ops[t.name[e]].push_back(t.dur_ns[e]);
  std::vector<int64_t> steady_between;  // per steady step: its CPU work outside any recorded event
  for (size_t i : c.steady) {
    const StepSpan& st = c.spans[i];
    if (st.empty()) continue;
    int64_t between = 0;
    for (NodeId n = st.first; n <= st.last; ++n) {
      const GraphNode& x = g.nodes[n];
      if (x.kind == NodeKind::HostCall) steady_calls[t.name[x.event]].push_back(x.dur_ns);
      if (x.kind == NodeKind::CpuWork && x.category == CpuCategory::Other) between += x.dur_ns;
    }
    steady_between.push_back(between);
    for (NodeId w : step_work(g, st)) steady_kernels[t.name[g.nodes[w].event]].push_back(g.nodes[w].dur_ns);
  }
  const auto call_medians = medians_by_name(std::move(steady_calls));
  const auto op_medians = medians_by_name(std::move(steady_ops));
  const auto kernel_medians = medians_by_name(std::move(steady_kernels));
  int64_t first_calls = 0;
  for (NodeId n = sp.first; n <= sp.last; ++n) {
    const GraphNode& x = g.nodes[n];
    if (x.kind != NodeKind::HostCall) continue;
    const auto it = call_medians.find(t.name[x.event]);
    if (it == call_medians.end() || it->second >= s.dur[n]) continue;
    first_calls += s.dur[n] - it->second;
    s.dur[n] = it->second;
  }
  for (EventId e : tr.events) {
    if (t.parent[e] != step.event || t.dur_ns[e] <= 0) continue;
    const auto it = op_medians.find(t.name[e]);
    if (it == op_medians.end()) continue;
    int64_t left = 0;  // what is left of the op's time after the cuts above
    const auto [from_node, to_node] = nodes_within(g, sp.first, sp.last, t.start_ns[e], t.end_ns(e));
    for (NodeId n = from_node; n < to_node; ++n) {
      const GraphNode& x = g.nodes[n];
      const int64_t overlap = std::min(x.end_ns, t.end_ns(e)) - std::max(x.start_ns, t.start_ns[e]);
      if (overlap > 0 && x.dur_ns > 0)
        left += static_cast<int64_t>(static_cast<double>(overlap) * static_cast<double>(s.dur[n]) / static_cast<double>(x.dur_ns));
    }
    const int64_t excess = left - it->second;
    if (excess > 0) first_calls += shrink_work(g, s, sp.first, sp.last, t.start_ns[e], t.end_ns(e), excess);
  }
  // Time between recorded events (the interpreter importing and initialising on first use).
  if (!steady_between.empty()) {
    int64_t between = 0;
    for (NodeId n = sp.first; n <= sp.last; ++n)
      if (g.nodes[n].kind == NodeKind::CpuWork && g.nodes[n].category == CpuCategory::Other) between += s.dur[n];
    const int64_t typical = median(steady_between);
    if (between > typical && between > 0) {
      const double keep = static_cast<double>(typical) / static_cast<double>(between);
      for (NodeId n = sp.first; n <= sp.last; ++n)
        if (g.nodes[n].kind == NodeKind::CpuWork && g.nodes[n].category == CpuCategory::Other) {
          const int64_t take = s.dur[n] - static_cast<int64_t>(static_cast<double>(s.dur[n]) * keep);
          s.dur[n] -= take;
          first_calls += take;
        }
    }
  }
  uint64_t warm_kernels = 0;
  for (NodeId w : step_work(g, sp)) {
    const auto it = kernel_medians.find(t.name[g.nodes[w].event]);
    if (it != kernel_medians.end() && it->second < s.dur[w]) {
      s.dur[w] = it->second;
      ++warm_kernels;
    }
    for (uint32_t k = g.edge_begin[w]; k < g.edge_begin[w + 1]; ++k)
      if (g.edges[k].kind == EdgeKind::Launch) s.edge_lag[k] = std::min(s.edge_lag[k], g.nominal.launch_ns);
  }
  if (removed == 0 && first_calls == 0 && warm_kernels == 0) {
    out.why_not = "the cold step holds no one-off event and no op or kernel slower than in the steady steps";
    return out;
  }
  out.applies = true;
  out.scope_step = cold;
  out.change = fmt::format("{:.1f} ms of one-off calls and {:.1f} ms of first-call work (calls, ops and the time between them slower than in the steady steps) removed, {} kernels at their steady speed",
                           static_cast<double>(removed) / 1e6, static_cast<double>(first_calls) / 1e6, warm_kernels);
  return out;
}

}  // namespace whyslow
