#include "analysis/graph/edits/cpu_work_cuts.hpp"

#include <algorithm>

namespace whyslow {
namespace {

// Node n's CPU work inside [a, b) at the state's duration; 0 for nodes that are no CPU work.
int64_t inside(const Graph& g, const GraphState& s, NodeId n, int64_t a, int64_t b) {
  const GraphNode& x = g.nodes[n];
  const int64_t overlap = std::min(x.end_ns, b) - std::max(x.start_ns, a);
  if (x.kind != NodeKind::CpuWork || overlap <= 0 || x.dur_ns <= 0) return 0;
  return static_cast<int64_t>(static_cast<double>(overlap) * static_cast<double>(s.dur[n]) / static_cast<double>(x.dur_ns));
}

}  // namespace

std::pair<NodeId, NodeId> nodes_within(const Graph& g, NodeId first, NodeId last, int64_t a, int64_t b) {
  NodeId lo = first, hi = last + 1;
  while (lo < hi) {  // the first node ending after a
    const NodeId mid = lo + (hi - lo) / 2;
    if (g.nodes[mid].end_ns <= a) lo = mid + 1;
    else hi = mid;
  }
  NodeId end = lo;
  while (end <= last && g.nodes[end].start_ns < b) ++end;
  return {lo, end};
}

int64_t shrink_work(const Graph& g, GraphState& s, NodeId first, NodeId last, int64_t a, int64_t b, int64_t ns) {
  const auto [from, to] = nodes_within(g, first, last, a, b);
  int64_t have = 0;
  for (NodeId n = from; n < to; ++n) have += inside(g, s, n, a, b);
  if (have <= 0 || ns <= 0) return 0;
  const double cut = std::min(1.0, static_cast<double>(ns) / static_cast<double>(have));
  int64_t removed = 0;
  for (NodeId n = from; n < to; ++n) {
    const int64_t take = static_cast<int64_t>(static_cast<double>(inside(g, s, n, a, b)) * cut);
    s.dur[n] -= take;
    removed += take;
  }
  return removed;
}

}  // namespace whyslow
