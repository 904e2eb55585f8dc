// `--json`: the documented, stable schema (docs/JSON.md) of `explain` and `diff`.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"

namespace whyslow {

std::string render_json(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings);
std::string render_diff_json(const Diff& diff);
// `whyslow info --json`: what the trace holds (events per track, devices); no analysis.
std::string render_info_json(const Trace& trace);

}  // namespace whyslow
