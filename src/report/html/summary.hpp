// The summary part of the HTML report's data: what the trace is (file, device, window), where
// the page has every event, the colour classes, and the numbers behind the charts (steps, GPU
// time by kernel, time by annotation).
#pragma once

#include "analysis/facts.hpp"
#include "report/html/json.hpp"
#include "report/html/selection.hpp"

namespace whyslow::report {

// Writes the keys "meta", "windows", "classes", "steps", "cold_step", "kernels" and "annotations"
// into the open object of `w`. Times are ns from the trace window's start.
void write_summary(CompactJson& w, const Trace& trace, const Facts& facts, const Selection& selection);

}  // namespace whyslow::report
