// The loops' part of the JSON report (docs/JSON.md): the top-level `loops` array.
#pragma once

#include "analysis/facts.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow::report {

// "loops": steps whose top-level work repeats, split into their iterations (analysis/steps/loops.cpp).
void write_loops(JsonWriter& w, const Trace& trace, const Facts& facts);

}  // namespace whyslow::report
