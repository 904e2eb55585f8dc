// The memory part of the JSON report (docs/JSON.md, "Memory"): `trace.memory` (each allocator),
// `steps[].memory` (the first GPU's, else the CPU's) and the top-level `memory` (what is live at
// the largest step peak). All null when the trace has no allocator records.
#pragma once

#include "analysis/facts.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow::report {

// How many allocations live at the peak the JSON lists (largest first; the roles' sums count all).
inline constexpr size_t kMemoryTopRows = 20;

void write_trace_memory(JsonWriter& w, const Facts& facts);             // inside "trace"
void write_step_memory(JsonWriter& w, const Facts& facts, size_t step);  // inside a step object
void write_memory(JsonWriter& w, const Trace& trace, const Facts& facts);  // top-level "memory"

}  // namespace whyslow::report
