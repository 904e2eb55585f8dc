// The timeline part of the HTML report's data: one lane per CPU thread, GPU stream or other
// device queue, each with its embedded events as columns (start as a delta from the previous
// event, duration, name, colour class and nesting depth, launch details), the launch → GPU-work
// flows, and per-pixel summaries of the events that were not embedded.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/facts.hpp"
#include "report/html/json.hpp"
#include "report/html/selection.hpp"

namespace whyslow::report {

// Nesting is drawn row by row this deep: past the deepest stacks of real traces (77 levels in the
// public corpus, vLLM's CUDA-graph capture recorded with_stack; OWLv2 44), while an expanded lane
// stays a few screens tall (128 rows of 16 px). Events nested deeper (runaway recursion) are all
// drawn on one more row, row kMaxLaneRows, flattened (inner over outer), and the page says so.
inline constexpr int kMaxLaneRows = 128;
// Lanes drawn at most: the busiest threads and streams. Real traces have tens of threads; a
// 200k-thread trace made a 20 MB page of 200k lanes nobody can scroll. The rest are counted in
// "hidden_lanes" and the page says so.
inline constexpr size_t kMaxTimelineLanes = 1000;
// Summary resolution for events not embedded: buckets across the whole trace window.
inline constexpr int64_t kOverviewBuckets = 2000;

struct TimelineIndex {
  std::vector<int32_t> of_event;  // the page's index of each embedded event; -1 when not embedded
  std::vector<int32_t> lane_of_track;  // the page's lane of each track's events (not its Python frames); -1 when not drawn
};

// Writes the keys "lanes", "strings", "gpu_details", "shapes", "flows", "overview_buckets",
// "flattened_deep" (events on the lanes' flattened rows) and "hidden_lanes" into the open object
// of `w`. Times are ns from the trace window's start.
TimelineIndex write_timeline(CompactJson& w, const Trace& trace, const Facts& facts, const Selection& selection);

}  // namespace whyslow::report
