#include "explain/explain_ranks.hpp"

#include <algorithm>

namespace whyslow {
std::vector<RankFinding> explain_ranks(const CrossRankFacts& facts) {
  std::vector<RankFinding> out;
  rule_straggler(facts, out);
  for (RankFinding& r : out)
    if (Finding& x = r.finding; x.impact_basis_ns > 0 && static_cast<double>(x.impact_ns) < kMinWarningCostShare * static_cast<double>(x.impact_basis_ns))
      x.severity = Severity::Info;
  std::stable_sort(out.begin(), out.end(),
                   [](const RankFinding& a, const RankFinding& b) { return a.finding.severity > b.finding.severity; });
  return out;
}

}  // namespace whyslow
