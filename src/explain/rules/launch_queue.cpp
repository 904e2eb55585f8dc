// launch_queue: how far the GPU lane lags the CPU lane. With asynchronous dispatch each launch
// call returns at once and the work waits in the stream's queue; the delay from the launch call
// to the kernel's start is the queue's length at that moment.
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Below this many linked launches the statistics say nothing.
constexpr size_t kMinLaunches = 3;
// A lag under 50 µs is launch latency (the call itself plus the driver, ~5–20 µs), not a queue;
// the lag is worth explaining once the longest one exceeds it.
constexpr int64_t kVisibleLagNs = 50'000;
// The longest queue delays a timeline draws: the worst cases, not every launch.
constexpr size_t kMaxQueuePairs = 50;

}  // namespace

void rule_launch_queue(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const LaunchFacts& l = f.launches;
  if (l.delays_ns.size() < kMinLaunches || l.max_delay_ns < kVisibleLagNs) return;
  const int64_t lo = l.delays_ns.front(), mid = l.delays_ns[l.delays_ns.size() / 2], hi = l.delays_ns.back();
  Finding x = make_finding(FindingId::launch_queue);
  const bool queued = mid >= kVisibleLagNs;
  x.title = queued ? fmt::format("GPU work starts {} (median) after its launch call, up to {}: the CPU runs ahead "
                                 "of the GPU and work queues up",
                                 human_duration(mid), human_duration(hi))
                   : fmt::format("GPU work usually starts {} after its launch call (the queue is empty), but up "
                                 "to {} for some launches",
                                 human_duration(mid), human_duration(hi));
  x.detail = fmt::format(
      "CUDA launches are asynchronous: a launch call only puts the kernel in a stream's queue and returns, so "
      "the CPU lane moves on while the GPU lane works through the queue. Over {} launched operations the delay "
      "from launch call to GPU start was {} at least, {} in the median and {} at most. {}",
      l.delays_ns.size(), human_duration(lo), human_duration(mid), human_duration(hi),
      queued ? "A long median delay means work piles up in the queue: the GPU is the bottleneck and the CPU is "
               "free to prepare the next step, which is healthy."
             : "Most work starts within launch latency, so the queue is usually empty (the GPU waits for the "
               "CPU); the longest delays come from a few launches queued behind long GPU work or a slow first "
               "launch.");
  x.evidence = {us("min_delay_us", lo), us("median_delay_us", mid), us("max_delay_us", hi),
                count("launched_ops", l.delays_ns.size())};
  if (l.max_delay_kernel != kNoEvent) {
    x.events.push_back({l.max_delay_kernel, "longest queued"});
    if (t.launch_link[l.max_delay_kernel] != kNoEvent)
      x.events.push_back({t.launch_link[l.max_delay_kernel], "its launch call"});
  }
  x.highlights.queue = longest_queue_delays(t, kMaxQueuePairs);
  // sync_wait runs before this rule: it is named only when it is in the output to be seen.
  const bool sync_wait_found =
      std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.id == FindingId::sync_wait; });
  x.try_next = {"Nothing to fix by itself: read it as where the GPU timeline is relative to the CPU timeline.",
                std::string("If the CPU later blocks in a synchronize, that wait is this queue draining") +
                    (sync_wait_found ? " (see sync_wait)." : ".")};
  x.impact_ns = 0;
  x.impact_what = "a measurement of the queue, not a saving: overhead_bound and dependency_wait measure the idle time";
  out.push_back(std::move(x));
}

}  // namespace whyslow
