// The events of one track that start inside a time range: a binary search into Track::events
// (sorted by start), for the passes that look at what one thread did in a step or a gap.
#pragma once

#include <algorithm>
#include <span>

#include "trace/trace.hpp"

namespace whyslow {

// Events of `track` with start in [from, to) — to inclusive when `to_inclusive` — in start order.
inline std::span<const EventId> starting_in(const Trace& t, TrackId track, int64_t from, int64_t to,
                                            bool to_inclusive = false) {
  const std::vector<EventId>& ev = t.tracks[track].events;
  const auto by_start = [&](EventId e, int64_t ts) { return t.start_ns[e] < ts; };
  const auto first = std::lower_bound(ev.begin(), ev.end(), from, by_start);
  const auto last = to_inclusive ? std::upper_bound(first, ev.end(), to, [&](int64_t ts, EventId e) { return ts < t.start_ns[e]; })
                                 : std::lower_bound(first, ev.end(), to, by_start);
  return {first, last};
}

}  // namespace whyslow
