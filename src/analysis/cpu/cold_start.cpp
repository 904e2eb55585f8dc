// Cold start: the step far longer than the others, and what inside it made it long. Each cause
// is a class of events (module loading, allocation, …); a class's time is the part of its
// events' union not already claimed by a class listed before it, so nested events (module
// loading inside cudaFuncGetAttributes) are never counted twice and the causes add up to at
// most the step.
#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "analysis/core/event_names.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/cpu/first_calls.hpp"
#include "analysis/cpu/kernel_timing.hpp"
#include "analysis/cpu/one_off_classes.hpp"
#include "trace/steps.hpp"
#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

// A step is an outlier when it is at least this many times the median of the others: run-to-run
// noise of steady steps stays well under 2×, while start-up costs are 10–1000×.
constexpr double kOutlierRatio = 3.0;
// …and longer than the median by at least this much: below 200 µs a slow step is not worth a
// reader's attention even if it is 3× the others (tiny steps jitter by that much).
constexpr int64_t kOutlierMinExcessNs = 200'000;
// …and start-up work must account for at least half of its extra time; a step that is slow for
// other reasons (contention, a data-dependent branch) is not a cold start.
constexpr double kMinExplainedShare = 0.5;
// Without steps, the whole window counts as cold when start-up work takes this share of it.
constexpr double kWindowColdShare = 0.10;
constexpr int64_t kWindowColdMinNs = 1'000'000;

}  // namespace

bool is_one_off_by_name(const Trace& t, EventId e) {
  const OneOffInput no_slow_calls{t, {}, kNoEvent};  // the classes by duration match nothing then
  for (const OneOffClass& c : kOneOffClasses)
    if (c.matches(no_slow_calls, e)) return true;
  return false;
}

namespace {

// Returns the union of the time the named classes claimed.
std::vector<Interval> explain_window(const OneOffInput& in, int64_t start, int64_t end, ColdStartFacts& f) {
  const Trace& t = in.t;
  // One pass over the trace for all the classes: each event starting in the window goes to every
  // class it matches (a list per class, in event order).
  std::array<std::vector<EventId>, std::size(kOneOffClasses)> matched;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.start_ns[e] < start || t.start_ns[e] > end) continue;
    for (size_t k = 0; k < std::size(kOneOffClasses); ++k)
      if (kOneOffClasses[k].matches(in, e)) matched[k].push_back(e);
  }
  std::vector<Interval> claimed;
  std::vector<std::pair<int64_t, EventId>> longest;
  for (size_t k = 0; k < std::size(kOneOffClasses); ++k) {
    std::vector<Interval> mine;
    ColdCause c;
    c.kind = kOneOffClasses[k].kind;
    for (EventId e : matched[k]) {
      ++c.count;
      mine.emplace_back(t.start_ns[e], std::min(t.end_ns(e), end));
      longest.emplace_back(t.dur_ns[e], e);
    }
    if (mine.empty()) continue;
    merge_intervals(mine);
    for (const Interval& iv : mine) c.total_ns += (iv.second - iv.first) - covered_length(claimed, iv.first, iv.second);
    claimed.insert(claimed.end(), mine.begin(), mine.end());
    merge_intervals(claimed);
    if (c.total_ns > 0) f.causes.push_back(std::move(c));
  }
  // An event can match two classes (a slow cudaFree is also an allocation): list it once.
  std::sort(longest.rbegin(), longest.rend());
  longest.erase(std::unique(longest.begin(), longest.end()), longest.end());
  for (size_t i = 0; i < longest.size() && i < 5; ++i) f.evidence.push_back(longest[i].second);
  return claimed;
}

// A CPU op with no op above it. Without torch ops (a native program recorded by the whyslow
// profiler), the scopes play the ops' part: a user annotation that is not a ProfilerStep and has
// no such annotation above it. "Above" is memoized: 90,000 nested events are walked once.
class TopLevelWork {
 public:
  TopLevelWork(const Trace& t, bool ops)
      : t_(t), ops_(ops), above_(t, [this](EventId a) { return counts(a); }) {}
  bool of(EventId e) { return counts(e) && above_.of(t_.parent[e]) == kNoEvent; }

 private:
  bool counts(EventId x) const {
    return ops_ ? t_.kind[x] == EventKind::CpuOp
                : t_.kind[x] == EventKind::UserAnnotation && !is_profiler_step(t_, x);
  }
  const Trace& t_;
  bool ops_;
  NearestAncestor above_;
};

// A launch call this long is no warm launch (5-20 µs with the profiler on, a few hundred µs behind
// a full launch queue): the first launch of a kernel that loads its module then (CUDA's lazy
// loading), each under the slow-call threshold that makes it a one-off call of its own.
constexpr int64_t kSlowFirstLaunchNs = 1'000'000;

// Each kernel's first launch in the trace when that launch call took kSlowFirstLaunchNs or more:
// the evidence that a first call's time went to loading the kernel's module.
std::vector<EventId> slow_first_launches(const Trace& t) {
  std::unordered_map<NameId, EventId> first;  // kernel name → its earliest launch call
  for (EventId e = 0; e < t.size(); ++e) {
    if (!t.is_launch(e)) continue;
    auto [it, fresh] = first.try_emplace(t.name[t.launch_link[e]], e);
    if (!fresh && t.start_ns[e] < t.start_ns[it->second]) it->second = e;
  }
  std::vector<EventId> out;
  for (const auto& [kernel, e] : first)
    if (t.dur_ns[e] >= kSlowFirstLaunchNs) out.push_back(e);
  return out;
}

// The first-call causes from each first call's excess over its usual time: the part spent in
// first launches of kernels inside the call (slow_first_launches: the module loading they wait
// for, less what a named class claimed inside them) and the rest, work no CUDA call shows
// (library loading, handles, plans), or, where the call timed kernels of its own (kernel_timing.hpp),
// autotuning. The two largest calls are evidence, before the named classes'
// events (a stepped trace's first calls are its cold step's story) or after them (a stepless
// trace's are one of many; a compilation is one event).
enum class EvidencePlace { Front, Back };
void add_first_call_work(const Trace& t, std::vector<std::pair<int64_t, EventId>> excess,
                         const std::vector<Interval>& claimed, EvidencePlace place, ColdStartFacts& f) {
  const std::vector<EventId> launches = excess.empty() ? std::vector<EventId>{} : slow_first_launches(t);
  ColdCause work, loading, tuning;
  work.kind = ColdCauseKind::FirstCallWork;
  loading.kind = ColdCauseKind::FirstLaunch;
  tuning.kind = ColdCauseKind::Autotuning;
  for (const auto& [ns, op] : excess) {
    int64_t in_launches = 0;
    for (EventId l : launches)
      if (t.track[l] == t.track[op] && t.start_ns[l] >= t.start_ns[op] && t.end_ns(l) <= t.end_ns(op)) {
        in_launches += t.dur_ns[l] - covered_length(claimed, t.start_ns[l], t.end_ns(l));
        f.first_launches.push_back(l);
      }
    const int64_t launch_part = std::min(ns, in_launches);
    if (launch_part > 0) {
      ++loading.count;
      loading.total_ns += launch_part;
    }
    if (ns - launch_part > 0) {
      const KernelTiming timing = kernel_timing_inside(t, op);
      ColdCause& cause = timing.timed ? tuning : work;
      ++cause.count;
      cause.total_ns += ns - launch_part;
      f.first_call_work.emplace_back(op, ns - launch_part);
      if (timing.timed) f.autotuned_convolution |= timing.convolution;
    }
  }
  if (work.total_ns <= 0 && loading.total_ns <= 0 && tuning.total_ns <= 0) return;
  std::sort(excess.rbegin(), excess.rend());
  for (size_t i = 0; i < excess.size() && i < 2; ++i)
    f.evidence.insert(place == EvidencePlace::Front ? f.evidence.begin() : f.evidence.end(), excess[i].second);
  if (work.total_ns > 0) f.causes.push_back(std::move(work));
  if (loading.total_ns > 0) f.causes.push_back(std::move(loading));
  if (tuning.total_ns > 0) f.causes.push_back(std::move(tuning));
}

// First calls that are slow for reasons no CUDA call shows: loading a library (cuBLAS, cuDNN),
// creating its handle, building a dispatch table. Measured per top-level op as its time in the
// slow step not claimed by a named class, minus the same op's median time in the other steps.
void first_call_work(const Trace& t, const std::vector<StepFacts>& steps, size_t slow,
                     const std::vector<Interval>& claimed, ColdStartFacts& f) {
  const StepFacts& s = steps[slow];
  StepLookup step_lookup(steps);
  bool any_op = false;
  for (EventId e = 0; e < t.size() && !any_op; ++e) any_op = t.kind[e] == EventKind::CpuOp;
  std::unordered_map<NameId, std::vector<int64_t>> typical;
  std::vector<EventId> in_slow;
  TopLevelWork top_level(t, any_op);
  for (EventId e = 0; e < t.size(); ++e) {
    if (!top_level.of(e)) continue;
    const int i = step_lookup.of(t.start_ns[e]);
    if (i < 0) continue;
    if (static_cast<size_t>(i) == slow) in_slow.push_back(e);
    else typical[t.name[e]].push_back(t.dur_ns[e]);
  }
  f.first_calls_in_ops = any_op;
  std::vector<std::pair<int64_t, EventId>> excess;
  for (EventId e : in_slow) {
    auto it = typical.find(t.name[e]);
    if (it == typical.end()) continue;  // never ran in a steady step: no baseline to compare with
    std::vector<int64_t>& d = it->second;
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    const int64_t usual = d[d.size() / 2];
    const int64_t own = t.dur_ns[e] - covered_length(claimed, t.start_ns[e], std::min(t.end_ns(e), s.end_ns));
    if (own - usual <= 0 || t.dur_ns[e] < kOutlierRatio * static_cast<double>(usual)) continue;
    excess.emplace_back(own - usual, e);
  }
  add_first_call_work(t, std::move(excess), claimed, EvidencePlace::Front, f);
}

// A stepless trace's first calls (a first inference, a script run once): with no steady step to
// compare with, an op's baseline is its own later calls on the same input shapes in the trace
// (first_calls.hpp), its time less what a named class claimed and the host's waits on the GPU
// inside it. A library's first use (cuDNN's plans, cuBLAS's handle, heuristics queries) and the
// slow first launch of each new kernel, each under the slow-call threshold alone, summed. Only ops
// with recorded shapes and later calls on the same shapes count, or ops judged against their
// launching calls on other shapes or against the trace's typical call (FirstCall::baseline): a first
// call compared with other calls on other shapes may simply do more work (an image copied back at
// the end). Not where the program
// ran on a GPU whose work was not recorded (Recorded::GpuNotRecorded): a first .item() there may be
// waiting for the GPU (its later calls fast because the GPU was idle by then), and nothing in the
// trace tells the two apart.
void first_call_work_stepless(const Trace& t, int64_t start, int64_t end, const std::vector<Interval>& claimed,
                              Recorded recorded, ColdStartFacts& f) {
  if (recorded == Recorded::GpuNotRecorded) return;
  std::vector<Interval> held = host_wait_intervals(t, start, end);
  held.insert(held.end(), claimed.begin(), claimed.end());
  merge_intervals(held);
  f.first_calls_in_ops = true;
  // Not a call judged against other calls on other shapes that may do more work (a single image
  // copied back at the end is not a first call of the copies before it), nor a shapeless one
  // against its "same shape" calls.
  const auto counts = [&](const FirstCall& call) {
    switch (call.baseline) {
      case FirstCall::Baseline::SameShape: return t.input_dims_of(call.op) != kNoName;
      case FirstCall::Baseline::OtherShapes: return false;
      case FirstCall::Baseline::LaunchingCalls:
      case FirstCall::Baseline::TypicalCall: return true;
    }
    return false;
  };
  std::vector<std::pair<int64_t, EventId>> excess;
  for (const FirstCall& call : first_call_work(t, {}, start, end, held))
    if (counts(call)) excess.emplace_back(call.excess_ns, call.op);
  add_first_call_work(t, std::move(excess), held, EvidencePlace::Back, f);
}

void sort_causes(ColdStartFacts& f) {
  std::sort(f.causes.begin(), f.causes.end(),
            [](const ColdCause& a, const ColdCause& b) { return a.total_ns > b.total_ns; });
}

}  // namespace

ColdStartFacts cold_start(const Trace& t, const std::vector<StepFacts>& steps, const std::vector<Interval>& gpu_busy,
                          Recorded recorded) {
  ColdStartFacts f;
  const OneOffInput in = find_slow_calls(t, gpu_busy);
  if (steps.size() >= 2) {
    size_t slow = 0;
    for (size_t i = 1; i < steps.size(); ++i)
      if (steps[i].duration_ns > steps[slow].duration_ns) slow = i;
    std::vector<int64_t> others;
    for (size_t i = 0; i < steps.size(); ++i)
      if (i != slow) others.push_back(steps[i].duration_ns);
    std::sort(others.begin(), others.end());
    const int64_t median = others[others.size() / 2];
    const int64_t d = steps[slow].duration_ns;
    if (d < kOutlierRatio * static_cast<double>(median) || d - median < kOutlierMinExcessNs) return f;
    const std::vector<Interval> claimed = explain_window(in, steps[slow].start_ns, steps[slow].end_ns, f);
    first_call_work(t, steps, slow, claimed, f);
    sort_causes(f);
    // The profiler's own buffer requests are not the program's start-up (profiler_artifact reports
    // them): a step slow only because of them (the first recorded step of a warm run, where CUPTI
    // asks for its first buffer) is no cold start, so they count neither as excess nor as explained.
    const int64_t explained = f.program_start_up_ns();
    int64_t profiler = 0;
    for (const ColdCause& c : f.causes)
      if (c.kind == ColdCauseKind::ProfilerBuffers) profiler += c.total_ns;
    const int64_t excess = d - median - profiler;
    if (excess < kOutlierMinExcessNs || explained < kMinExplainedShare * static_cast<double>(excess))
      return ColdStartFacts{};
    f.step_index = static_cast<int>(slow);
    f.step_ns = d;
    f.typical_step_ns = median;
    return f;
  }
  // No steps to compare: the whole window is cold if start-up work dominates it.
  int64_t start = INT64_MAX, end = INT64_MIN;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] == EventKind::Instant || t.kind[e] == EventKind::TraceSpan) continue;
    start = std::min(start, t.start_ns[e]);
    end = std::max(end, t.end_ns(e));
  }
  if (start >= end) return f;
  // The start-up stretch: up to the end of the last slow one-off call, whether or not the finding
  // fires (each such call is start-up by its own definition).
  for (EventId e : in.slow_calls) f.startup_end_ns = std::max(f.startup_end_ns, t.end_ns(e));
  ColdStartFacts w;
  const std::vector<Interval> claimed = explain_window(in, start, end, w);
  first_call_work_stepless(t, start, end, claimed, recorded, w);
  sort_causes(w);
  // The profiler's buffer requests are no start-up of the program's (as for a cold step above): a
  // warm call recorded alone holds the profiler's first buffer, 3.1 ms beside 2.4 ms of its own work.
  const int64_t total = w.program_start_up_ns();
  if (total < kWindowColdMinNs || total < kWindowColdShare * static_cast<double>(end - start)) return f;
  w.step_ns = end - start;
  w.startup_end_ns = f.startup_end_ns;
  return w;
}

}  // namespace whyslow

namespace whyslow {

int64_t ColdStartFacts::program_start_up_ns() const {
  int64_t ns = 0;
  for (const ColdCause& c : causes)
    if (c.kind != ColdCauseKind::ProfilerBuffers) ns += c.total_ns;
  return ns;
}

std::string_view to_string(ColdCauseKind kind) {
  switch (kind) {
    case ColdCauseKind::Compilation: return "compilation";
    case ColdCauseKind::ModuleLoading: return "module_loading";
    case ColdCauseKind::LazyLoading: return "lazy_loading";
    case ColdCauseKind::ProfilerBuffers: return "profiler_buffers";
    case ColdCauseKind::MemoryAllocation: return "memory_allocation";
    case ColdCauseKind::StreamEventCreation: return "stream_event_creation";
    case ColdCauseKind::LibrarySetup: return "library_setup";
    case ColdCauseKind::ContextCreation: return "context_creation";
    case ColdCauseKind::SlowFirstUse: return "slow_first_use";
    case ColdCauseKind::FirstCallWork: return "first_call_work";
    case ColdCauseKind::FirstLaunch: return "first_launch";
    case ColdCauseKind::Autotuning: return "autotuning";
  }
  return "first_call_work";
}

}  // namespace whyslow
