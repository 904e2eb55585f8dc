// Shared helpers for the rules' Highlights (finding.hpp): which events a timeline outlines,
// which GPU work it shows as covered by a wait, which launch → start delays it draws. Each helper
// caps what it adds, so a trace with 100 000 syncs does not produce a page twice its size.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "analysis/facts.hpp"
#include "analysis/core/intervals.hpp"
#include "explain/finding.hpp"

namespace whyslow {

// Enough outlines (and covered GPU events) to show the pattern; a trace with 100 000 syncs
// should not double the size of the page.
inline constexpr size_t kMaxMarks = 5000;

// Adds `e` to h.mark unless it is kNoEvent or the marks are full (highlight_named_events drops
// repeats).
void add_mark(Highlights& h, EventId e);

// The GPU work (kernels, copies, memsets) overlapping any of `merged` (disjoint, ascending), in
// event order, at most `max_events` of it.
std::vector<EventId> cover_gpu_work_during(const Trace& trace, const std::vector<Interval>& merged,
                                           size_t max_events);

// Marks every blocking call of `syncs` and covers the GPU work that ran while the CPU sat in one
// (often very little); the marks are waits, so a timeline shades the GPU lanes under them.
void highlight_waits(const Trace& trace, const SyncFacts& syncs, Highlights& h);

// The `n` longest launch call → GPU work delays in the trace, longest first (ties: earlier
// GPU event first), as (launch call, GPU work) pairs.
std::vector<std::pair<EventId, EventId>> longest_queue_delays(const Trace& trace, size_t n);

// What every finding gets on top of its rule's highlights: each event it names is outlined,
// ahead of the rule's marks, except a profiler step, which is shaded whole (a step outline would
// frame the whole lane). Drops repeated marks. explain() calls it once per finding.
void highlight_named_events(const Trace& trace, Finding& finding);

}  // namespace whyslow
