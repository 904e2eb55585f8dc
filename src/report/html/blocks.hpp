// The blocks of the user's code for the HTML report's tree (page/blocks.js).
#pragma once

#include "analysis/facts.hpp"
#include "report/html/json.hpp"

namespace whyslow::report {

// "blocks": {"cpu_ns", "gpu_ns" (the basis), "rows": BlockField tuples}.
void write_blocks(CompactJson& w, const Trace& trace, const Facts& facts);

}  // namespace whyslow::report
