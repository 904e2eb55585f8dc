// Writes a recording window as Kineto's Chrome-trace JSON (the format torch.profiler's
// export_chrome_trace writes; see ../shared/traces/public/FORMAT.md): the same categories, args
// names, ac2g flows, deviceProperties, baseTimeNanoseconds, and times as "<µs>.<3 digits>"
// relative to the base, so Perfetto, HTA and whyslow read it like a torch trace.
#pragma once

#include <string>

#include "profiler/recorded_trace.hpp"

namespace whyslow::profiler_detail {

// gzip when `path` ends in ".gz"; whole or not at all (src/output/output_file.hpp). Throws ProfilerError.
void write_chrome_trace(const RecordedTrace& trace, const std::string& path);

}  // namespace whyslow::profiler_detail
