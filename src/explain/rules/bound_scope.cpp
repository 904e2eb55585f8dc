#include "explain/rules/bound_scope.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
#include "analysis/ranks/host_collectives.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// The GPU busy (or running queued work back to back) ≥ 80 % of the time is the limit; the other
// 20 % covers the launch gaps between kernels that even a GPU-bound loop shows.
constexpr double kGpuBoundShare = 0.80;
// A cause holding under 5 % of the time is no verdict (the rest is work the trace cannot link to
// a launch): nothing is said rather than a guess.
constexpr double kMinVerdictShare = 0.05;
// A cause holding under half of the idle time does not explain it alone: the verdict is mixed and
// the text gives every share.
constexpr double kDominantIdleShare = 0.5;
// The CPU's part of a window's first gap (and its time after the last GPU work) is one block of
// CPU work to move or overlap only when it lasts ≥ 1 ms: shorter, it is the step's own launch
// overhead before its first kernel (Python, the dispatcher, the first op's set-up: 10–350 µs in the
// tiny-GEMM steps of tests/fixtures/torch), while the blocks worth moving run for milliseconds
// (TimeSformer's video preprocessing, 218 ms).
constexpr int64_t kCpuBlockNs = 1'000'000;
// The GPU's wait for the CPU is communication, not launch overhead, when host collectives (Gloo's
// spans) with no GPU work beside them hold at least half of it: the CPU is then exchanging tensors
// with the other ranks, or waiting for them to join (tests/fixtures/ranks/gloo: 29.5 of the 31 ms a
// step that rank 1 of data_sleep's GPU waits outside its prefix, 60 of 62 ms on rank 0).
constexpr double kHostCommCauseShare = 0.5;
// Causes under 0.1 % of the time are left out of the words (they stay in the JSON and evidence).
constexpr double kWordedShare = 0.001;

// The loop every steady step holds (loops.cpp), the one of the median iteration time: the
// per-step numbers are then sums over its iterations.
const LoopFacts* steps_loop(const Facts& f, const std::vector<const StepFacts*>& steps) {
  std::vector<const LoopFacts*> mine;
  for (const StepFacts* s : steps) {
    const LoopFacts* found = nullptr;
    for (const LoopFacts& l : f.loops)
      if (l.step != kLoopOverWindow && &f.steps[l.step] == s) found = &l;
    if (!found) return nullptr;
    mine.push_back(found);
  }
  if (mine.empty()) return nullptr;
  std::vector<int64_t> medians;
  for (const LoopFacts* l : mine) medians.push_back(l->median_ns);
  const int64_t m = median(medians);
  for (const LoopFacts* l : mine)
    if (l->median_ns == m) return l;
  return mine.front();
}

void add(GpuIdle& sum, const GpuIdle& w) {
  sum.busy_ns += w.busy_ns;
  for (size_t c = 0; c < kIdleCauses; ++c) sum.ns[c] += w.ns[c];
  sum.gaps += w.gaps;
  sum.stream_waits += w.stream_waits;
  sum.submitted_at_wait += w.submitted_at_wait;
  sum.dependency_evidence |= w.dependency_evidence;
  if (w.longest_ns > sum.longest_ns) {
    sum.longest_ns = w.longest_ns;
    sum.longest_at_ns = w.longest_at_ns;
    sum.longest_cause = w.longest_cause;
    sum.longest_ended_by = w.longest_ended_by;
  }
}

std::string_view cause_words(IdleCause c) {
  switch (c) {
    case IdleCause::Prefix: return "CPU work before the GPU's first work";
    case IdleCause::Launch: return "waiting for the CPU's next launch";
    case IdleCause::Sync: return "waiting for a launch after a host sync";
    case IdleCause::Scheduling: return "queued work starting";
    case IdleCause::Dependency: return "queued work held back (stream/event dependency)";
    case IdleCause::Backlog: return "running work from before the trace";
    case IdleCause::Tail: return "after the last GPU work";
    case IdleCause::Unlinked: return "before work with no launch in the trace";
    case IdleCause::Profiler: return "the profiler's own bookkeeping";
    case IdleCause::Count: break;
  }
  return "";
}

}  // namespace

double BoundScope::share(IdleCause c) const {
  return total_ns > 0 ? static_cast<double>(idle.ns[static_cast<size_t>(c)]) / static_cast<double>(total_ns) : 0;
}

int64_t BoundScope::mean_ns(IdleCause c) const {
  return windows.empty() ? 0 : idle.ns[static_cast<size_t>(c)] / static_cast<int64_t>(windows.size());
}

double BoundScope::verdict_share() const {
  switch (verdict) {
    case BoundVerdict::Gpu: return gpu;
    case BoundVerdict::Launch: return launch;
    case BoundVerdict::CpuBlock: return cpu_block;
    case BoundVerdict::Dependency: return dependency;
    default: return 0;
  }
}

BoundScope bound_scope(const Facts& f) {
  BoundScope b;
  if (f.gpu_busy_ns == 0) return b;  // a CPU-only trace: nothing to compare
  if (trace_kind(f) != TraceKind::Steady) return b;  // warm-up: warmup_trace says so instead
  const LoopFacts* window_loop = nullptr;
  for (const LoopFacts& l : f.loops)
    if (l.step == kLoopOverWindow) window_loop = &l;
  if (window_loop) {
    b.loop = window_loop;
    b.over_iterations = true;
    for (size_t i = 1; i < window_loop->iterations.size(); ++i) b.windows.push_back(&window_loop->iterations[i]);
  } else {
    b.windows = steady_steps(f);
    b.loop = steps_loop(f, b.windows);
  }
  // Each share is the median over the windows of that window's share, so that one slow step (a
  // DataLoader stall in a GPU-bound job) does not decide the verdict of the others.
  std::vector<double> gpu, compute, launch, cpu_block, dependency;
  for (const StepFacts* w : b.windows) {
    b.total_ns += w->duration_ns;
    add(b.idle, w->idle);
    b.exposed_comm_ns += w->exposed_comm_ns;
    if (w->duration_ns <= 0) continue;
    const double d = static_cast<double>(w->duration_ns);
    const auto of = [&](IdleCause c) { return static_cast<double>(w->idle.ns[static_cast<size_t>(c)]); };
    double block = 0, short_block = 0;
    for (IdleCause c : {IdleCause::Prefix, IdleCause::Tail})
      (w->idle.ns[static_cast<size_t>(c)] >= kCpuBlockNs ? block : short_block) += of(c);
    const double g = (static_cast<double>(w->idle.busy_ns) + of(IdleCause::Scheduling) + of(IdleCause::Backlog)) / d;
    gpu.push_back(g);
    compute.push_back(std::max(0.0, g - static_cast<double>(w->exposed_comm_ns) / d));
    launch.push_back((of(IdleCause::Launch) + of(IdleCause::Sync) + short_block) / d);
    cpu_block.push_back(block / d);
    dependency.push_back(of(IdleCause::Dependency) / d);
  }
  // No GPU work in the windows at all (a stepless trace's GPU work all in its start-up): nothing to
  // weigh the CPU against.
  if (b.total_ns <= 0 || gpu.empty() || b.idle.busy_ns == 0) return b;
  b.gpu = median(gpu);
  b.compute = median(compute);
  b.launch = median(launch);
  b.cpu_block = median(cpu_block);
  b.dependency = median(dependency);
  if (b.compute >= kGpuBoundShare) {
    b.verdict = BoundVerdict::Gpu;
    return b;
  }
  if (b.gpu >= kGpuBoundShare) {
    b.verdict = BoundVerdict::Comm;
    return b;
  }
  // A dependency is a verdict only with evidence of one in the trace (a stream wait, an event record,
  // a host function, the GPU's sync records): a queued wait on a trace without any (one stream and
  // lazy submission, or an event-sampled trace that dropped them) is not shown to be one.
  const std::pair<double, BoundVerdict> idle_causes[] = {
      {b.launch, BoundVerdict::Launch},
      {b.cpu_block, BoundVerdict::CpuBlock},
      {b.idle.dependency_evidence ? b.dependency : 0.0, BoundVerdict::Dependency}};
  const auto& [top, verdict] = *std::max_element(std::begin(idle_causes), std::end(idle_causes),
                                                 [](const auto& x, const auto& y) { return x.first < y.first; });
  if (top < kMinVerdictShare) return b;
  b.verdict = verdict;
  b.mixed = top < kDominantIdleShare * (1 - std::min(1.0, b.gpu));
  return b;
}

HostCommWait host_comm_wait(const Trace& t, const Facts& f, const BoundScope& b, int64_t step_ns) {
  if (f.steps.empty() || b.over_iterations) return {};
  const std::vector<RankCollective> host = host_collectives(t);
  if (host.empty()) return {};
  const int64_t exposed = host_comm_time(t, f, host).exposed_ns;
  const double waits_for_cpu = b.launch * static_cast<double>(step_ns);
  if (exposed <= 0 || static_cast<double>(exposed) < kHostCommCauseShare * waits_for_cpu) return {};
  return {exposed, host.size()};
}

bool cpu_block_beside_host_comm(const BoundScope& b, int64_t host_comm_ns, int64_t step_ns) {
  if (b.verdict != BoundVerdict::Launch || host_comm_ns <= 0 || step_ns <= 0) return false;
  const double launch_left = std::max(0.0, b.launch - static_cast<double>(host_comm_ns) / static_cast<double>(step_ns));
  return b.cpu_block >= kMinVerdictShare && b.cpu_block > launch_left;
}

std::string idle_split_words(const BoundScope& b) {
  const double total = static_cast<double>(std::max<int64_t>(1, b.total_ns));
  const std::string what = b.over_iterations ? "iterations" : b.windows.front()->event != kNoEvent ? "steps" : "window";
  std::string out = b.windows.size() == 1
                        ? fmt::format("Of the {} ({}), the GPU is busy {}", what == "steps" ? "step" : what,
                                      human_duration(b.total_ns), human_percent(static_cast<double>(b.idle.busy_ns) / total))
                        : fmt::format("Of the {} {} together ({}), the GPU is busy {}", b.windows.size(), what,
                                      human_duration(b.total_ns), human_percent(static_cast<double>(b.idle.busy_ns) / total));
  std::vector<std::pair<int64_t, IdleCause>> causes;
  for (size_t c = 0; c < kIdleCauses; ++c)
    if (b.idle.ns[c] > 0) causes.emplace_back(b.idle.ns[c], static_cast<IdleCause>(c));
  std::sort(causes.begin(), causes.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [ns, c] : causes)
    if (static_cast<double>(ns) >= kWordedShare * total)
      out += fmt::format("; {} {} ({})", cause_words(c), human_percent(static_cast<double>(ns) / total), human_duration(ns));
  return out + ".";
}

void add_idle_evidence(const BoundScope& b, std::vector<Evidence>& evidence) {
  for (size_t c = 0; c < kIdleCauses; ++c) {
    const auto cause = static_cast<IdleCause>(c);
    if (b.idle.ns[c] > 0) evidence.push_back(us(fmt::format("idle_{}_us", to_string(cause)), b.mean_ns(cause)));
  }
  evidence.push_back(percent("verdict_pct", b.verdict_share()));
}

// Iterations after the first, in words: "41", or "the first 9,999 of 599,999" where the loop kept
// kMaxLoopIterationsKept of them and the windows are those.
std::string later_iterations(const BoundScope& b) {
  const size_t all = b.loop->iteration_count - 1;
  return all == b.windows.size() ? std::to_string(all) : fmt::format("the first {} of {}", b.windows.size(), all);
}

std::string scope_span(const Facts& f, const BoundScope& b, int64_t window_ns) {
  if (b.over_iterations && is_decode(*b.loop))
    return fmt::format("each {} decode pass ({} after the prefill, no ProfilerStep annotations)",
                       human_duration(window_ns), later_iterations(b));
  if (b.over_iterations)
    return fmt::format("each {} iteration after the first ({} of them, no ProfilerStep annotations)",
                       human_duration(window_ns), later_iterations(b));
  return describe_span(f, window_ns);
}

std::string scope_unit(const Facts& f, const BoundScope& b) {
  if (b.over_iterations && is_decode(*b.loop))
    return fmt::format("the median of the {} decode passes after the prefill", later_iterations(b));
  if (b.over_iterations) return fmt::format("the median of the {} iterations after the first", later_iterations(b));
  if (!f.steps.empty()) return fmt::format("the median of {} steady-state steps", b.windows.size());
  return f.steady_window.duration_ns > 0 ? "the trace after its start-up" : "the whole trace";
}

}  // namespace whyslow
