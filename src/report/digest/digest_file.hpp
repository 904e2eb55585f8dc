// The per-rank digest as a file (docs/DIGEST.md): what the cross-rank passes read of one rank
// (RankDigest) and that rank's own findings, so `whyslow digest` (or whyslow-mpi's processes) can
// reduce each trace where it lies and `whyslow explain` can combine the digests later. Times are
// integer nanoseconds, so a digest read back is equal to the one written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/ranks/rank_digest.hpp"
#include "trace/load_trace.hpp"
#include "report/ranks_report.hpp"

namespace whyslow {

// Bumped when a field changes meaning or goes away; a reader refuses other versions.
inline constexpr int kDigestVersion = 2;  // 2: blocks carry their kind and GPU time
// The key that starts every digest: how a reader tells a digest from a trace.
inline constexpr std::string_view kDigestKey = "whyslow_digest";

struct RankSummary {
  RankDigest digest;
  std::vector<RankFindingLine> findings;
};

std::string render_digest_json(const RankSummary& summary);

// Throws LoadError (Schema) naming `source` and what is wrong: not a digest, another version, a
// missing, mistyped or repeated field, a name of a category, collective kind, finding or severity
// this build does not know, and values the cross-rank pass cannot compute with: trace_steps 0,
// negative durations, times outside ±2^62 ns, blocks not sorted by kind and name, a rank not below
// world_size.
RankSummary parse_digest_json(std::string_view text, const std::string& source);

// The digest file at `path`: LoadError (Io) when it cannot be read, TooLarge when it holds more
// than `max_bytes` (a digest is one JSON value, held whole with simdjson's index: --max-value-size
// bounds it as it bounds a trace's values), as parse_digest_json otherwise.
RankSummary read_digest_file(const std::string& path, size_t max_bytes = kDefaultMaxValueBytes);

// True when the file at `path` starts (white space aside) with { "whyslow_digest" — a digest, not
// a trace. Reads only the first bytes; false for a file it cannot open (the trace loader reports that)
// and for a pipe or device, whose first bytes must be left for the loader: a digest is a file.
bool is_digest_file(const std::string& path);

}  // namespace whyslow
