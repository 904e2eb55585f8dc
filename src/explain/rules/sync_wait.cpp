// sync_wait: time the CPU sat blocked in synchronize calls and blocking copies, and how much GPU
// work actually ran meanwhile. Waiting for real GPU work is the price of needing a result; waiting
// while the GPU is idle means the wait covers something else (queued launches, lazy loading).
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"

namespace whyslow {
namespace {

// Blocked time under 10 % of a step is noise next to everything else in it.
constexpr double kMinSyncWaitShare = 0.10;
constexpr int64_t kMinSyncWaitNs = 50'000;
// The GPU counts as idle during the waits when it ran under half of them.
constexpr double kIdleGpuShare = 0.50;
// The waits are on communication when NCCL/RCCL kernels make up at least half the GPU work during them.
constexpr double kCommShareOfWaits = 0.50;

}  // namespace

void rule_sync_wait(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const SyncFacts& s = f.syncs;
  if (s.calls.empty()) return;
  const auto steps = steady_steps(f);
  const int64_t step = median_of(steps, &StepFacts::duration_ns);
  const int64_t wait = median_of(steps, &StepFacts::sync_wait_ns);
  if (step <= 0 || wait < kMinSyncWaitNs || static_cast<double>(wait) < kMinSyncWaitShare * static_cast<double>(step)) return;
  const double busy = s.total_wait_ns > 0 ? static_cast<double>(s.total_gpu_busy_ns) / static_cast<double>(s.total_wait_ns) : 0;
  const auto longest = *std::max_element(s.calls.begin(), s.calls.end(),
                                         [](const SyncCall& a, const SyncCall& b) { return a.wait_ns < b.wait_ns; });
  Finding x = make_finding(FindingId::sync_wait);
  const bool idle = busy < kIdleGpuShare;
  // The GPU work during the waits is mostly communication: the wait is on the collectives.
  const bool on_comm = s.total_comm_busy_ns > 0 && static_cast<double>(s.total_comm_busy_ns) >=
                                                     kCommShareOfWaits * static_cast<double>(s.total_gpu_busy_ns);
  x.severity = idle ? Severity::Warning : Severity::Info;
  x.title = fmt::format("The CPU waits {} of {} blocked on the GPU; the GPU was {} during the waits",
                        human_duration(wait), describe_span(f, step), idle ? fmt::format("{} idle", human_percent(1 - busy))
                                                                        : fmt::format("{} busy", human_percent(busy)));
  x.detail = fmt::format(
      "Synchronize calls (cudaDeviceSynchronize, cudaStreamSynchronize, …) and blocking copies stop the CPU "
      "until the GPU has finished the work queued before them. Over the trace the CPU spent {} in {} such "
      "calls, and GPU work covered {} of that time. {} The longest wait, {} ({}), covered {} of GPU work.",
      human_duration(s.total_wait_ns), s.calls.size(), human_duration(s.total_gpu_busy_ns),
      idle ? "So the GPU mostly had nothing to do while the CPU waited: the waits cover launches still in the "
             "queue or one-off start-up work, not long kernels."
      : on_comm
          // Not named by id: exposed_comm and comm_wait run after this rule, and either may find too
          // little to report.
          ? fmt::format("Of that, {} was communication (collective kernels): the CPU waited for collectives, which "
                        "may themselves be waiting for a late peer rank.",
                        human_duration(s.total_comm_busy_ns))
          : "So the CPU is waiting for real GPU work; that is fine when the result is needed now, and a waste "
            "when the CPU could be preparing the next step instead.",
      human_duration(longest.wait_ns), t.name_of(longest.event), human_duration(longest.gpu_busy_ns));
  x.evidence = {us("wait_per_step_us", wait), us("step_us", step), us("total_wait_us", s.total_wait_ns),
                us("gpu_busy_during_waits_us", s.total_gpu_busy_ns), percent("gpu_busy_during_waits_pct", busy),
                count("calls", s.calls.size())};
  if (s.library_calls > 0)
    x.detail += fmt::format(" {} of the calls ({}) were made inside DDP, FSDP or c10d: the distributed library's "
                            "own synchronization, not the training loop's.",
                            s.library_calls, human_duration(s.library_wait_ns));
  x.events.push_back({longest.event, "longest wait"});
  highlight_waits(t, s, x.highlights);
  if (f.recording.from_torch)
    x.try_next = {"Synchronize only where a result is needed on the CPU; drop torch.cuda.synchronize() calls "
                  "that were added for timing.",
                  "Use CUDA events (torch.cuda.Event) to time GPU work without blocking the CPU.",
                  "Overlap: queue step N+1 before reading back step N's result."};
  else
    x.try_next = {"Synchronize only where a result is needed on the CPU; drop cudaDeviceSynchronize() calls "
                  "that were added for timing.",
                  "Time GPU work with CUDA events (cudaEventRecord, cudaEventElapsedTime) without blocking the CPU.",
                  "Overlap: queue step N+1 before reading back step N's result."};
  // A wait gives back only the GPU's idle time it causes (the run-ahead lost while the CPU relaunches
  // after it): waiting while the GPU is busy costs nothing the step would not spend anyway.
  const BoundScope scope = bound_scope(f);
  x.impact_ns = scope.mean_ns(IdleCause::Sync);
  x.impact_basis_ns = scope.windows.empty() ? step : scope.total_ns / static_cast<int64_t>(scope.windows.size());
  x.impact_what = "the GPU's idle time after the waits, until the CPU's next launch reaches it";
  x.evidence.push_back(us("gpu_idle_after_sync_us", x.impact_ns));
  out.push_back(std::move(x));
}

}  // namespace whyslow
