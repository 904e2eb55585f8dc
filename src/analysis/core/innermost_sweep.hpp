// One sweep over a thread's events in nesting order (Track::events) that hands every instant to
// the innermost event open then: the CPU-time pass (cpu_time.cpp) credits categories with it, the
// dependency graph (graph/cpu_work.cpp) names its CPU nodes with it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

template <class Payload>
struct OpenEvent {
  int64_t end;
  Payload payload;
};

// From `cursor` to `until`: add(a, b, payload, open) gets each stretch [a, b) with the innermost
// open event's payload (payload_of(iterator) when it opened), or `none` and open = false where no
// event is open. Events [first, last) are taken in order; those of no duration, instants and the
// trace span open nothing. `stack` holds the events already open at `cursor`, outermost first.
template <class Payload, class PayloadOf, class Add>
inline void sweep_innermost(const Trace& t, std::vector<EventId>::const_iterator first,
                            std::vector<EventId>::const_iterator last, int64_t cursor, int64_t until,
                            std::vector<OpenEvent<Payload>> stack, Payload none, PayloadOf&& payload_of, Add&& add) {
  auto close_until = [&](int64_t ts) {
    while (!stack.empty() && stack.back().end <= ts) {
      add(cursor, stack.back().end, stack.back().payload, true);
      cursor = std::max(cursor, stack.back().end);
      stack.pop_back();
    }
    if (stack.empty()) add(cursor, ts, none, false);
    else add(cursor, ts, stack.back().payload, true);
    cursor = std::max(cursor, ts);
  };
  for (auto it = first; it != last; ++it) {
    const EventId e = *it;
    if (t.dur_ns[e] <= 0 || t.kind[e] == EventKind::Instant || t.kind[e] == EventKind::TraceSpan) continue;
    close_until(t.start_ns[e]);
    stack.push_back({t.end_ns(e), payload_of(it)});
  }
  close_until(until);
}

}  // namespace whyslow
