// The critical path the HTML report draws over its timeline: one steady step's
// (GraphFacts::path, src/analysis/graph/step_replay.cpp), segment by segment on the page's lanes.
#pragma once

#include "analysis/facts.hpp"
#include "report/html/json.hpp"
#include "report/html/timeline.hpp"

namespace whyslow::report {

// Writes the key "critical_path" into the open object of `w`: null where the graph drew no path or
// the page does not hold every event on it (select_events() embeds them); else {step: index into
// "steps" (-1 for a trace without steps), name, start and end of the path and step_end, its step's
// (ns from the window's start; past the path's end where it was cut), segments: flat PathField
// tuples in time order (page_schema.hpp)}.
void write_path_overlay(CompactJson& w, const Facts& facts, const TimelineIndex& index);

}  // namespace whyslow::report
