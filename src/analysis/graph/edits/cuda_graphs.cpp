// CUDA graphs over each steady step. Model: the launches between two host waits of a step (a
// capture cannot hold a sync) are captured once and replayed by one graph launch. The replay does
// no host work of its own besides that launch: the CPU time that only issued the launches (dispatch,
// launch calls, allocator calls, the Python that drives them: cpu_work.cpp's graph_skips) goes, in
// the captured span only (from the op of the region's first launch to that of its last: the host
// work before and after it, and a region that launches nothing, are not captured and stay);
// CPU math, data loading and waits stay. On the GPU the captured work keeps its durations; it waits
// for nothing but the graph launch and the work before it on its stream (launch and stream lags
// capped at the trace's nominal ones). With "reduce-overhead" (torch.compile's CUDA graph trees)
// each step also pays the compiled wrapper's per-call cost.
#include <fmt/core.h>

#include <algorithm>
#include <utility>

#include "analysis/core/event_names.hpp"
#include "analysis/core/median.hpp"
#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

// One cudaGraphLaunch of a small captured graph: 5.9-8.8 µs once warm (median ~7 µs) on the H200
// with the profiler on (tests/fixtures/lab/mm_64_fp32_graph.json.gz); a trace's own graph
// launches, where it has some, stand in for it.
constexpr int64_t kGraphLaunchNs = 7'000;
// torch.compile(mode="reduce-overhead")'s per-call host cost besides the graph launch: guards,
// the CUDA graph tree's bookkeeping, input copies. The steady calls of the H200 fixtures spend
// 124 µs (tests/fixtures/compile/ro_fixed.json.gz: region 135 µs, graph launch 11 µs) and 171 µs
// (tests/fixtures/torch/mlp_bf16_reduce_overhead.json.gz: 188 − 17 µs) in the compiled region
// outside the graph launch; the smaller stands for it.
constexpr int64_t kReduceOverheadCallNs = 124'000;

// The host time a capture holds around one launch call: the outermost ATen op or scope (a
// record_function block, a C++ program's scope around its cuBLAS call) enclosing it below the step's
// own annotation, or the call alone when none does. Host work outside the ops and scopes that launch
// (a CPU-only op such as a sparse tensor's coalesce, and the Python around it) is not captured and
// stays.
// How far up from a launch call the walk looks for its outermost op or scope: a program's ops sit a
// few levels under its blocks, and Python frames (with_stack) nest a few hundred deep at most; a
// hostile trace's deeper chain stops here (a smaller captured span: less host time removed).
constexpr int kMaxScopeDepth = 256;

std::pair<int64_t, int64_t> launching_op(const Trace& t, const std::vector<EventId>& steps, EventId call) {
  EventId outer = call;
  int depth = 0;
  for (EventId e = t.parent[call]; e != kNoEvent && depth < kMaxScopeDepth; e = t.parent[e], ++depth) {
    if (std::binary_search(steps.begin(), steps.end(), e)) break;
    if (t.kind[e] == EventKind::CpuOp || t.kind[e] == EventKind::UserAnnotation) outer = e;
  }
  return {t.start_ns[outer], t.end_ns(outer)};
}

int64_t graph_launch_cost(const EditContext& c) {
  std::vector<int64_t> d;
  for (const GraphNode& n : c.graph.nodes)
    if (n.kind == NodeKind::HostCall && is_graph_launch(c.trace.name_of(n.event))) d.push_back(n.dur_ns);
  return d.size() >= 3 ? median(d) : kGraphLaunchNs;
}

}  // namespace

EditOutcome edit_cuda_graphs(const EditContext& c, std::string_view param, GraphState& s) {
  EditOutcome out;
  const bool reduce_overhead = param == "reduce-overhead";
  if (!param.empty() && !reduce_overhead) {
    out.why_not = fmt::format("cuda-graphs takes \"reduce-overhead\" or nothing, not \"{}\"", param);
    return out;
  }
  const Graph& g = c.graph;
  const int64_t launch_cost = graph_launch_cost(c);
  uint64_t launches = 0, graphs = 0, graph_launches_seen = 0;
  uint64_t alone = 0;  // read-backs left as they are: a copy, the only launch between two host waits
  int64_t compile_ns = 0;  // the compiled wrapper's guard time the trace already shows (kept)
  std::vector<EventId> step_events;  // the steps' own annotations, sorted
  for (const StepFacts& st : c.facts.steps) step_events.push_back(st.event);
  std::sort(step_events.begin(), step_events.end());
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    // Every thread's part of the step: the steps' thread, and helpers such as the autograd thread
    // whose launches the same capture records (their regions cost no graph launch of their own).
    std::vector<std::pair<NodeId, NodeId>> ranges;
    const std::vector<NodeId> work = step_work(g, sp, &ranges);
    if (std::none_of(ranges.begin(), ranges.end(), [&](const auto& r) { return r.first == sp.first; }))
      ranges.emplace_back(sp.first, sp.last);
    for (const auto& [first, last] : ranges) {
      const bool main_lane = g.nodes[first].lane == sp.lane;
      // Each region between two host waits: one whose only launch is a copy is a read-back (.item()
      // in a loop: a copy, then the host waits for its value) and is not captured — the host needs
      // the value, so the Python around it stays, and the copy stays a launch of its own.
      // A region's captured span: from the start of its first launch's op to the end of its last
      // one's; a region without launches captures nothing.
      std::vector<uint32_t> region_launches(1, 0), region_copies(1, 0);
      std::vector<std::pair<int64_t, int64_t>> span(1, {INT64_MAX, INT64_MIN});
      for (NodeId n = first; n <= last; ++n) {
        if (g.nodes[n].kind == NodeKind::HostWait) {
          region_launches.push_back(0), region_copies.push_back(0), span.emplace_back(INT64_MAX, INT64_MIN);
        } else if (g.nodes[n].kind == NodeKind::HostCall && c.trace.is_launch(g.nodes[n].event)) {
          ++region_launches.back();
          region_copies.back() += c.trace.kind[c.trace.launch_link[g.nodes[n].event]] == EventKind::Memcpy;
          const auto [lo, hi] = launching_op(c.trace, step_events, g.nodes[n].event);
          span.back().first = std::min(span.back().first, lo);
          span.back().second = std::max(span.back().second, hi);
        }
      }
      size_t region = 0;
      bool open_region = false;
      for (NodeId n = first; n <= last; ++n) {
        const GraphNode& node = g.nodes[n];
        if (node.kind == NodeKind::HostWait) {
          open_region = false;
          ++region;
          continue;
        }
        if (node.category == CpuCategory::Compile) compile_ns += node.end_ns - node.start_ns;
        if (node.kind == NodeKind::HostCall && node.event != kNoEvent && is_graph_launch(c.trace.name_of(node.event)))
          ++graph_launches_seen;
        const bool launch = node.kind == NodeKind::HostCall && c.trace.is_launch(node.event);
        if (launch) ++launches;
        if (region_launches[region] == 1 && region_copies[region] == 1) {
          if (launch) ++alone;
          continue;
        }
        if (launch && !open_region) {
          open_region = true;
          if (main_lane) {
            ++graphs;
            s.dur[n] = launch_cost;
            continue;
          }
        }
        // Of the node's skippable time, at most its overlap with the captured span goes; a region
        // with no launch has no span ({INT64_MAX, INT64_MIN}: subtracting its ends would overflow).
        const auto [span_start, span_end] = span[region];
        const int64_t inside =
            span_start < span_end ? std::min(node.end_ns, span_end) - std::max(node.start_ns, span_start) : 0;
        s.dur[n] = std::max<int64_t>(0, s.dur[n] - std::clamp<int64_t>(inside, 0, g.graph_skippable_ns[n]));
      }
    }
    for (NodeId w : work) {
      s.order_lag[w] = std::min(s.order_lag[w], g.nominal.stream_gap_ns);
      for (uint32_t k = g.edge_begin[w]; k < g.edge_begin[w + 1]; ++k)
        if (g.edges[k].kind == EdgeKind::Launch) s.edge_lag[k] = std::min(s.edge_lag[k], g.nominal.launch_ns);
    }
  }
  if (graph_launches_seen > 0) {
    out.why_not = "the steady steps already replay CUDA graphs";
    return out;
  }
  if (launches == 0) {
    out.why_not = "the steady steps launch no GPU work";
    return out;
  }
  const size_t steps = c.steady.size();
  if (reduce_overhead) {
    // The compiled wrapper's per-call cost, less the guard time the steps already spend, once per step.
    const int64_t per_step = std::max<int64_t>(0, kReduceOverheadCallNs - compile_ns / static_cast<int64_t>(steps));
    for (size_t i : c.steady)
      if (!c.spans[i].empty()) s.dur[c.spans[i].first] += per_step;
  }
  out.applies = true;
  const double per_step_launches = static_cast<double>(launches) / static_cast<double>(steps);
  out.change = fmt::format("{:.0f} launch{} per step → {:.0f} graph launch{}", per_step_launches,
                           per_step_launches == 1 ? "" : "es", static_cast<double>(graphs) / static_cast<double>(steps),
                           graphs == steps ? "" : "es");
  if (alone > 0)
    out.change += fmt::format(" ({:.0f} read-back{} left alone: a copy the host waits for)",
                              static_cast<double>(alone) / static_cast<double>(steps), alone == steps ? "" : "s");
  if (reduce_overhead) out.change += fmt::format(", plus reduce-overhead's {} µs per call", kReduceOverheadCallNs / 1000);
  return out;
}

}  // namespace whyslow
