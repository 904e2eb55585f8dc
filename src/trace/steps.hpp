// What a step is, defined once: a `ProfilerStep#N` event on a CPU thread, as torch.profiler's
// prof.step() records it (category user_annotation; 2021 traces: cpu_op). Its mirror on the GPU
// lane (gpu_user_annotation) is not a step, and neither is a name that merely starts alike
// ("ProfilerStep#" without a number).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

// "ProfilerStep#12" → 12; anything else → nullopt.
std::optional<int64_t> profiler_step_number(std::string_view name);
// The name test alone, for tables keyed by name (torch's key_averages groups "ProfilerStep*").
inline bool is_profiler_step_name(std::string_view name) { return profiler_step_number(name).has_value(); }

bool is_profiler_step(const Trace& t, EventId e);

// Every step of the trace, in time order; a step nested inside another is part of that one's
// window, not a step.
std::vector<EventId> profiler_steps(const Trace& t);

// The steps named ProfilerStep#n, in time order: none, one, or (a trace of several profiling
// sessions, a hand-made one) several.
std::vector<EventId> find_profiler_steps(const Trace& t, int64_t n);

}  // namespace whyslow
