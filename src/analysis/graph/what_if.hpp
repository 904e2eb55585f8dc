// The graph's answers: each step replayed with its critical path, and the step each edit predicts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// Builds the graph, replays every step, walks each step's critical path and runs every default
// edit that applies (and all of them together). analyze() calls it last; the graph is dropped.
GraphFacts analyze_graph(const Trace& trace, const Facts& facts);

// One edit as asked for: its name and parameter ("cuda-graphs", "reduce-overhead").
struct EditRequest {
  std::string name, param;
};
// `whyslow what-if`: the edits applied together, replayed. `result.step_ns` / `predicted_step_ns`
// are the steady step (or the cold step, for one-off alone) before and after; `critical_path` the
// predicted steady step's (its first step's). Throws std::invalid_argument naming an unknown edit
// or one that does not apply, with the reason.
struct WhatIfAnswer {
  WhatIf result;
  std::vector<PathPart> critical_path;
  std::vector<std::string> changes;  // one line per edit
};
WhatIfAnswer what_if(const Trace& trace, const Facts& facts, const std::vector<EditRequest>& edits);

// Parses "name" or "name=param".
EditRequest parse_edit(std::string_view text);

}  // namespace whyslow
