// Pointwise chains fused. Model: each chain of back-to-back pointwise kernels the roofline found
// (pointwise_chains.cpp) launched in a steady step becomes one kernel that moves only the chain's
// inputs and its result, at the bandwidth the chain reaches now: the first kernel takes the chain's
// time × (bytes − intermediates) / bytes, the others nothing; their launch calls and the dispatch
// of the ops that launched them go (one fused op is one call).
#include <fmt/core.h>

#include <algorithm>
#include <unordered_map>

#include "analysis/graph/edits/edits.hpp"

namespace whyslow {

EditOutcome edit_fuse(const EditContext& c, std::string_view, GraphState& s) {
  EditOutcome out;
  const Trace& t = c.trace;
  const Graph& g = c.graph;
  // The steady steps' GPU work by event, with the node of the call that launched it.
  std::unordered_map<EventId, std::pair<NodeId, NodeId>> steady_work;  // kernel → (its node, its launch node)
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    auto it = std::lower_bound(g.launches.begin(), g.launches.end(), std::pair<NodeId, NodeId>{sp.first, 0});
    for (; it != g.launches.end() && it->first <= sp.last; ++it) steady_work[g.nodes[it->second].event] = {it->second, it->first};
  }
  uint64_t chains = 0, removed = 0;
  int64_t before = 0, after = 0;
  for (const PointwiseChain& chain : c.facts.roofline.chains) {
    if (chain.kernels.size() < 2 || chain.bytes <= 0) continue;
    std::vector<std::pair<NodeId, NodeId>> nodes;
    for (EventId k : chain.kernels) {
      const auto it = steady_work.find(k);
      if (it != steady_work.end()) nodes.push_back(it->second);
    }
    if (nodes.size() != chain.kernels.size()) continue;  // the chain is not all in the steady steps
    int64_t ns = 0;
    for (const auto& [work, call] : nodes) ns += s.dur[work];
    const double kept = std::clamp((chain.bytes - chain.saved_bytes) / chain.bytes, 0.0, 1.0);
    before += ns;
    s.dur[nodes.front().first] = static_cast<int64_t>(static_cast<double>(ns) * kept);
    after += s.dur[nodes.front().first];
    for (size_t k = 1; k < nodes.size(); ++k) {
      const auto [work, call] = nodes[k];
      s.dur[work] = 0;
      s.dur[call] = 0;
      // The op that launched it: its dispatch (CPU work inside it on the launching lane) goes too.
      const EventId op = t.op_link[g.nodes[work].event];
      if (op == kNoEvent) continue;
      const GraphLane& lane = g.lanes[g.nodes[call].lane];
      auto first = std::lower_bound(lane.nodes.begin(), lane.nodes.end(), t.start_ns[op],
                                    [&](NodeId n, int64_t ts) { return g.nodes[n].end_ns <= ts; });
      for (auto n = first; n != lane.nodes.end() && g.nodes[*n].start_ns < t.end_ns(op); ++n) {
        if (g.nodes[*n].kind != NodeKind::CpuWork) continue;
        const int64_t overlap = std::min(g.nodes[*n].end_ns, t.end_ns(op)) - std::max(g.nodes[*n].start_ns, t.start_ns[op]);
        s.dur[*n] = std::max<int64_t>(0, s.dur[*n] - std::min(overlap, g.graph_skippable_ns[*n]));
      }
      ++removed;
    }
    ++chains;
  }
  if (chains == 0) {
    out.why_not = "the steady steps run no chain of back-to-back pointwise kernels";
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("{:.0f} pointwise chains per step fused ({:.0f} kernels and their launches fewer): {:.0f} → {:.0f} µs",
                           static_cast<double>(chains) / steps, static_cast<double>(removed) / steps,
                           static_cast<double>(before) / steps / 1e3, static_cast<double>(after) / steps / 1e3);
  return out;
}

}  // namespace whyslow
