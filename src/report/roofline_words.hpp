// The roofline's verdicts in words, for every renderer (text, JSON's bound_reason, HTML).
#pragma once

#include <string>

#include "analysis/roofline.hpp"

namespace whyslow::report {

// "intensity 683 FLOP/B ≥ ridge 14 (67.0 TFLOP/s fp32 / 4.80 TB/s)", "4 blocks for 132 SMs: most
// of the GPU idles", "no datasheet peaks for 'Tesla V100-SXM2-16GB' (pass --peaks FILE)".
std::string describe_bound(const BoundBasis& why);

}  // namespace whyslow::report
