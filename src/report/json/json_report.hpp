// `--json`: the documented, stable schema (docs/JSON.md) of `explain` and `diff`.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/diff_words.hpp"

namespace whyslow {

std::string render_json(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings);
// `gate` (--fail-if-slower): a top-level "gate" object; absent without it.
std::string render_diff_json(const Diff& diff, const report::DiffGate* gate = nullptr);
// `whyslow info --json`: what the trace holds (events per track, devices); no analysis.
std::string render_info_json(const Trace& trace);

}  // namespace whyslow
