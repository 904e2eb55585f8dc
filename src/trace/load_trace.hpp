// Entry point of the loader: a Kineto / Chrome-trace JSON file (plain or gzip) → Trace.
#pragma once

#include <cstddef>
#include <string>

#include "trace/trace.hpp"

namespace whyslow {

// The default limit on one JSON value (an event, or a top-level value such as
// deviceProperties). The loader holds a whole value in memory, and simdjson indexes it with a
// few bytes per byte: without a limit a 1 MB .gz expanding to a 1 GiB string took 6 GB. The
// largest event in the public corpus is a few hundred kB (a kernel with long Concrete Inputs),
// so 64 MiB leaves two orders of magnitude and bounds the loader's peak at a few hundred MB.
inline constexpr size_t kDefaultMaxValueBytes = size_t{64} << 20;

struct LoadOptions {
  // Analyze the complete events before the cut of a truncated file instead of failing.
  bool allow_truncated = false;
  // A larger value is a LoadError (TooLarge) naming it and the flag that raises the limit.
  size_t max_value_bytes = kDefaultMaxValueBytes;
};

// Throws LoadError (file, byte offset, what was expected) on unreadable or malformed input,
// and LoadError::Kind::Truncated on a file that ends mid-trace unless allow_truncated.
Trace load_trace(const std::string& path, const LoadOptions& options = {});

}  // namespace whyslow
