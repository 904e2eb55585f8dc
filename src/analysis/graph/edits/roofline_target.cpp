// Kernels at a reachable share of their roof. Model: each kernel whose calls the roofline bounds by
// compute or memory (not latency, not unknown), whose calls last 20 µs or more, and which reaches
// under kReachablePct (75 %, roofline.hpp: what tuned library kernels reach) of the bounding roof
// runs at it: its duration times its share / 75 %. A kernel row of which only some calls qualify shrinks in
// proportion to their share of its time.
#include <fmt/core.h>

#include <unordered_map>

#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

// Shorter calls spend a tenth or more of their time in fixed start-up and drain (~2 µs).
constexpr int64_t kMinCallNs = 20'000;

}  // namespace

EditOutcome edit_roofline_target(const EditContext& c, std::string_view, GraphState& s) {
  EditOutcome out;
  const Facts& f = c.facts;
  std::unordered_map<NameId, double> factor;  // per kernel name: what its calls' durations take
  for (size_t i = 0; i < f.kernels.size() && i < f.roofline.kernels.size(); ++i) {
    const int64_t total = f.kernels[i].total_ns;
    if (total <= 0) continue;
    double kept = static_cast<double>(total);
    for (const RooflineGroup& g : f.roofline.kernels[i].groups) {
      const RooflineVerdict& v = g.verdict;
      if ((v.bound != Bound::Compute && v.bound != Bound::Memory) || g.calls == 0 || v.pct_of_peak <= 0 ||
          v.pct_of_peak >= kReachablePct || v.ns / static_cast<int64_t>(g.calls) < kMinCallNs)
        continue;
      kept -= static_cast<double>(v.ns) * (1.0 - v.pct_of_peak / kReachablePct);
    }
    if (kept < static_cast<double>(total)) factor[f.kernels[i].name] = std::max(0.0, kept / static_cast<double>(total));
  }
  if (factor.empty()) {
    out.why_not = fmt::format("no kernel the roofline models runs under {:.0f} % of its roof in calls of 20 µs or more", kReachablePct);
    return out;
  }
  const Graph& g = c.graph;
  int64_t before = 0, after = 0;
  uint64_t calls = 0;
  for (size_t i : c.steady) {
    if (c.spans[i].empty()) continue;
    for (NodeId w : step_work(g, c.spans[i])) {
      const auto it = factor.find(c.trace.name[g.nodes[w].event]);
      if (it == factor.end()) continue;
      before += s.dur[w];
      s.dur[w] = static_cast<int64_t>(static_cast<double>(s.dur[w]) * it->second);
      after += s.dur[w];
      ++calls;
    }
  }
  if (calls == 0) {
    out.why_not = "the steady steps launch none of the kernels under their roof";
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("{:.0f} kernel calls per step at {:.0f} % of their roof: {:.0f} → {:.0f} µs", static_cast<double>(calls) / steps,
                           kReachablePct, static_cast<double>(before) / steps / 1e3, static_cast<double>(after) / steps / 1e3);
  return out;
}

}  // namespace whyslow
