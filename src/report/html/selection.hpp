// Which events the HTML report embeds one by one. A page cannot hold a 500 MB trace, and a
// screen cannot show a million rectangles: past a budget, the page keeps every event inside a
// few detail windows (the outlier steps, steady-state steps, the events the findings point at)
// plus every event long enough to be seen with the whole trace on screen and the events of the
// critical path it draws. What is left is drawn
// from per-pixel summaries (timeline.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"

namespace whyslow::report {

struct TimeWindow {
  int64_t start_ns = 0, end_ns = 0;
};

struct Selection {
  std::vector<uint8_t> embedded;    // per event: 1 when the page gets it one by one
  std::vector<TimeWindow> windows;  // where every event is embedded; ascending, disjoint
  bool complete = false;            // every drawable event is embedded
  size_t drawable = 0, embedded_count = 0;
};

// Events that get a rectangle: everything but instants and the profiler's own window span.
bool is_drawable(const Trace& trace, EventId e);

// `budget`: about how many events to embed (long events and events enclosing a window's start
// can add a few more).
Selection select_events(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings,
                        size_t budget);

// The events of one window (a typical step, for the comparison page): its first `budget` events
// when it has more; the rest of the trace is summarised.
Selection select_window(const Trace& trace, TimeWindow window, size_t budget);

}  // namespace whyslow::report
