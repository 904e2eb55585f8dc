// `whyslow explain` of several ranks: the per-rank table, the cross-rank findings (straggler) and
// each rank's own findings by title. JSON schema in docs/JSON.md ("Many ranks").
#pragma once

#include <string>
#include <vector>

#include "analysis/ranks/cross_rank.hpp"
#include "explain/explain_ranks.hpp"
#include "report/format.hpp"

namespace whyslow {

struct RankFindingLine {
  FindingId id;
  Severity severity = Severity::Info;
  std::string title;
};

struct RanksReport {
  CrossRankFacts facts;
  std::vector<std::vector<RankFindingLine>> rank_findings;  // per rank, facts.ranks order
  std::vector<RankFinding> findings;                        // cross-rank
};

std::string render_ranks_json(const RanksReport& report);
// line_width: the columns its prose wraps at (TextOptions::line_width).
std::string render_ranks_text(const RanksReport& report, size_t line_width);

}  // namespace whyslow
