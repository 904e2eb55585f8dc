// Steady state: the steps that represent the program's normal pace. Every comparison (findings
// per step, diffs between traces) uses these, so a cold-start outlier never skews a median.
#pragma once

#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// All steps but the cold-start outlier; the whole trace as one window when the trace has no
// ProfilerStep annotations.
std::vector<const StepFacts*> steady_steps(const Facts& facts);

// Median of a field over steps (0 for none).
int64_t median_of(const std::vector<const StepFacts*>& steps, int64_t StepFacts::*field);

}  // namespace whyslow
