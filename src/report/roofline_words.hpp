// The roofline's verdicts in words, for every renderer (text, JSON's bound_reason, HTML).
#pragma once

#include <string>

#include "analysis/roofline/roofline.hpp"

namespace whyslow::report {

// "intensity 683 FLOP/B ≥ ridge 14 (67.0 TFLOP/s fp32 / 4.80 TB/s)", "4 blocks for 132 SMs: most
// of the GPU idles", "no datasheet peaks for 'Tesla V100-SXM2-16GB' (pass --peaks FILE)".
std::string describe_bound(const BoundBasis& why);

// Why calls have no model: "no model for aten::sort", "aten::conv2d: stride, padding or dilation
// not recorded"; "" when there is one.
std::string describe_no_model(const NoModel& why);

// Why a --peaks file was not used for a GPU: "--peaks was measured on …, not on this …: not
// used"; "" when it was used or none was given.
std::string describe_unused_peaks(const DeviceCeilings& d);

}  // namespace whyslow::report
