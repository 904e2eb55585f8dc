// explain for a job's ranks loaded together: the cross-rank rules (straggler), most important first.
#pragma once

#include <vector>

#include "analysis/ranks/cross_rank.hpp"
#include "explain/finding.hpp"

namespace whyslow {

// A cross-rank finding, and the rank and block it blames where it names one (the straggler's cause).
struct RankFinding {
  Finding finding;
  bool has_cause = false;
  int32_t cause_rank = -1;
  StragglerCause cause;
};

void rule_straggler(const CrossRankFacts& facts, std::vector<RankFinding>& out);

std::vector<RankFinding> explain_ranks(const CrossRankFacts& facts);

}  // namespace whyslow
