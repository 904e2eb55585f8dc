#include "analysis/graph/replay.hpp"

#include <algorithm>

namespace whyslow {
namespace {

int64_t edge_anchor(const GraphEdge& e, int64_t from_start, int64_t from_end) {
  return e.kind == EdgeKind::Launch ? from_start : from_end;
}
int64_t nominal_of(const NominalLags& n, EdgeKind k) {
  switch (k) {
    case EdgeKind::Launch: return n.launch_ns;
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

ReplayTimes replay(const Graph& g, const GraphState& s) {
  const size_t n = g.size();
  ReplayTimes r;
  r.start.assign(n, INT64_MIN);
  r.end.assign(n, INT64_MIN);
  r.start_by.assign(n, kByOwnTime);
  r.end_by.assign(n, kByOwnTime);
  // Successors: the next node on the lane, and the targets of each node's other edges (CSR).
  std::vector<NodeId> next(n, kNoNode);
  std::vector<uint32_t> indegree(n, 0);
  for (NodeId i = 0; i < n; ++i)
    if (g.prev[i] != kNoNode) {
      next[g.prev[i]] = i;
      ++indegree[i];
    }
  std::vector<uint32_t> out_begin(n + 1, 0);
  for (NodeId i = 0; i < n; ++i)
    for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) {
      ++out_begin[g.edges[k].from + 1];
      ++indegree[i];
    }
  for (size_t i = 0; i < n; ++i) out_begin[i + 1] += out_begin[i];
  std::vector<uint32_t> out(g.edges.size());  // edge indices by source
  {
    std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    for (NodeId i = 0; i < n; ++i)
      for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) out[fill[g.edges[k].from]++] = k;
  }
  std::vector<NodeId> edge_target(g.edges.size());
  for (NodeId i = 0; i < n; ++i)
    for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) edge_target[k] = i;

  auto time_node = [&](NodeId i) {
    const GraphNode& node = g.nodes[i];
    int64_t start = INT64_MIN;
    uint32_t by = kByOwnTime;
    const NodeId p = g.prev[i];
    if (p != kNoNode && r.end[p] != INT64_MIN) {
      start = r.end[p] + s.order_lag[i];
      by = kByOrder;
    }
    int64_t wait_end = INT64_MIN;
    uint32_t wait_by = kByOwnTime;
    for (uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) {
      const GraphEdge& x = g.edges[k];
      if (s.edge_lag[k] == kEdgeRemoved || r.end[x.from] == INT64_MIN) continue;
      const int64_t ready = edge_anchor(x, r.start[x.from], r.end[x.from]) + s.edge_lag[k];
      if (sets_end(x.kind)) {
        if (ready > wait_end) wait_end = ready, wait_by = k;
      } else if (ready > start) {
        start = ready;
        by = k;
      }
    }
    if (start == INT64_MIN) start = node.start_ns;  // a source keeps its measured start
    r.start[i] = start;
    r.start_by[i] = by;
    const int64_t own_end = start + s.dur[i];
    if (wait_end > own_end) {
      r.end[i] = wait_end;
      r.end_by[i] = wait_by;
    } else {
      r.end[i] = own_end;
    }
  };

  // Kahn's order; what a cycle leaves (lanes whose clocks disagree) goes in measured start order.
  std::vector<NodeId> ready;
  for (NodeId i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push_back(i);
  size_t done = 0;
  auto release = [&](NodeId j) {
    if (--indegree[j] == 0) ready.push_back(j);
  };
  std::vector<bool> timed(n, false);
  auto run = [&] {
    while (!ready.empty()) {
      const NodeId i = ready.back();
      ready.pop_back();
      if (timed[i]) continue;
      time_node(i);
      timed[i] = true;
      ++done;
      if (next[i] != kNoNode) release(next[i]);
      for (uint32_t k = out_begin[i]; k < out_begin[i + 1]; ++k) release(edge_target[out[k]]);
    }
  };
  run();
  if (done < n) {
    std::vector<NodeId> rest;
    for (NodeId i = 0; i < n; ++i)
      if (!timed[i]) rest.push_back(i);
    std::sort(rest.begin(), rest.end(), [&](NodeId a, NodeId b) { return g.nodes[a].start_ns < g.nodes[b].start_ns; });
    r.cycle_nodes = rest.size();
    for (NodeId i : rest) {
      if (timed[i]) continue;
      indegree[i] = 0;
      ready.push_back(i);
      run();
    }
  }
  return r;
}

}  // namespace whyslow
