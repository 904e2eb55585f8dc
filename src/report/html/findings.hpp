// The findings part of the HTML report's data: each finding as `explain --json` states it, plus
// what the page marks on the timeline for it, by role as the rule chose them (Finding::highlights):
// spans to shade, events to outline, the GPU work that ran while the CPU waited, and launch →
// start pairs whose queue delay is drawn.
#pragma once

#include <vector>

#include "explain/finding.hpp"
#include "report/html/json.hpp"
#include "report/html/timeline.hpp"

namespace whyslow::report {

// Writes the key "findings" into the open object of `w`. Times are ns from the window's start.
void write_findings(CompactJson& w, const Trace& trace, const Facts& facts, const std::vector<Finding>& findings,
                    const TimelineIndex& index);

}  // namespace whyslow::report
