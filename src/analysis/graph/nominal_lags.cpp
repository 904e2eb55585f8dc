// The trace's own latencies: what each kind of edge costs when nothing else holds it back,
// measured over the edges that show it alone (an idle stream's launches, a busy stream's
// back-to-back work, host waits whose work ended inside them) at a low percentile: an edge that
// looks free may still wait for what the trace does not show (another stream's event, a full
// launch queue), and those waits must not pass for the edge's own cost (a DDP trace's idle-stream
// launches have a median of 1.9 ms: their kernels wait for the gradients' all-reduce).
#include <algorithm>

#include "analysis/graph/dependency_graph.hpp"

namespace whyslow {
namespace {

// Fewer samples than this and the trace does not say: the fallbacks below stand in.
constexpr size_t kMinSamples = 5;
// The percentile taken: low enough to leave out the edges that waited, high enough not to take
// one lucky edge for the rule.
constexpr double kNominalPercentile = 0.10;
// CUDA's launch path, call to kernel start on an idle stream: 4-8 µs measured on the H200
// fixtures with the profiler on (tests/fixtures/torch, idle-stream launches); 5 µs stands for it.
constexpr int64_t kFallbackLaunchNs = 5'000;
// Back-to-back work on one stream: ~1 µs between kernels on the H200 fixtures.
constexpr int64_t kFallbackStreamGapNs = 1'000;
// A blocked host thread's return after the GPU work ends: 3-10 µs on the fixtures.
constexpr int64_t kFallbackWakeNs = 5'000;
// A synchronize with nothing left to wait for: ~2 µs (a cudaStreamSynchronize on an idle stream).
constexpr int64_t kFallbackWaitCallNs = 2'000;

int64_t percentile_or(std::vector<int64_t>& v, int64_t fallback) {
  if (v.size() < kMinSamples) return fallback;
  const auto at = v.begin() + static_cast<std::ptrdiff_t>(static_cast<double>(v.size() - 1) * kNominalPercentile);
  std::nth_element(v.begin(), at, v.end());
  return std::max<int64_t>(0, *at);
}

}  // namespace

NominalLags measure_nominal_lags(const Trace& t, const Graph& g) {
  (void)t;
  std::vector<int64_t> launch, gap, wake, wait_call;
  for (NodeId i = 0; i < g.size(); ++i) {
    const GraphNode& node = g.nodes[i];
    const NodeId p = g.prev[i];
    const auto [b, e] = g.in_edges(i);
    // Work a host wait sent (a Submit edge) waited for the host, not for its launch's own path.
    const bool submitted = std::any_of(b, e, [](const GraphEdge& x) { return x.kind == EdgeKind::Submit; });
    for (const GraphEdge* x = b; x != e; ++x) {
      const GraphNode& from = g.nodes[x->from];
      if (x->kind == EdgeKind::Launch) {
        if (submitted) continue;
        if (p == kNoNode || g.nodes[p].end_ns <= from.start_ns) launch.push_back(x->lag_ns);  // the stream was idle
        else if (from.start_ns < g.nodes[p].end_ns) gap.push_back(g.order_lag[i]);  // queued behind p
      } else if (x->kind == EdgeKind::HostSync) {
        if (from.end_ns >= node.start_ns) wake.push_back(x->lag_ns);
        else wait_call.push_back(node.end_ns - node.start_ns);
      }
    }
  }
  NominalLags n;
  n.launch_ns = percentile_or(launch, kFallbackLaunchNs);
  n.stream_gap_ns = percentile_or(gap, kFallbackStreamGapNs);
  n.wake_ns = percentile_or(wake, kFallbackWakeNs);
  n.wait_call_ns = percentile_or(wait_call, kFallbackWaitCallNs);
  return n;
}

}  // namespace whyslow
