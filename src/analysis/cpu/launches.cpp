// Launch queue: how long each piece of GPU work waited between its launch call starting on the
// CPU and its start on the GPU. Asynchronous dispatch makes this delay the queue's length when the
// GPU is busy meanwhile; a delay the GPU spends idle is no queue of GPU work but work held back
// (lazy submission until the host waits, an event, a stream wait): each delay is split by the GPU's
// busy time inside it (all streams merged, its own short gaps included).
#include <algorithm>

#include "analysis/passes.hpp"

namespace whyslow {
namespace {

// The GPU's busy time (gpu_busy_intervals: all streams merged) as runs with the busy time before
// each. A gap of up to kQueueLatencyNs (facts.hpp) between two pieces of work counts as busy: the GPU's own
// latency from one queued piece to the next (a graph's nodes on MI300X start up to ~20 µs apart),
// not held work.
struct BusyRuns {
  std::vector<int64_t> start, end, before;
  explicit BusyRuns(const std::vector<Interval>& busy) {
    int64_t total = 0;
    for (const auto& [a, b] : busy) {
      if (!end.empty() && a <= end.back() + kQueueLatencyNs) {
        if (b > end.back()) total += b - end.back(), end.back() = b;
        continue;
      }
      start.push_back(a), end.push_back(b), before.push_back(total);
      total += b - a;
    }
  }
  int64_t first() const { return start.empty() ? INT64_MAX : start.front(); }
  // Busy time in (-inf, x).
  int64_t until(int64_t x) const {
    const auto i = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), x) - start.begin());
    if (i == 0) return 0;
    return before[i - 1] + std::min(x, end[i - 1]) - start[i - 1];
  }
};

}  // namespace

LaunchFacts launch_queue(const Trace& t, const std::vector<Interval>& gpu_busy) {
  LaunchFacts f;
  const BusyRuns busy(gpu_busy);
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.is_launch(e)) ++f.launches;
    if (!is_gpu_activity(t.kind[e])) continue;
    const EventId host = t.launch_link[e];
    if (host == kNoEvent) {
      ++f.unlinked_gpu;
      continue;
    }
    ++f.linked;
    const int64_t delay = t.start_ns[e] - t.start_ns[host];
    f.delays_ns.push_back(delay);
    // The GPU's idle time inside the delay, from the trace's first GPU work on: before it the trace
    // does not show the GPU (busy with work from before the profiler started, the idle split's Backlog).
    // No GPU work shown before this activity (busy.first() is INT64_MAX when the merged busy time is
    // empty, as when every GPU event has zero length): nothing of the delay is shown idle.
    const int64_t shown_from = std::max(t.start_ns[host], busy.first());
    const int64_t shown = shown_from < t.start_ns[e] ? t.start_ns[e] - shown_from : 0;
    const int64_t idle = shown - (busy.until(t.start_ns[e]) - busy.until(t.start_ns[host]));
    const bool held = delay >= kQueueLatencyNs && 2 * idle > delay;
    f.queued += delay >= kQueueLatencyNs;
    f.held += held;
    if (f.max_delay_kernel == kNoEvent || delay > f.max_delay_ns) {
      f.max_delay_ns = delay;
      f.max_delay_kernel = e;
      f.max_delay_held = held;
    }
  }
  std::sort(f.delays_ns.begin(), f.delays_ns.end());
  return f;
}

}  // namespace whyslow
