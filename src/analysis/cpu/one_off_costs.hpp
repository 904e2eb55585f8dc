// Every one-off cost of a trace, by kind: what a program pays once (or once per new input shape)
// and not again in the steps that follow — compilation and each recompilation, module and lazy
// loading, context creation, slow first uses, first calls and first-seen shapes. `whyslow diff`
// compares what was profiled (one-off costs included) with the program once warm (without them),
// and the break-even between the two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

struct OneOffPart {
  // "compilation", "recompilation", "first_seen_shape", "first_call", and cold_start's classes
  // ("module_loading", "lazy_loading", "context_creation", "slow_first_use", "memory_allocation",
  // "stream_event_creation", "library_setup").
  std::string kind;
  uint64_t count = 0;
  int64_t ns = 0;
  std::string detail;  // "input [64, 512] → [80, 512]", "aten::_scaled_dot_product_cudnn_attention: 3 new shapes"
};

struct OneOffCosts {
  int64_t window_ns = 0;     // what was profiled: the first step's start to the last step's end (no steps: the window)
  size_t window_steps = 0;   // the steps in it; 0 without ProfilerStep annotations
  int64_t ns = 0;            // the parts summed (they do not overlap)
  std::vector<OneOffPart> parts;     // largest first
  std::vector<int64_t> per_step_ns;  // one per Facts::steps: the one-off time inside each step
};

OneOffCosts one_off_costs(const Trace& trace, const Facts& facts);

// "compilation 716 ms (3: input [64, 512] → [80, 512]), first_seen_shape 40.1 ms": the parts in words.
std::string one_off_words(const std::vector<OneOffPart>& parts, size_t at_most);

}  // namespace whyslow
