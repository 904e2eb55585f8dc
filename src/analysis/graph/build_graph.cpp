// Builds the dependency graph (dependency_graph.hpp) from the loaded columns: one pass per lane,
// then the edges the trace gives evidence for, then each edge's lag (bind_lags).
#include <algorithm>

#include "analysis/core/event_names.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "analysis/gpu/lazy_submission.hpp"
#include "analysis/graph/dependency_graph.hpp"
#include "analysis/graph/replay.hpp"
#include "analysis/graph/step_replay.hpp"

namespace whyslow {
namespace {

// How many pieces of GPU work, latest-ending first, a host wait looks through for one launched
// before it: work launched later cannot be what it waited for, and a few more on other streams
// ending in the same instant are all it can meet.
constexpr size_t kWaitCandidates = 64;

// A thread's or stream's first event starting at or after `from`.
std::vector<EventId>::const_iterator first_in(const Track& tr, int64_t from, const Trace& t) {
  return std::lower_bound(tr.events.begin(), tr.events.end(), from, [&](EventId e, int64_t ts) { return t.start_ns[e] < ts; });
}

// What goes on a lane before the edges: the host calls at the outermost level of a thread (a
// driver call inside a runtime call is part of it), cut into CPU work between them.
struct LaneBuilder {
  const Trace& t;
  const Facts& f;
  Graph& g;
  std::vector<NodeId>& node_of;  // per event: its node (host calls, GPU work)
  GraphWindow window;

  NodeId add(int64_t start, int64_t end, EventId e, uint32_t lane, NodeKind kind) {
    const NodeId id = static_cast<NodeId>(g.nodes.size());
    GraphNode n;
    n.start_ns = start;
    n.end_ns = end;
    n.dur_ns = end - start;
    n.event = e;
    n.lane = lane;
    n.kind = kind;
    if (e != kNoEvent) {
      node_of[e] = id;
      if (e < f.cpu_category.size() && kind != NodeKind::GpuWork) n.category = f.cpu_category[e];
    }
    g.nodes.push_back(n);
    g.lanes[lane].nodes.push_back(id);
    return id;
  }

  // CPU work over [a, b), cut at the step bounds in `cuts` (ascending) that fall inside it.
  void add_work(int64_t a, int64_t b, uint32_t lane, const std::vector<int64_t>& cuts, size_t& next_cut) {
    while (a < b) {
      while (next_cut < cuts.size() && cuts[next_cut] <= a) ++next_cut;
      const int64_t to = next_cut < cuts.size() && cuts[next_cut] < b ? cuts[next_cut] : b;
      add(a, to, kNoEvent, lane, NodeKind::CpuWork);
      a = to;
    }
  }

  // `helper`: a thread other than the steps' one, whose idle stretches become nodes of their own
  // (split_cpu_work makes them ThreadWait).
  // `main_start`: when the steps' thread starts; a helper idle from then to its first event waits too.
  void cpu_lane(TrackId track, const std::vector<int64_t>& cuts, bool helper, int64_t main_start) {
    const Track& tr = t.tracks[track];
    const uint32_t lane = static_cast<uint32_t>(g.lanes.size());
    g.lanes.push_back({track, false, {}});
    int64_t cursor = INT64_MIN, last_end = INT64_MIN;
    size_t next_cut = 0;
    for (auto it = first_in(tr, window.start_ns, t); it != tr.events.end() && t.start_ns[*it] < window.end_ns; ++it) {
      const EventId e = *it;
      if (t.kind[e] == EventKind::Instant || t.kind[e] == EventKind::TraceSpan) continue;
      if (cursor == INT64_MIN) {
        cursor = t.start_ns[e];
        if (helper && main_start != INT64_MAX && cursor > main_start && cursor - main_start >= kMinHandoffIdleNs) add(main_start, cursor, kNoEvent, lane, NodeKind::CpuWork);
      }
      if (helper && last_end != INT64_MIN && t.start_ns[e] - last_end >= kMinHandoffIdleNs && last_end >= cursor) {
        add_work(cursor, last_end, lane, cuts, next_cut);
        add(last_end, t.start_ns[e], kNoEvent, lane, NodeKind::CpuWork);
        cursor = t.start_ns[e];
      }
      last_end = std::max(last_end, t.end_ns(e));
      if (!is_host_api(t.kind[e]) || t.start_ns[e] < cursor) continue;  // inside an earlier call
      add_work(cursor, t.start_ns[e], lane, cuts, next_cut);
      add(t.start_ns[e], t.end_ns(e), e, lane, NodeKind::HostCall);
      cursor = t.end_ns(e);
    }
    if (cursor != INT64_MIN) add_work(cursor, std::max(cursor, last_end), lane, cuts, next_cut);
  }

  // The stream's work that starts in the window, or later when launched in it.
  void gpu_lane(TrackId track) {
    const uint32_t lane = static_cast<uint32_t>(g.lanes.size());
    g.lanes.push_back({track, true, {}});
    const Track& tr = t.tracks[track];
    for (auto it = first_in(tr, window.start_ns, t); it != tr.events.end(); ++it) {
      const EventId e = *it;
      if (t.start_ns[e] >= window.end_ns) {
        const EventId call = t.launch_link[e];
        if (call == kNoEvent || t.start_ns[call] >= window.end_ns) break;
      }
      if (is_gpu_activity(t.kind[e])) add(t.start_ns[e], t.end_ns(e), e, lane, NodeKind::GpuWork);
    }
  }
};

// The threads that get a lane: those with host calls in the window, and the steps' (or the main) thread.
std::vector<bool> cpu_lanes(const Trace& t, const Facts& f, GraphWindow w) {
  std::vector<bool> keep(t.tracks.size(), false);
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    const Track& tr = t.tracks[k];
    if (tr.kind != TrackKind::Cpu) continue;
    for (auto it = first_in(tr, w.start_ns, t); it != tr.events.end() && t.start_ns[*it] < w.end_ns; ++it)
      if (is_host_api(t.kind[*it])) {
        keep[k] = true;
        break;
      }
  }
  for (const StepFacts& s : f.steps) keep[t.track[s.event]] = true;
  if (f.steps.empty() && f.window_thread < t.tracks.size()) keep[f.window_thread] = true;
  return keep;
}

// The bounds every step (a stepless trace: its steady window) must start and end a node at, per track.
std::vector<std::vector<int64_t>> step_cuts(const Trace& t, const Facts& f) {
  std::vector<std::vector<int64_t>> cuts(t.tracks.size());
  for (const StepFacts& s : f.steps) {
    auto& c = cuts[t.track[s.event]];
    c.push_back(s.start_ns);
    c.push_back(s.end_ns);
  }
  if (const LoopFacts* loop = stepless_loop(f)) {
    for (const StepFacts& it : loop->iterations) {
      cuts[loop->thread].push_back(it.start_ns);
      cuts[loop->thread].push_back(it.end_ns);
    }
  } else if (f.steps.empty() && f.window_thread < t.tracks.size() && f.steady_window.duration_ns > 0) {
    cuts[f.window_thread].push_back(f.steady_window.start_ns);
  }
  for (auto& c : cuts) std::sort(c.begin(), c.end());
  return cuts;
}

// The outermost host call around `e` that has a node (a driver call inside a runtime call).
NodeId call_node(const Trace& t, const std::vector<NodeId>& node_of, EventId e) {
  for (int depth = 0; e != kNoEvent && depth < 8; e = t.parent[e], ++depth)
    if (node_of[e] != kNoNode) return node_of[e];
  return kNoNode;
}

struct PendingEdge {
  NodeId to;
  GraphEdge edge;
};

// The GPU work a host wait returned after: of the work launched before the call started, the one
// that ended last no later than the call's end. kNoNode when none was launched before it.
NodeId waited_work(const Trace& t, const Graph& g, const std::vector<NodeId>& by_end, const std::vector<NodeId>& node_of,
                   const GraphNode& wait) {
  auto it = std::upper_bound(by_end.begin(), by_end.end(), wait.end_ns,
                             [&](int64_t ts, NodeId n) { return ts < g.nodes[n].end_ns; });
  for (size_t looked = 0; it != by_end.begin() && looked < kWaitCandidates; ++looked) {
    const NodeId n = *--it;
    const EventId e = g.nodes[n].event;
    const EventId call = t.launch_link[e];
    const int64_t launched = call != kNoEvent && node_of[call] != kNoNode ? t.start_ns[call] : g.nodes[n].start_ns;
    if (launched < wait.start_ns) return n;
  }
  return kNoNode;
}

}  // namespace

Graph build_graph(const Trace& t, const Facts& f, GraphWindow window) {
  Graph g;
  g.window = window;
  std::vector<NodeId> node_of(t.size(), kNoNode);
  LaneBuilder b{t, f, g, node_of, window};
  const std::vector<bool> keep = cpu_lanes(t, f, window);
  const std::vector<std::vector<int64_t>> cuts = step_cuts(t, f);
  const TrackId main_track = !f.steps.empty() ? t.track[f.steps.front().event] : f.window_thread;
  int64_t main_start = INT64_MAX;
  if (main_track < t.tracks.size()) {
    const Track& tr = t.tracks[main_track];
    for (auto it = first_in(tr, window.start_ns, t); it != tr.events.end() && t.start_ns[*it] < window.end_ns; ++it)
      if (t.kind[*it] != EventKind::Instant && t.kind[*it] != EventKind::TraceSpan) {
        main_start = t.start_ns[*it];
        break;
      }
  }
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    if (keep[k]) b.cpu_lane(k, cuts[k], k != main_track, main_start);
    else if (t.tracks[k].kind == TrackKind::Gpu) b.gpu_lane(k);
  }
  split_cpu_work(t, f, main_track, g);
  const size_t n = g.nodes.size();
  g.prev.assign(n, kNoNode);
  g.order_lag.assign(n, 0);
  for (const GraphLane& lane : g.lanes)
    for (size_t i = 1; i < lane.nodes.size(); ++i) {
      const NodeId a = lane.nodes[i - 1], c = lane.nodes[i];
      g.prev[c] = a;
      g.order_lag[c] = g.nodes[c].start_ns - g.nodes[a].end_ns;  // 0 on CPU lanes: the work fills the gaps
    }

  HostWaitNames waits(t);
  // Lazy submission (lazy_submission.hpp): per CPU lane, its host waits' starts and nodes, for the
  // `Submit` edges; only in a trace with no evidence of a dependency.
  const bool lazy_possible = !f.window.idle.dependency_evidence;
  std::vector<std::vector<int64_t>> wait_starts(lazy_possible ? g.lanes.size() : 0);
  std::vector<std::vector<NodeId>> wait_nodes(wait_starts.size());
  for (NodeId i = 0; i < n && lazy_possible; ++i)
    if (g.nodes[i].kind == NodeKind::HostCall && waits.of(g.nodes[i].event) != HostWait::None) {
      wait_starts[g.nodes[i].lane].push_back(g.nodes[i].start_ns);  // a lane's nodes are in time order
      wait_nodes[g.nodes[i].lane].push_back(i);
    }

  // The edges, gathered per target and laid out as CSR below.
  std::vector<PendingEdge> pending;
  std::vector<NodeId> gpu_by_end;
  for (NodeId i = 0; i < n; ++i) {
    if (g.nodes[i].kind != NodeKind::GpuWork) continue;
    gpu_by_end.push_back(i);
    const EventId call = t.launch_link[g.nodes[i].event];
    const NodeId from = call != kNoEvent ? call_node(t, node_of, call) : kNoNode;
    if (from == kNoNode || g.lanes[g.nodes[from].lane].gpu) continue;
    pending.push_back({i, {from, EdgeKind::Launch, g.nodes[i].start_ns - g.nodes[from].start_ns}});
    if (!lazy_possible) continue;
    // Sent by a host wait: the wait began after the work was queued and after its stream's previous
    // work ended (the stream sat idle with the work queued), and the work started just after.
    const uint32_t lane = g.nodes[from].lane;
    const NodeId p = g.prev[i];
    const std::ptrdiff_t w = submitting_wait(wait_starts[lane], queued_at(t, call, waits.of(call) != HostWait::None),
                                             p != kNoNode ? g.nodes[p].end_ns : INT64_MIN, g.nodes[i].start_ns);
    if (w < 0) continue;
    const NodeId wait = wait_nodes[lane][static_cast<size_t>(w)];
    if (wait == from) continue;
    pending.push_back({i, {wait, EdgeKind::Submit, g.nodes[i].start_ns - g.nodes[wait].start_ns}});
  }
  std::sort(gpu_by_end.begin(), gpu_by_end.end(), [&](NodeId a, NodeId c) { return g.nodes[a].end_ns < g.nodes[c].end_ns; });

  // The last stream wait call seen on each lane, so the next launch from it gets the StreamWait edge.
  std::vector<NodeId> open_stream_wait(g.lanes.size(), kNoNode);
  for (NodeId i = 0; i < n; ++i) {
    GraphNode& node = g.nodes[i];
    if (node.kind != NodeKind::HostCall) continue;
    const EventId e = node.event;
    const HostWait w = waits.of(e);
    if (w != HostWait::None) {
      // A blocking copy waits for its own copy; a synchronize for the work that ended last before it returned.
      NodeId waited = kNoNode;
      if (w == HostWait::BlockingCopy && t.is_launch(e)) waited = node_of[t.launch_link[e]];
      if (waited == kNoNode) waited = waited_work(t, g, gpu_by_end, node_of, node);
      if (waited != kNoNode) {
        node.kind = NodeKind::HostWait;
        pending.push_back({i, {waited, EdgeKind::HostSync, node.end_ns - g.nodes[waited].end_ns}});
      }
      continue;
    }
    if (is_stream_wait(t.name_of(e))) {
      open_stream_wait[node.lane] = i;
      continue;
    }
    const NodeId sw = open_stream_wait[node.lane];
    if (sw == kNoNode || !t.is_launch(e)) continue;
    open_stream_wait[node.lane] = kNoNode;
    // The work queued behind the wait waits for the other streams' work launched before the wait
    // call: the one of them that ended last before this work started.
    const NodeId work = node_of[t.launch_link[e]];
    if (work == kNoNode) continue;
    const uint32_t stream = g.nodes[work].lane;
    GraphNode probe;
    probe.start_ns = g.nodes[sw].start_ns;
    probe.end_ns = g.nodes[work].start_ns;
    auto it = std::upper_bound(gpu_by_end.begin(), gpu_by_end.end(), probe.end_ns,
                               [&](int64_t ts, NodeId m) { return ts < g.nodes[m].end_ns; });
    for (size_t looked = 0; it != gpu_by_end.begin() && looked < kWaitCandidates; ++looked) {
      const NodeId m = *--it;
      if (g.nodes[m].lane == stream) continue;
      const EventId call = t.launch_link[g.nodes[m].event];
      if (call == kNoEvent || t.start_ns[call] >= probe.start_ns) continue;
      pending.push_back({work, {m, EdgeKind::StreamWait, g.nodes[work].start_ns - g.nodes[m].end_ns}});
      break;
    }
  }
  // A helper thread woken from idleness: by the steps' thread, at the end of its last node before then.
  const GraphLane* main_lane = nullptr;
  for (const GraphLane& lane : g.lanes)
    if (!lane.gpu && lane.track == main_track) main_lane = &lane;
  for (NodeId i = 0; i < n && main_lane && !main_lane->nodes.empty(); ++i) {
    if (g.nodes[i].kind != NodeKind::ThreadWait) continue;
    const std::vector<NodeId>& m = main_lane->nodes;
    auto it = std::upper_bound(m.begin(), m.end(), g.nodes[i].end_ns, [&](int64_t ts, NodeId x) { return ts < g.nodes[x].end_ns; });
    if (it == m.begin()) {
      g.nodes[i].kind = NodeKind::CpuWork;  // woken before the steps' thread did anything: keep its length
      continue;
    }
    const NodeId from = *(it - 1);
    pending.push_back({i, {from, EdgeKind::Handoff, g.nodes[i].end_ns - g.nodes[from].end_ns}});
  }
  std::sort(pending.begin(), pending.end(), [](const PendingEdge& a, const PendingEdge& c) { return a.to < c.to; });
  g.edge_begin.assign(n + 1, 0);
  g.edges.reserve(pending.size());
  for (const PendingEdge& p : pending) {
    ++g.edge_begin[p.to + 1];
    g.edges.push_back(p.edge);
  }
  for (size_t i = 0; i < n; ++i) g.edge_begin[i + 1] += g.edge_begin[i];
  for (const PendingEdge& p : pending)
    if (p.edge.kind == EdgeKind::Launch) g.launches.emplace_back(p.edge.from, p.to);
  std::sort(g.launches.begin(), g.launches.end());

  g.nominal = measure_nominal_lags(t, g);
  bind_lags(g);
  order_events(g);
  return g;
}

}  // namespace whyslow
