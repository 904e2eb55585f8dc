// First-call work: an op's first call on an input shape that takes far longer than its usual
// calls — a library's handle and heuristics at the op's first call in the program ("first call"),
// or, when the op already ran on another shape, work done once per new shape: cuDNN building an
// attention plan for a sequence length it has not seen ("first-seen shape"). A serving loop with
// varying prompt lengths pays the second in its steady steps, once per new length.
#pragma once

#include <string>
#include <vector>

#include "analysis/core/intervals.hpp"
#include "analysis/facts.hpp"

namespace whyslow {

// The ops judged: the outermost ops with recorded input shapes (inside compiled regions too), and
// top-level ops with none above or below them. `held`: time already explained (merged intervals:
// compilation, host waits), taken out of each call's time. Only calls that start in [from, to].
std::vector<FirstCall> first_call_work(const Trace& trace, const std::vector<StepFacts>& steps, int64_t from, int64_t to,
                                       const std::vector<Interval>& held);

// Facts::first_calls for analyze(): over the steps (else the window), with compilation and the
// host's waits on the GPU as the time already explained.
FirstCallFacts first_calls(const Trace& trace, const Facts& facts);

// "[64, 512]" from an op's "Input Dims" text "[[64, 512], [2048, 512], []]": its first input, the
// shape that tells one call from another; "?" without shapes.
std::string first_input_text(const Trace& trace, NameId dims);

// The time a host spends waiting (syncs, blocking copies) inside [from, to], merged.
std::vector<Interval> host_wait_intervals(const Trace& trace, int64_t from, int64_t to);

}  // namespace whyslow
