// The times of the events so far, checked one event at a time against the limits that keep
// the analyses' int64 arithmetic exact. Real traces are minutes long and sum to hours.
#pragma once

#include <algorithm>
#include <cstdint>

#include "trace/trace_builder.hpp"

namespace whyslow {

// The range of times whyslow computes with: |ts| and |ts + dur| below 2^62 ns (146 years on
// either side of the trace's clock zero: Unix-epoch nanoseconds reach 2^62 in 2116). Any
// difference of two such times fits in int64 with room to spare, and no analysis has to check
// its arithmetic on end - start.
inline constexpr int64_t kMaxAbsTimeNs = int64_t{1} << 62;

struct TimeRange {
  // Between the earliest start and the latest end: below 2^62 ns (146 years). Any difference of
  // two times is then below 2^62, leaving 2^62 of headroom for what the analyses add to it
  // (rounding up a window to whole buckets, a step's end plus a margin).
  static constexpr int64_t kMaxSpanNs = int64_t{1} << 62;
  // All durations together: at most 2^62 ns. The analyses add up durations of subsets of the
  // events (per kernel name, per op, per step); bounding the total bounds every such sum.
  static constexpr uint64_t kMaxTotalDurationNs = uint64_t{1} << 62;

  int64_t min_start = INT64_MAX, max_end = INT64_MIN;
  uint64_t total_dur_ns = 0;  // unsigned: 2^62 + 2^62 fits

  // Adds an event whose start is already within ±2^62 (the parser checks it); returns what is
  // wrong with its times, or nullptr. Negative durations count as 0, as the builder stores them.
  const char* add(const ParsedEvent& e) {
    const int64_t dur = e.dur_ns > 0 ? e.dur_ns : 0;  // the parser: below 2^62
    const int64_t end = e.ts_ns + dur;                // below 2^63: no overflow
    if (end >= kMaxAbsTimeNs)
      return "the event ends ('ts' + 'dur') beyond the range whyslow reads, below ±2^62 ns (146 years "
             "from the trace's clock zero)";
    min_start = std::min(min_start, e.ts_ns);
    max_end = std::max(max_end, end);
    if (max_end - min_start >= kMaxSpanNs)  // both within ±2^62: the difference fits
      return "this event and an earlier one are 2^62 ns (146 years) or more apart: more than the "
             "span of times whyslow computes with";
    total_dur_ns += static_cast<uint64_t>(dur);  // at most 2^62 + 2^62: cannot wrap
    if (total_dur_ns > kMaxTotalDurationNs)
      return "the durations of the events up to this one add up to more than 2^62 ns (146 years), "
             "more than whyslow's 64-bit sums can hold";
    return nullptr;
  }
};

}  // namespace whyslow
