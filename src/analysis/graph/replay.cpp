#include "analysis/graph/replay.hpp"

#include <algorithm>

namespace whyslow {
namespace {

int64_t edge_anchor(const GraphEdge& e, int64_t from_start, int64_t from_end) {
  return from_source_start(e.kind) ? from_start : from_end;
}
int64_t nominal_of(const NominalLags& n, EdgeKind k) {
  switch (k) {
    case EdgeKind::Launch:
    case EdgeKind::Submit: return n.launch_ns;  // the driver's path from submission to start
    case EdgeKind::HostSync: return n.wake_ns;
    case EdgeKind::StreamWait: return n.stream_gap_ns;
    case EdgeKind::Handoff: return 0;
  }
  return 0;
}

}  // namespace

GraphState measured_state(const Graph& g) {
  GraphState s;
  s.dur.resize(g.size());
  for (size_t i = 0; i < g.size(); ++i) s.dur[i] = g.nodes[i].dur_ns;
  s.order_lag = g.order_lag;
  s.edge_lag.resize(g.edges.size());
  for (size_t i = 0; i < g.edges.size(); ++i) s.edge_lag[i] = g.edges[i].lag_ns;
  return s;
}

void bind_lags(Graph& g) {
  const NominalLags& nom = g.nominal;
  for (NodeId i = 0; i < g.size(); ++i) {
    GraphNode& node = g.nodes[i];
    const NodeId p = g.prev[i];
    GraphEdge* b = g.edges.data() + g.edge_begin[i];
    GraphEdge* e = g.edges.data() + g.edge_begin[i + 1];
    if (node.kind == NodeKind::ThreadWait) {
      node.dur_ns = 0;  // it only waits: its Handoff edge (measured lag) sets its end
      continue;
    }
    if (node.kind == NodeKind::HostWait) {
      // A wait ends with the work it waited for, or by its own cost when that work had ended already.
      for (GraphEdge* x = b; x != e; ++x) {
        const GraphNode& from = g.nodes[x->from];
        if (from.end_ns >= node.start_ns) {
          node.dur_ns = std::min(node.dur_ns, nom.wait_call_ns);
        } else {
          x->lag_ns = std::min(x->lag_ns, nom.wake_ns);
        }
      }
      continue;
    }
    if (b == e) continue;  // a CPU node, or GPU work with only its stream before it: the measured gap
    // Start edges: the lane's order (GPU lanes) and the launch / stream-wait edges. The one ready
    // last at its nominal lag binds and takes the measured lag; the others keep their nominal lag,
    // never more than the measured start allows.
    const bool gpu = node.kind == NodeKind::GpuWork;
    int64_t latest = INT64_MIN;
    int binding = -1;  // -1: the order edge
    if (p != kNoNode && gpu) latest = g.nodes[p].end_ns + std::min(nom.stream_gap_ns, g.order_lag[i]);
    for (GraphEdge* x = b; x != e; ++x) {
      const GraphNode& from = g.nodes[x->from];
      const int64_t ready = edge_anchor(*x, from.start_ns, from.end_ns) + std::min(nominal_of(nom, x->kind), x->lag_ns);
      if (ready > latest) {
        latest = ready;
        binding = static_cast<int>(x - b);
      }
    }
    for (GraphEdge* x = b; x != e; ++x)
      if (x - b != binding) x->lag_ns = std::min(x->lag_ns, nominal_of(nom, x->kind));
    if (binding >= 0 && p != kNoNode && gpu) g.order_lag[i] = std::min(g.order_lag[i], nom.stream_gap_ns);
  }
}

void order_events(Graph& g) {
  // Each node's start and end are two events (2i, 2i + 1): a blocking copy's call starts before
  // its copy and ends after it (call start → copy start → copy end → call end), which as whole
  // nodes would be a cycle. Edits change durations and lags, never edges, so one order serves
  // every replay of the graph.
  const size_t n = g.size();
  auto start_of = [](NodeId i) { return 2 * static_cast<uint32_t>(i); };
  auto end_of = [](NodeId i) { return 2 * static_cast<uint32_t>(i) + 1; };
  const size_t events = 2 * n;
  std::vector<uint32_t> indegree(events, 0);
  std::vector<uint32_t> out_begin(events + 1, 0);  // each event's successors (CSR)
  auto each_edge = [&](auto&& f) {
    for (NodeId i = 0; i < n; ++i) {
      if (g.prev[i] != kNoNode) f(end_of(g.prev[i]), start_of(i));
      f(start_of(i), end_of(i));
      for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) {
        const GraphEdge& x = g.edges[k];
        f(from_source_start(x.kind) ? start_of(x.from) : end_of(x.from), sets_end(x.kind) ? end_of(i) : start_of(i));
      }
    }
  };
  each_edge([&](uint32_t from, uint32_t to) {
    ++out_begin[from + 1];
    ++indegree[to];
  });
  for (size_t i = 0; i < events; ++i) out_begin[i + 1] += out_begin[i];
  std::vector<uint32_t> out(out_begin.back());
  {
    std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    each_edge([&](uint32_t from, uint32_t to) { out[fill[from]++] = to; });
  }
  // Kahn's order; what a cycle leaves (lanes whose clocks disagree) goes in measured order.
  g.event_order.clear();
  g.event_order.reserve(events);
  std::vector<uint32_t> ready;
  for (uint32_t e = 0; e < events; ++e)
    if (indegree[e] == 0) ready.push_back(e);
  std::vector<bool> placed(events, false);
  auto run = [&] {
    while (!ready.empty()) {
      const uint32_t e = ready.back();
      ready.pop_back();
      if (placed[e]) continue;
      placed[e] = true;
      g.event_order.push_back(e);
      for (uint32_t k = out_begin[e]; k < out_begin[e + 1]; ++k)
        if (indegree[out[k]] > 0 && --indegree[out[k]] == 0) ready.push_back(out[k]);
    }
  };
  run();
  g.cycle_nodes = 0;
  if (g.event_order.size() < events) {
    std::vector<uint32_t> rest;
    for (uint32_t e = 0; e < events; ++e)
      if (!placed[e]) rest.push_back(e);
    auto measured = [&](uint32_t e) { return e % 2 == 0 ? g.nodes[e / 2].start_ns : g.nodes[e / 2].end_ns; };
    std::sort(rest.begin(), rest.end(), [&](uint32_t a, uint32_t b) { return measured(a) < measured(b); });
    std::vector<bool> on_cycle(n, false);
    for (uint32_t e : rest) on_cycle[e / 2] = true;
    g.cycle_nodes = static_cast<uint64_t>(std::count(on_cycle.begin(), on_cycle.end(), true));
    for (uint32_t e : rest) {
      if (placed[e]) continue;
      indegree[e] = 0;
      ready.push_back(e);
      run();
    }
  }
}

ReplayTimes replay(const Graph& g, const GraphState& s) {
  const size_t n = g.size();
  ReplayTimes r;
  r.start.assign(n, INT64_MIN);
  r.end.assign(n, INT64_MIN);
  r.start_by.assign(n, kByOwnTime);
  r.end_by.assign(n, kByOwnTime);
  r.cycle_nodes = g.cycle_nodes;
  auto time_start = [&](NodeId i) {
    int64_t start = INT64_MIN;
    uint32_t by = kByOwnTime;
    const NodeId p = g.prev[i];
    if (p != kNoNode && r.end[p] != INT64_MIN) {
      start = r.end[p] + s.order_lag[i];
      by = kByOrder;
    }
    for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) {
      const GraphEdge& x = g.edges[k];
      if (sets_end(x.kind) || s.edge_lag[k] == kEdgeRemoved) continue;
      const int64_t anchor = from_source_start(x.kind) ? r.start[x.from] : r.end[x.from];
      if (anchor == INT64_MIN) continue;
      if (anchor + s.edge_lag[k] > start) {
        start = anchor + s.edge_lag[k];
        by = k;
      }
    }
    r.start[i] = start == INT64_MIN ? g.nodes[i].start_ns : start;  // a source keeps its measured start
    r.start_by[i] = by;
  };
  auto time_end = [&](NodeId i) {
    if (r.start[i] == INT64_MIN) time_start(i);  // only on a cycle's forced order
    r.end[i] = r.start[i] + s.dur[i];
    for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) {
      const GraphEdge& x = g.edges[k];
      if (!sets_end(x.kind) || s.edge_lag[k] == kEdgeRemoved || r.end[x.from] == INT64_MIN) continue;
      if (r.end[x.from] + s.edge_lag[k] > r.end[i]) {
        r.end[i] = r.end[x.from] + s.edge_lag[k];
        r.end_by[i] = k;
      }
    }
  };
  for (uint32_t e : g.event_order) {
    if (e % 2 == 0) time_start(e / 2);
    else time_end(e / 2);
  }
  return r;
}

}  // namespace whyslow
