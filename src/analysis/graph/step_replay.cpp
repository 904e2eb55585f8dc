#include "analysis/graph/step_replay.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/comm/comm_names.hpp"
#include "analysis/core/event_names.hpp"
#include "analysis/core/median.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

uint32_t lane_of_track(const Graph& g, TrackId track) {
  for (uint32_t i = 0; i < g.lanes.size(); ++i)
    if (!g.lanes[i].gpu && g.lanes[i].track == track) return i;
  return UINT32_MAX;
}

StepSpan span_between(const Graph& g, uint32_t lane, int64_t start, int64_t end) {
  StepSpan s;
  if (lane == UINT32_MAX) return s;
  s.lane = lane;
  const std::vector<NodeId>& nodes = g.lanes[lane].nodes;
  auto first = std::lower_bound(nodes.begin(), nodes.end(), start,
                                [&](NodeId n, int64_t ts) { return g.nodes[n].start_ns < ts; });
  auto last = std::upper_bound(nodes.begin(), nodes.end(), end,
                               [&](int64_t ts, NodeId n) { return ts < g.nodes[n].end_ns; });
  if (first == nodes.end() || last == nodes.begin()) return s;
  s.first = *first;
  s.last = *(last - 1);
  return s;
}

// The part an edge's lag plays: its nominal cost is latency, the rest a wait.
struct LagWords {
  std::string_view latency, wait;
};
LagWords lag_words(EdgeKind k) {
  switch (k) {
    case EdgeKind::Launch: return {"launch latency", "GPU work started late (no cause in the trace)"};
    case EdgeKind::HostSync: return {"sync wake-up", "sync wake-up, slow"};
    case EdgeKind::StreamWait: return {"stream wait", "waiting for another stream"};
    case EdgeKind::Handoff: return {"thread hand-off", "thread hand-off"};
    case EdgeKind::Submit: return {"sent at a host wait (lazy submission)", "GPU work started late (no cause in the trace)"};
  }
  return {"", ""};
}
int64_t path_nominal(const NominalLags& n, EdgeKind k) {
  switch (k) {
    case EdgeKind::Launch: return n.launch_ns;
    case EdgeKind::HostSync: return n.wake_ns;
    case EdgeKind::StreamWait: return 0;  // all of a stream wait is waiting
    case EdgeKind::Handoff: return INT64_MAX;  // the other thread's time before the hand-off, not a wait
    case EdgeKind::Submit: return n.launch_ns;
  }
  return 0;
}

}  // namespace

std::string_view to_string(PathKind k) {
  switch (k) {
    case PathKind::Cpu: return "cpu";
    case PathKind::Gpu: return "gpu";
    case PathKind::Latency: return "latency";
    case PathKind::Wait: return "wait";
  }
  return "cpu";
}

const LoopFacts* stepless_loop(const Facts& f) {
  if (!f.steps.empty()) return nullptr;
  for (const LoopFacts& l : f.loops)
    if (l.step == kLoopOverWindow && l.iterations.size() >= 2) return &l;
  return nullptr;
}

std::vector<StepSpan> step_spans(const Trace& t, const Facts& f, const Graph& g) {
  std::vector<StepSpan> out;
  if (const LoopFacts* loop = stepless_loop(f)) {
    const uint32_t lane = lane_of_track(g, loop->thread);
    for (const StepFacts& it : loop->iterations) out.push_back(span_between(g, lane, it.start_ns, it.end_ns));
    return out;
  }
  if (f.steps.empty()) {
    const StepFacts& w = f.steady_window.duration_ns > 0 ? f.steady_window : f.window;
    out.push_back(f.window_thread == UINT32_MAX ? StepSpan{}
                                                 : span_between(g, lane_of_track(g, f.window_thread), w.start_ns, w.end_ns));
    return out;
  }
  TrackId track = UINT32_MAX;
  uint32_t lane = UINT32_MAX;
  for (const StepFacts& s : f.steps) {
    if (t.track[s.event] != track) {
      track = t.track[s.event];
      lane = lane_of_track(g, track);
    }
    out.push_back(span_between(g, lane, s.start_ns, s.end_ns));
  }
  return out;
}

std::vector<NodeId> step_work(const Graph& g, const StepSpan& sp, std::vector<std::pair<NodeId, NodeId>>* sources) {
  std::vector<NodeId> out;
  if (sp.empty()) return out;
  const int64_t from = g.nodes[sp.first].start_ns, to = g.nodes[sp.last].end_ns;
  for (const GraphLane& lane : g.lanes) {
    if (lane.gpu || lane.nodes.empty()) continue;
    auto lo = std::lower_bound(lane.nodes.begin(), lane.nodes.end(), from, [&](NodeId n, int64_t ts) { return g.nodes[n].start_ns < ts; });
    auto hi = std::lower_bound(lo, lane.nodes.end(), to, [&](NodeId n, int64_t ts) { return g.nodes[n].start_ns < ts; });
    if (lo == hi) continue;
    const NodeId first = *lo, last = *(hi - 1);
    if (sources) sources->emplace_back(first, last);
    auto it = std::lower_bound(g.launches.begin(), g.launches.end(), std::pair<NodeId, NodeId>{first, 0});
    for (; it != g.launches.end() && it->first <= last; ++it) out.push_back(it->second);
  }
  return out;
}

std::vector<size_t> steady_spans(const Facts& f) {
  std::vector<size_t> out;
  if (const LoopFacts* loop = stepless_loop(f)) {
    for (size_t i = 1; i < loop->iterations.size(); ++i) out.push_back(i);
    return out;
  }
  if (f.steps.empty()) return {0};
  for (const StepFacts* s : steady_steps(f)) out.push_back(static_cast<size_t>(s - f.steps.data()));
  return out;
}

namespace {
// The latest end of the GPU work launched in the span.
int64_t launched_work_end(const Graph& g, const ReplayTimes& r, const StepSpan& sp) {
  int64_t end = INT64_MIN;
  for (NodeId w : step_work(g, sp)) end = std::max(end, r.end[w]);
  return end;
}
}  // namespace

int64_t span_length(const Graph& g, const ReplayTimes& r, const StepSpan& s, bool with_gpu) {
  if (s.empty()) return 0;
  int64_t end = r.end[s.last];
  if (with_gpu) end = std::max(end, launched_work_end(g, r, s));
  return end - r.start[s.first];
}

int64_t steady_step_ns(const Graph& g, const ReplayTimes& r, const std::vector<StepSpan>& spans,
                       const std::vector<size_t>& steady) {
  // Each steady step's period: from the previous step's completion (its CPU end or the end of the
  // GPU work it launched, whichever is later) to its own; a step that does not follow a steady one
  // from its own start. The median: a step the cold-start rule did not single out weighs no more than one.
  std::vector<int64_t> periods;
  size_t prev = SIZE_MAX;  // the previous steady step's index, SIZE_MAX when it was not replayed
  int64_t prev_done = 0;
  for (size_t i : steady) {
    if (i >= spans.size() || spans[i].empty()) {
      prev = SIZE_MAX;
      continue;
    }
    const StepSpan& sp = spans[i];
    const int64_t done = std::max(r.end[sp.last], launched_work_end(g, r, sp));
    // The step right after the previous one (the time between two steps' annotations belongs to the later).
    const bool follows = prev != SIZE_MAX && prev + 1 == i && spans[prev].lane == sp.lane;
    periods.push_back(done - (follows ? prev_done : r.start[sp.first]));
    prev = i;
    prev_done = done;
  }
  return median(periods);
}

std::string gpu_family(const Trace& t, EventId e) {
  const std::string_view n = t.name_of(e);
  auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
  if (t.kind[e] == EventKind::Memset) return "memset";
  if (t.kind[e] == EventKind::Memcpy) {
    for (std::string_view d : {"HtoD", "DtoH", "DtoD", "PtoP", "HtoH"})
      if (has(d)) return "copy " + std::string(d);
    return "copy";
  }
  if (is_comm_kernel(n)) return "communication";  // comm_names.cpp's table: NCCL, RCCL and the libraries beside them
  if (is_triton_kernel(n)) return "Triton (torch.compile)";
  if (has("flash") || has("fmha") || has("attention") || has("Attention") || has("sdpa")) return "attention";
  if (has("gemm") || has("Gemm") || has("GEMM") || has("cutlass") || has("xmma") || has("nvjet") || has("matmul") ||
      has("wgmma") || has("cublas"))
    return "GEMM";
  if (says_convolution(n) || has("winograd")) return "convolution";
  if (has("elementwise") || has("vectorized") || has("unrolled")) return "elementwise";
  if (has("reduce") || has("Reduce") || has("softmax") || has("norm") || has("Norm")) return "reduction";
  return "other kernels";
}

namespace {

// One piece of a critical path: [begin, end) of the step, held by `node`'s own work or, for a lag
// (`lag_words` not empty: what it is), by the edge that leads to `node`.
struct PathPiece {
  PathKind kind = PathKind::Cpu;
  std::string_view lag_words;
  int64_t begin = 0, end = 0;
  NodeId node = kNoNode;
};

// From the step's last node, back through the edge that set each time (a wait's end edge, else its
// start edge) to the step's start: hands `visit` each node's replayed time and each edge's lag
// (nominal part: latency, the rest: wait) clipped to the step, from its end back to its start.
// The pieces are contiguous: they cover the step.
template <typename Visit>
void walk_critical_path(const Graph& g, const GraphState& st, const ReplayTimes& r, const StepSpan& s, Visit&& visit) {
  const int64_t stop = r.start[s.first];
  int64_t cursor = r.end[s.last];
  NodeId n = s.last;
  // The piece [begin, cursor) clipped to the step, then the cursor moves back to it.
  auto part = [&](PathKind k, std::string_view lag_words, int64_t begin) {
    begin = std::max(begin, stop);
    if (begin < cursor) visit(PathPiece{k, lag_words, begin, cursor, n});
    cursor = std::min(cursor, begin);
  };
  auto lag_part = [&](EdgeKind k, int64_t source_anchor, int64_t lag) {
    const LagWords w = lag_words(k);
    const int64_t nominal = std::min(lag, path_nominal(g.nominal, k));
    if (lag > nominal) part(PathKind::Wait, w.wait, source_anchor + nominal);
    part(PathKind::Latency, w.latency, source_anchor);
  };
  bool at_end = true;  // walking back from the node's end (else from its start)
  for (size_t guard = 0; cursor > stop && guard < 4 * g.size() + 4; ++guard) {
    const GraphNode& node = g.nodes[n];
    if (at_end) {
      const uint32_t by = r.end_by[n];
      if (by != kByOwnTime) {  // a host wait that returned after GPU work
        const GraphEdge& x = g.edges[by];
        lag_part(x.kind, r.end[x.from], st.edge_lag[by]);
        n = x.from;
        continue;
      }
      if (node.kind != NodeKind::ThreadWait)  // it lasts nothing of its own
        part(node.kind == NodeKind::GpuWork ? PathKind::Gpu : PathKind::Cpu, {}, r.start[n]);
      at_end = false;
      continue;
    }
    const uint32_t by = r.start_by[n];
    if (by == kByOwnTime) break;  // a source: nothing in the trace before it
    if (by == kByOrder) {
      const NodeId p = g.prev[n];
      const int64_t lag = st.order_lag[n];
      if (lag > 0) {
        const int64_t nominal = std::min(lag, g.nominal.stream_gap_ns);
        if (lag > nominal) part(PathKind::Wait, "GPU work started late (no cause in the trace)", r.end[p] + nominal);
        part(PathKind::Latency, "stream gap", r.end[p]);
      }
      n = p;
      at_end = true;
      continue;
    }
    const GraphEdge& x = g.edges[by];
    const bool from_start = from_source_start(x.kind);
    lag_part(x.kind, from_start ? r.start[x.from] : r.end[x.from], st.edge_lag[by]);
    n = x.from;
    at_end = !from_start;
  }
  if (cursor > stop) part(PathKind::Wait, "before the trace's first event", stop);
}

}  // namespace

std::vector<PathPart> largest_first(const std::map<std::pair<PathKind, std::string>, int64_t>& sum, int64_t divisor) {
  std::vector<PathPart> out;
  for (const auto& [key, ns] : sum) out.push_back({key.first, key.second, ns / std::max<int64_t>(1, divisor)});
  std::stable_sort(out.begin(), out.end(), [](const PathPart& a, const PathPart& b) { return a.ns > b.ns; });
  return out;
}

std::vector<PathPart> critical_path(const Trace& t, const Graph& g, const GraphState& st, const ReplayTimes& r,
                                    const StepSpan& s) {
  if (s.empty()) return {};
  std::map<std::pair<PathKind, std::string>, int64_t> sum;
  walk_critical_path(g, st, r, s, [&](const PathPiece& p) {
    const GraphNode& node = g.nodes[p.node];
    std::string what = !p.lag_words.empty() ? std::string(p.lag_words)
                       : node.kind == NodeKind::GpuWork ? gpu_family(t, node.event)
                       : node.kind == NodeKind::HostWait ? "sync_wait"
                                                          : std::string(to_string(node.category));
    sum[{p.kind, std::move(what)}] += p.end - p.begin;
  });
  return largest_first(sum, 1);
}

std::vector<PathSegment> critical_path_segments(const Graph& g, const GraphState& st, const ReplayTimes& r,
                                                const StepSpan& s) {
  std::vector<PathSegment> out;
  if (s.empty()) return out;
  walk_critical_path(g, st, r, s, [&](const PathPiece& p) {
    const GraphNode& node = g.nodes[p.node];
    out.push_back({p.lag_words.empty() ? node.event : kNoEvent, p.begin, p.end, p.kind, g.lanes[node.lane].track});
  });
  std::reverse(out.begin(), out.end());
  if (out.size() > kMaxPathSegments) out.resize(kMaxPathSegments);
  return out;
}

}  // namespace whyslow
