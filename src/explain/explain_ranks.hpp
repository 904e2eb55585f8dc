// explain for a job's ranks loaded together: the cross-rank rules (straggler), most important first.
#pragma once

#include <vector>

#include "analysis/ranks/cross_rank.hpp"
#include "explain/finding.hpp"

namespace whyslow {

void rule_straggler(const CrossRankFacts& facts, std::vector<Finding>& out);

std::vector<Finding> explain_ranks(const CrossRankFacts& facts);

}  // namespace whyslow
