// launch_queue: how far the GPU lane lags the CPU lane. With asynchronous dispatch each launch
// call returns at once and the work waits in the stream's queue; the delay from the launch call
// to the kernel's start is the queue's length at that moment.
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"
#include "explain/rules/host_op.hpp"

namespace whyslow {
namespace {

// Below this many linked launches the statistics say nothing.
constexpr size_t kMinLaunches = 3;
// A lag under the GPU's queue latency (kQueueLatencyNs, facts.hpp: 50 µs) is not a queue; the lag
// is worth explaining once the longest one exceeds it. The queued work is held back (not a GPU
// backlog) when most of it waited on a GPU that ran nothing for over half its wait.
// The longest queue delays a timeline draws: the worst cases, not every launch.
constexpr size_t kMaxQueuePairs = 50;

}  // namespace

void rule_launch_queue(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const LaunchFacts& l = f.launches;
  if (l.delays_ns.size() < kMinLaunches || l.max_delay_ns < kQueueLatencyNs) return;
  const int64_t lo = l.delays_ns.front(), mid = l.delays_ns[l.delays_ns.size() / 2], hi = l.delays_ns.back();
  Finding x = make_finding(FindingId::launch_queue);
  const bool queued = mid >= kQueueLatencyNs;
  // A queue is the GPU's backlog only where the GPU ran work while the launches waited. Where most
  // of the queued work waited on an idle GPU, it was held back: by the host where the windows show
  // lazy submission (sent only when the host waits), else by what the idle split names.
  const bool held = l.held * 2 > l.queued;
  const BoundScope scope = bound_scope(f);
  const bool lazy = shows_lazy_submission(scope);
  const std::string held_words = fmt::format(
      "Of the {} launches that waited {} or more, {} waited on a GPU that ran nothing for most of the wait: no "
      "backlog of GPU work held them, so the GPU is not the bottleneck here.",
      l.queued, human_duration(kQueueLatencyNs), l.held);
  const std::string lazy_words =
      lazy ? fmt::format(" The GPU started queued work only as the host next waited for it ({} gap{} in the {} {}s: "
                         "lazy submission, the driver sending batched work when the host synchronizes): the queue is "
                         "the host's, its time the CPU's work before that wait.",
                         scope.idle.submitted_at_wait, scope.idle.submitted_at_wait == 1 ? "" : "s", scope.windows.size(),
                         scope.over_iterations                       ? "iteration"
                         : scope.windows.front()->event != kNoEvent ? "step"
                                                                      : "window")
           : std::string(" What held it back is in the idle split (\"Why the GPU idles\": dependency, launch, sync).");
  if (queued && held) {
    x.title = fmt::format("GPU work starts {} (median) after its launch call, up to {}, while the GPU sits idle: {}",
                          human_duration(mid), human_duration(hi),
                          lazy ? "it is sent only when the host waits" : "held back, not queued behind GPU work");
  } else {
    x.title = queued ? fmt::format("GPU work starts {} (median) after its launch call, up to {}: the CPU runs ahead "
                                   "of the GPU and work queues up",
                                   human_duration(mid), human_duration(hi))
                     : fmt::format("GPU work usually starts {} after its launch call (the queue is empty), but up "
                                   "to {} for some launches",
                                   human_duration(mid), human_duration(hi));
  }
  std::string reading;
  if (queued && held) {
    reading = held_words + lazy_words;
  } else if (queued) {
    reading = "A long median delay means work piles up in the queue: the GPU is the bottleneck and the CPU is free to "
              "prepare the next step, which is healthy.";
  } else {
    reading = "Most work starts within launch latency, so the queue is usually empty (the GPU waits for the CPU); ";
    reading += l.max_delay_held
                   ? std::string("the longest delay was spent on an idle GPU: held back, not queued behind GPU work.") +
                         lazy_words
                   : "the longest delays come from a few launches queued behind long GPU work or a slow first launch.";
  }
  x.detail = fmt::format(
      "CUDA launches are asynchronous: a launch call only puts the kernel in a stream's queue and returns, so "
      "the CPU lane moves on while the GPU lane works through the queue. Over {} launched operations the delay "
      "from launch call to GPU start was {} at least, {} in the median and {} at most. {}",
      l.delays_ns.size(), human_duration(lo), human_duration(mid), human_duration(hi), reading);
  x.evidence = {us("min_delay_us", lo), us("median_delay_us", mid), us("max_delay_us", hi),
                count("launched_ops", l.delays_ns.size()), count("queued_launches", l.queued),
                count("held_launches", l.held)};
  if (lazy && (held || l.max_delay_held)) x.evidence.push_back(count("submitted_at_wait", scope.idle.submitted_at_wait));
  if (l.max_delay_kernel != kNoEvent) {
    x.events.push_back({l.max_delay_kernel, "longest queued"});
    if (t.launch_link[l.max_delay_kernel] != kNoEvent)
      x.events.push_back({t.launch_link[l.max_delay_kernel], "its launch call"});
  }
  x.highlights.queue = longest_queue_delays(t, kMaxQueuePairs);
  // sync_wait runs before this rule: it is named only when it is in the output to be seen.
  const bool sync_wait_found =
      std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.id == FindingId::sync_wait; });
  if (queued && held)
    x.try_next = {"Nothing to fix in the queue itself: the time is the CPU's before the GPU gets the work. Shorten or "
                  "move the host's work before it (the bound finding and \"What sets the pace\" name it).",
                  lazy ? "Lazy submission is the driver's: a host wait sends the batch; the host's own work, not the "
                         "launches, sets the step."
                       : "Read the idle split (\"Why the GPU idles\") for what held the work back."};
  else
    x.try_next = {"Nothing to fix by itself: read it as where the GPU timeline is relative to the CPU timeline.",
                  std::string("If the CPU later blocks in a synchronize, that wait is this queue draining") +
                      (sync_wait_found ? " (see sync_wait)." : ".")};
  x.impact_ns = 0;
  x.impact_what = "a measurement of the queue, not a saving: overhead_bound and dependency_wait measure the idle time";
  x.context_only = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
