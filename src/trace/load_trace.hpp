// Entry point of the loader: a Kineto / Chrome-trace JSON file (plain or gzip) → Trace.
#pragma once

#include <string>

#include "trace/trace.hpp"

namespace whyslow {

struct LoadOptions {
  // Analyze the complete events before the cut of a truncated file instead of failing.
  bool allow_truncated = false;
};

// Throws LoadError (file, byte offset, what was expected) on unreadable or malformed input,
// and LoadError::Kind::Truncated on a file that ends mid-trace unless allow_truncated.
Trace load_trace(const std::string& path, const LoadOptions& options = {});

}  // namespace whyslow
