// Entry point of the loader: a Kineto / Chrome-trace JSON file (plain or gzip) → Trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "common/usable_cores.hpp"
#include "trace/trace.hpp"

namespace whyslow {

// The default limit on one JSON value (an event, or a top-level value such as
// deviceProperties). The loader holds a whole value in memory, and simdjson indexes it with a
// few bytes per byte: without a limit a 1 MB .gz expanding to a 1 GiB string took 6 GB. The
// largest event in the public corpus is a few hundred kB (a kernel with long Concrete Inputs),
// so 64 MiB leaves two orders of magnitude and bounds the loader's peak at a few hundred MB.
inline constexpr size_t kDefaultMaxValueBytes = size_t{64} << 20;

// How far a load has got, for a progress display.
struct LoadProgress {
  uint64_t bytes = 0;            // uncompressed bytes read
  uint64_t file_bytes = 0;       // bytes of the file on disk read (compressed bytes for .gz)
  uint64_t file_size = 0;        // the file's size on disk
  uint64_t events = 0;           // events framed so far
  bool done = false;             // the last call: the load has finished (or failed)
};

struct LoadOptions {
  // Analyze the complete events before the cut of a truncated file instead of failing.
  bool allow_truncated = false;
  // A larger value is a LoadError (TooLarge) naming it and the flag that raises the limit.
  size_t max_value_bytes = kDefaultMaxValueBytes;
  // Called on the loading thread about once per MiB of JSON, and once with done = true at the
  // end; empty: no calls.
  std::function<void(const LoadProgress&)> progress = nullptr;
  // The cores the load plans its threads for; 0: usable_cores() (the process's CPU affinity, or
  // the calling thread's CoreShare). From four on, framing gets a thread of its own
  // (parse_pipeline.hpp).
  unsigned cores = 0;
};

// The cores a load with these options plans for.
inline unsigned load_cores(const LoadOptions& options) { return options.cores ? options.cores : usable_cores(); }

// Throws LoadError (file, byte offset, what was expected) on unreadable or malformed input,
// and LoadError::Kind::Truncated on a file that ends mid-trace unless allow_truncated.
// Thread-safe: loads of different files (or the same file) may run on several threads at once;
// each load also runs helper threads of its own (read/inflate, parse, and on four cores or more
// framing), sized by LoadOptions::cores.
Trace load_trace(const std::string& path, const LoadOptions& options = {});

}  // namespace whyslow
