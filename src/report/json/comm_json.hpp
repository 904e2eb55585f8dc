// The communication part of `--json` (docs/JSON.md, "Communication"): compute / comm / exposed
// comm of the trace and of each step, and the collectives table.
#pragma once

#include "analysis/facts.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow::report {

// Inside the `trace` object: compute_us, comm_us, exposed_comm_us (of the whole window), link.
void write_trace_comm(JsonWriter& w, const Trace& trace, const Facts& facts);
// Inside a `steps[]` object: compute_us, comm_us, exposed_comm_us.
void write_step_comm(JsonWriter& w, const StepFacts& step);
// The top-level `collectives` array, one object per NCCL/RCCL kernel.
void write_collectives(JsonWriter& w, const Trace& trace, const Facts& facts);

}  // namespace whyslow::report
