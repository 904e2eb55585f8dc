// What limits the steady state, from why the GPU idles (analysis/gpu/idle_gaps.cpp): the windows a
// bound verdict speaks about, their idle split summed, and the one verdict they get. Shared by
// step_bound.cpp (gpu_bound, overhead_bound) and gpu_waits.cpp (dependency_wait, cpu_prefix), so
// exactly one of them speaks for a trace.
#pragma once

#include <string>
#include <vector>

#include "explain/finding.hpp"
#include "trace/trace.hpp"

namespace whyslow {

// A cause that holds 30 % of the time is the first thing to fix: a warning. Under that the GPU is
// busy most of the step and the cause is worth knowing (information): the steps that synchronize
// at their end lose 15–25 % to relaunching after the sync (tests/fixtures/torch's pointwise chain
// and kernel contention, ResNet-50's slower steps) while their kernels hold the rest.
inline constexpr double kBoundWarningShare = 0.30;

enum class BoundVerdict : uint8_t {
  None,        // no GPU work, or no window
  Gpu,         // the GPU (busy, or running queued work back to back) ≥ 80 % of the time
  Launch,      // the GPU waits for the CPU's launches (after host syncs, and short prefixes and tails, included)
  CpuBlock,    // the GPU waits for one block of CPU work (≥ 1 ms) before the GPU's first work or after its last
  Dependency,  // queued work is held back: another stream, an event, a host function
  Comm,        // busy ≥ 80 % but not with compute: communication's findings speak
};

struct BoundScope {
  // The steady steps; a stepless trace whose top-level work repeats: its iterations after the
  // first (a generate()'s decode passes, the prefill apart).
  std::vector<const StepFacts*> windows;
  const LoopFacts* loop = nullptr;  // the loop the windows are iterations of, or every steady step holds
  bool over_iterations = false;     // windows are `loop`'s iterations 2..N
  int64_t total_ns = 0;             // Σ window durations
  GpuIdle idle;                     // Σ over the windows; longest_*: the longest gap of all
  int64_t exposed_comm_ns = 0;      // Σ exposed communication launched in the windows
  double gpu = 0, compute = 0, launch = 0, cpu_block = 0, dependency = 0;  // shares of total_ns
  BoundVerdict verdict = BoundVerdict::None;
  bool mixed = false;  // the verdict's cause holds under half of the idle time
  double share(IdleCause c) const;
  int64_t mean_ns(IdleCause c) const;  // per window
  double verdict_share() const;        // the verdict's group's share
};

BoundScope bound_scope(const Facts& facts);

// The GPU's wait for the CPU that is communication, not launch overhead: the host collectives' time
// (Gloo's spans) with no GPU work beside them, per step (median), where it holds at least half of the
// launch verdict's wait (kHostCommCauseShare); 0 otherwise, and for stepless scopes. `step_ns`: the
// median steady step.
struct HostCommWait {
  int64_t ns = 0;    // per step
  size_t spans = 0;  // the host collectives in the trace
};
HostCommWait host_comm_wait(const Trace& trace, const Facts& facts, const BoundScope& scope, int64_t step_ns);

// A launch verdict whose wait is mostly host collectives (host_comm_wait's ns > 0) weighed again with
// that communication taken out of the launch share: true when the block of CPU work before the
// first launch (or after the last GPU work) then outweighs the launch overhead left. overhead_bound
// names the communication, cpu_prefix the block beside it (tests/fixtures/ranks/gloo/data_sleep
// rank 1: a 30 ms `data` block and 28.5 ms of Gloo all-reduce in a 66 ms step).
bool cpu_block_beside_host_comm(const BoundScope& scope, int64_t host_comm_ns, int64_t step_ns);

// "Of the 3 steps together (1.15 s): GPU busy 59.6 %, waiting for the CPU's next launch 36.0 %, …"
std::string idle_split_words(const BoundScope& scope);
// One `idle_<cause>_us` per cause with time (the mean per window), then `verdict_pct`.
void add_idle_evidence(const BoundScope& scope, std::vector<Evidence>& evidence);
// "each 383 ms step", "each 9.81 ms iteration after the first (31 of them)", "the 987 ms profiled …"
std::string scope_span(const Facts& facts, const BoundScope& scope, int64_t window_ns);
// "the median of 3 steady-state steps", "the median of 31 iterations after the first", …
std::string scope_unit(const Facts& facts, const BoundScope& scope);

}  // namespace whyslow
