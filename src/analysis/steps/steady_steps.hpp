// Steady state: the steps that represent the program's normal pace. Every comparison (findings
// per step, diffs between traces) uses these, so a cold-start outlier never skews a median.
#pragma once

#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// What the trace records: a steady state, or a warm-up that no steady-state verdict applies to —
// CUDA-graph capture (captures span ≥ 20 % of the window) or, without steps, torch.compile's
// compilation (≥ 50 % of the window; with steps, cold_start leaves the compiling step out) or a
// first call recorded alone (cold_start's start-up work ≥ 50 % of a window with no start-up
// stretch to cut off and no loop).
enum class TraceKind : uint8_t { Steady, GraphCapture, CompileWarmup, FirstCall };
TraceKind trace_kind(const Facts& facts);
std::string_view to_string(TraceKind kind);  // "steady", "graph_capture", "compile_warmup", "first_call"

// All steps but the cold-start outlier and, while two or more remain, the steps paying for
// first-seen input shapes (≥ 5 % of the step: Facts::first_calls); the whole trace as one window when the trace has no
// ProfilerStep annotations, less its start-up stretch where it has one (Facts::steady_window).
std::vector<const StepFacts*> steady_steps(const Facts& facts);

// Index of the step whose [start, end] holds `ts`, or -1. `steps` must be in time order and not
// overlap (as measure_steps returns them): a binary search, since every event asks.
int step_containing(const std::vector<StepFacts>& steps, int64_t ts);

// step_containing() for a pass that asks of every event: each lookup starts from the previous
// answer (common/gallop.hpp), since consecutive events mostly fall in the same step or the next,
// over a compact array of the steps' starts. `steps` must outlive it.
class StepLookup {
 public:
  explicit StepLookup(const std::vector<StepFacts>& steps);
  StepLookup(const StepLookup&) = delete;  // after_ points into starts_
  StepLookup& operator=(const StepLookup&) = delete;
  int of(int64_t ts);

 private:
  const std::vector<StepFacts>& steps_;
  std::vector<int64_t> starts_;
  std::vector<int64_t>::const_iterator after_;  // the first step starting after the last time asked
};

// Median of a field over steps (0 for none).
int64_t median_of(const std::vector<const StepFacts*>& steps, int64_t StepFacts::*field);
int64_t median_of(const std::vector<const StepFacts*>& steps, uint32_t StepFacts::*field);  // counts
// Median of one CPU category over steps (0 for none).
int64_t median_of(const std::vector<const StepFacts*>& steps, CpuCategory category);

}  // namespace whyslow
