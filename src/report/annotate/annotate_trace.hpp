// `whyslow annotate TRACE -o OUT`: the input trace, byte for byte, with the "whyslow findings"
// track (annotate_events.hpp) added at the end of its traceEvents array, for Perfetto users.
#pragma once

#include <string>
#include <vector>

#include "explain/finding.hpp"

namespace whyslow {

// Streams `input` (plain or gzip) to `output`, gzip-compressed when `output` ends in ".gz". The
// input is never written: the output goes to a temporary file renamed into place at the end, and
// an output that is the input is refused. Throws std::runtime_error (what to fix) on failure and
// LoadError when the input cannot be read.
void write_annotated_trace(const std::string& input, const std::string& output, const Trace& trace,
                           const Facts& facts, const std::vector<Finding>& findings);

}  // namespace whyslow
