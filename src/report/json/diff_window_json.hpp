// diff --json: the verdict's two answers (over what was profiled, once warm), the one-off costs
// between them and the break-even (docs/DIFF.md "Two questions").
#pragma once

#include "diff/diff.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow {

void write_window_and_steady(report::JsonWriter& w, const Diff& d);

}  // namespace whyslow
