// The roofline part of the HTML report's data: the GPU's roofs (memory bandwidth, peak rate per
// precision: the datasheet's, and measured ones from --peaks) and one point per kernel whose FLOPs
// and bytes whyslow could model (analysis/roofline/roofline.hpp).
#pragma once

#include "analysis/facts.hpp"
#include "report/html/json.hpp"

namespace whyslow::report {

// Writes the key "roofline": null when no kernel has a model or the GPU has no known roofs.
void write_roofline(CompactJson& w, const Trace& trace, const Facts& facts);

}  // namespace whyslow::report
