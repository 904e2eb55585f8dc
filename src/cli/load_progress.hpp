// The progress line a long load shows on stderr: bytes read, MB/s, events, time left.
#pragma once

#include <functional>
#include <string>

#include "trace/load_trace.hpp"

namespace whyslow::cli {

// A LoadOptions::progress callback for `path`, or an empty one when stderr is not a terminal
// (CI logs and pipes stay clean). It stays silent for the first kProgressDelay of a load, so
// only loads that take longer show anything, and erases its line when the load ends.
std::function<void(const LoadProgress&)> terminal_load_progress(const std::string& path);

}  // namespace whyslow::cli
