// `--json`: the documented, stable schema (docs/JSON.md) of `explain`, `diff`, `info` and `what-if`.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/diff_words.hpp"

namespace whyslow {

struct WhatIfAnswer;  // analysis/graph/what_if.hpp

std::string render_json(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings);
// `gate` (--fail-if-slower): a top-level "gate" object; absent without it.
std::string render_diff_json(const Diff& diff, const report::DiffGate* gate = nullptr);
// `whyslow info --json`: what the trace holds (events per track, devices); no analysis.
std::string render_info_json(const Trace& trace);
// `whyslow what-if --json`: the edited step ("what_if"), what each edit changed, its critical path.
std::string render_what_if_json(const WhatIfAnswer& answer);

}  // namespace whyslow
