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

// The default limits on a whole trace: its events and its JSON once inflated. A few compressed
// bytes can stand for millions of tiny events (a 0.9 MB .gz of 4M "{}" events took 342 MB, ~80
// bytes per event in the trace's columns), so without them a 100 MB .gz could ask for ~40 GB.
// The largest traces measured here (README: bench/out/big.json, 542 MB, 1.34 M events; big2g.json,
// 2.2 GB, ~5.4 M events) are far below 2^25 events (33.5 M, ~3 GB of columns at ~90 bytes an
// event; 2^27 allowed ~11 GB, and ~35 GB of "B" events before kMaxOpenDurations) and 2^36 bytes
// (64 GiB) of JSON, which a real trace does not meet; --max-events and --max-inflated raise (or
// lower) them.
inline constexpr uint64_t kDefaultMaxEvents = uint64_t{1} << 25;
inline constexpr uint64_t kDefaultMaxInflatedBytes = uint64_t{1} << 36;

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
  // More events, or more bytes of JSON (after gunzip), is a LoadError (TooLarge) naming the limit
  // and its flag.
  uint64_t max_events = kDefaultMaxEvents;
  uint64_t max_inflated_bytes = kDefaultMaxInflatedBytes;
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

// False for a file that is valid JSON of another kind: an object without 'traceEvents' (a folder
// of rank traces may hold such a file beside them: the truth.json of tools/make_rank_traces.py,
// a digest). Reads the top-level keys before the events and no event; true for a trace and for a
// file it cannot read or parse, which load_trace then reports.
bool holds_trace_events(const std::string& path);

}  // namespace whyslow
