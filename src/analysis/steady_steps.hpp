// Steady state: the steps that represent the program's normal pace. Every comparison (findings
// per step, diffs between traces) uses these, so a cold-start outlier never skews a median.
#pragma once

#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// All steps but the cold-start outlier; the whole trace as one window when the trace has no
// ProfilerStep annotations, less its start-up stretch where it has one (Facts::steady_window).
std::vector<const StepFacts*> steady_steps(const Facts& facts);

// Index of the step whose [start, end] holds `ts`, or -1. `steps` must be in time order and not
// overlap (as measure_steps returns them): a binary search, since every event asks.
int step_containing(const std::vector<StepFacts>& steps, int64_t ts);

// Median of a field over steps (0 for none).
int64_t median_of(const std::vector<const StepFacts*>& steps, int64_t StepFacts::*field);
// Median of one CPU category over steps (0 for none).
int64_t median_of(const std::vector<const StepFacts*>& steps, CpuCategory category);

}  // namespace whyslow
