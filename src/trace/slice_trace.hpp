// A sub-trace of one time window (`whyslow explain --step N`): the CPU-side events that start in
// the window, and the GPU work launched from it (wherever on the GPU timeline it ran). The result
// is a complete Trace — tracks, nesting and links rebuilt — so every analysis runs on it unchanged.
#pragma once

#include "trace/trace.hpp"

namespace whyslow {

Trace slice_trace(const Trace& trace, int64_t start_ns, int64_t end_ns);

}  // namespace whyslow
