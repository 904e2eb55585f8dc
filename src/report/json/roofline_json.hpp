// The roofline's part of the JSON report (docs/JSON.md): fields added to each `kernels` entry,
// and the top-level `ceilings` array.
#pragma once

#include "analysis/facts.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow::report {

// The roofline fields of kernel row `index`, written into the open kernel object.
void write_kernel_roofline(JsonWriter& w, const Trace& trace, const Facts& facts, size_t index);
// "ceilings": the roofs each GPU of the trace was held against.
void write_ceilings(JsonWriter& w, const Facts& facts);

}  // namespace whyslow::report
