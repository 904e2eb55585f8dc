// `whyslow annotate TRACE -o OUT`: the input trace, byte for byte, with the "whyslow findings"
// track (annotate_events.hpp) added at the end of its traceEvents array, for Perfetto users.
#pragma once

#include <string>
#include <vector>

#include "explain/finding.hpp"
#include "report/annotate/annotate_input.hpp"

namespace whyslow {

// Streams `input` (plain or gzip) to `output`, gzip-compressed when `output` ends in ".gz". The
// input is never written: `output` is written whole or not at all (src/output/output_file.hpp),
// and refused when it is the input. A truncated input (trace.truncated: loaded with
// --allow-truncated) is written up to its last complete event, as the loader read it, then the
// track, then the brackets that close the document. Throws OutputError or std::runtime_error
// (what to fix) on failure and LoadError when the input cannot be read.
void write_annotated_trace(const RereadableInput& input, const std::string& output, const Trace& trace,
                           const Facts& facts, const std::vector<Finding>& findings);

}  // namespace whyslow
