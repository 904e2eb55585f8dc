#include "analysis/cpu/first_calls.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/core/event_names.hpp"
#include "analysis/core/median.hpp"
#include "analysis/core/nesting_walk.hpp"
#include "analysis/core/track_range.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "analysis/cpu/kernel_timing.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "trace/steps.hpp"

namespace whyslow {
namespace {

// A first call is first-call work when it takes at least 3× the op's usual time (cold_start's
// outlier ratio: steady calls of one op vary well under 2×)…
constexpr double kFirstCallRatio = 3.0;
// …and at least 200 µs more: below that a slow first call is launch-scale jitter, not worth
// listing (cold_start's kOutlierMinExcessNs, for the same reason).
constexpr int64_t kFirstCallMinExcessNs = 200'000;

struct JudgedCall {
  EventId e;
  int64_t own_ns;  // its time less the time already explained inside it
};

}  // namespace

std::string first_input_text(const Trace& t, NameId dims) {
  if (dims == kNoName) return "?";
  std::string s(t.names.view(dims));
  // "[[64, 512], [2048, 512], []]": the first input's shape is what changes between calls.
  if (s.size() > 2 && s[0] == '[' && s[1] == '[') s = s.substr(1, s.find(']'));
  return s;
}

std::vector<Interval> host_wait_intervals(const Trace& t, int64_t from, int64_t to) {
  HostWaitNames waits(t);
  std::vector<Interval> out;
  for (EventId e = 0; e < t.size(); ++e)
    if (is_host_api(t.kind[e]) && t.start_ns[e] >= from && t.start_ns[e] <= to && waits.of(e) != HostWait::None)
      out.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(out);
  return out;
}

std::vector<FirstCall> first_call_work(const Trace& t, const std::vector<StepFacts>& steps, int64_t from, int64_t to,
                                       const std::vector<Interval>& held) {
  // A shapeless wrapper (a "Torch-Compiled Region", a compiled graph's call) hides the ops inside
  // it: the cuDNN plan a compiled model builds for a new sequence length is paid inside its SDPA
  // call, which is not top level there.
  auto is_op = [&](EventId e) {
    return t.kind[e] == EventKind::CpuOp && t.dur_ns[e] > 0 && t.start_ns[e] >= from && t.start_ns[e] <= to;
  };
  // Judged: the shaped ops with no shaped op above them, and the shapeless ops with no op above
  // them that hold no judged op (a wrapper). What lies above an op comes from a walk down each
  // track (analysis/core/nesting_walk.hpp), each open event carrying the nearest op, the nearest
  // shaped op and the outermost op at or above it; the answers are bits by event (three memo
  // arrays of 4 bytes an event took 14 MB on the bench's profile_memory trace), read in event
  // order as the calls were always listed.
  struct Above {
    EventId op, shaped, top;  // the nearest op, shaped op and outermost op at or above the event
  };
  std::vector<bool> shaped_judged(t.size()), shapeless_top(t.size()), wrapper(t.size());
  walk_nesting<Above>(t, [&](EventId e, const Above* parent, Above& entry) {
    const Above above = parent ? *parent : Above{kNoEvent, kNoEvent, kNoEvent};
    if (t.kind[e] != EventKind::CpuOp) {  // most events: what is above them is above their parent
      entry = above;
      return;
    }
    const bool shaped = t.input_dims_of(e) != kNoName;
    if (is_op(e) && shaped && above.shaped == kNoEvent) {
      shaped_judged[e] = true;
      if (above.top != kNoEvent) wrapper[above.top] = true;
    }
    if (is_op(e) && !shaped && above.op == kNoEvent) shapeless_top[e] = true;
    entry.op = e;
    entry.shaped = shaped ? e : above.shaped;
    entry.top = above.top != kNoEvent ? above.top : e;
  });
  std::vector<EventId> judged;
  for (EventId e = 0; e < t.size(); ++e)
    if (shaped_judged[e]) judged.push_back(e);
  for (EventId e = 0; e < t.size(); ++e)
    if (shapeless_top[e] && !wrapper[e]) judged.push_back(e);
  std::sort(judged.begin(), judged.end(), [&](EventId a, EventId b) { return t.start_ns[a] < t.start_ns[b]; });

  std::map<std::pair<NameId, NameId>, std::vector<JudgedCall>> by_shape;  // (name, input dims) → calls in time order
  std::unordered_map<NameId, std::vector<JudgedCall>> by_name;
  for (EventId e : judged) {
    const JudgedCall call{e, t.dur_ns[e] - covered_length(held, t.start_ns[e], t.end_ns(e))};
    // Wholly inside time already explained (the ops a compilation traces on fake tensors): the
    // compile's work, not a call of the program's, neither a first call nor one to compare with.
    if (call.own_ns <= 0) continue;
    by_shape[{t.name[e], t.input_dims_of(e)}].push_back(call);
    by_name[t.name[e]].push_back(call);
  }
  // Does a call launch GPU work (a kernel, copy or memset) from inside it, on its thread?
  const auto launches_gpu_work = [&](EventId e) {
    for (EventId x : starting_in(t, t.track[e], t.start_ns[e], t.end_ns(e), true))
      if (t.is_launch(x)) return true;
    return false;
  };
  std::unordered_set<EventId> first_of_shape;
  for (const auto& [key, calls] : by_shape) first_of_shape.insert(calls.front().e);
  // The typical call of a stepless trace: the median time of the judged calls after each op's first.
  std::optional<int64_t> typical_call;
  if (steps.empty()) {
    std::vector<int64_t> later;
    for (const auto& [name, calls] : by_name)
      for (size_t i = 1; i < calls.size(); ++i) later.push_back(calls[i].own_ns);
    if (!later.empty()) typical_call = median(later);
  }
  // Module loading (CUDA's lazy loading) inside a runtime call of the call's own thread: the driver
  // loading a kernel for its first launch, or for a query of it (cudaFuncGetAttributes).
  std::vector<int64_t> loading_starts;
  if (steps.empty())
    for (EventId e = 0; e < t.size(); ++e)
      if (t.kind[e] == EventKind::Overhead && is_kernel_loading(t.name_of(e))) loading_starts.push_back(t.start_ns[e]);
  std::sort(loading_starts.begin(), loading_starts.end());
  const auto loads_a_module = [&](EventId e) {
    for (EventId x : starting_in(t, t.track[e], t.start_ns[e], t.end_ns(e), true)) {
      if (!is_host_api(t.kind[x])) continue;
      const auto at = std::lower_bound(loading_starts.begin(), loading_starts.end(), t.start_ns[x]);
      if (at != loading_starts.end() && *at <= t.end_ns(x)) return true;
    }
    return false;
  };
  const std::optional<int64_t> first_step = steps.empty() ? std::nullopt : profiler_step_number(steps.front().name);
  const bool mid_run = first_step && *first_step > 0;
  std::vector<FirstCall> out;
  for (const auto& [key, calls] : by_shape) {
    const JudgedCall& first = calls.front();
    // The op's usual time: its later calls on this shape, else its calls on other shapes that
    // were not first calls themselves.
    std::vector<int64_t> usual;
    for (size_t i = 1; i < calls.size(); ++i) usual.push_back(calls[i].own_ns);
    bool ran_before = false;
    for (const JudgedCall& other : by_name[key.first]) {
      if (t.start_ns[other.e] < t.start_ns[first.e]) ran_before = true;
      if (calls.size() == 1 && !first_of_shape.count(other.e)) usual.push_back(other.own_ns);
    }
    // The op's first call in the trace, on a shape it never ran again, when its calls on other
    // shapes were each a first of their shape too (one pass through a model: every layer a new
    // width). Those calls are a baseline when all of them launch GPU work: the host's part of an op
    // that hands its work to the GPU is dispatch and launches, the same on any shape, so a first
    // call far beyond them paid a library's first use (cuDNN's handle: 519 ms in a first conv2d
    // whose later convolutions take 3-120 ms). The later calls may still carry first-use work of
    // their own (a new kernel's module), so the baseline is high and the excess a floor.
    FirstCall::Baseline baseline = calls.size() > 1 ? FirstCall::Baseline::SameShape : FirstCall::Baseline::OtherShapes;
    if (usual.empty() && !ran_before && launches_gpu_work(first.e)) {
      std::vector<int64_t> others;
      bool all_launch = true;
      for (const JudgedCall& other : by_name[key.first]) {
        if (other.e == first.e) continue;
        all_launch = launches_gpu_work(other.e);
        if (!all_launch) break;
        others.push_back(other.own_ns);
      }
      if (all_launch && !others.empty()) {
        usual = std::move(others);
        baseline = FirstCall::Baseline::LaunchingCalls;
      }
    }
    // A call with no other of its op to compare with, inside which the driver loaded a kernel's
    // module (CUDA's lazy loading) or a library timed candidate kernels (autotuning a new shape):
    // either event is the evidence of a first use. In a trace without steps, the later calls of
    // other ops show what a warm call costs here: aten::mean's 44.5 ms and aten::linear's 110 ms in
    // a first inference whose later calls take 0.1-0.2 ms.
    if (usual.empty() && steps.empty() && typical_call &&
        (loads_a_module(first.e) || kernel_timing_inside(t, first.e).timed)) {
      usual.push_back(*typical_call);
      baseline = FirstCall::Baseline::TypicalCall;
    }
    if (usual.empty()) continue;  // no call to compare with: no evidence either way
    const int64_t typical = median(usual);
    const int64_t excess = first.own_ns - typical;
    if (excess < kFirstCallMinExcessNs || static_cast<double>(first.own_ns) < kFirstCallRatio * static_cast<double>(typical))
      continue;
    // In the first step of a trace recorded from later in a run (ProfilerStep#15) a shape may have
    // run before the profiler started: a slow call there is no evidence of a new shape. From
    // ProfilerStep#0 the profiler saw the program's steps from the first.
    const bool in_first_step = !steps.empty() && t.start_ns[first.e] <= steps.front().end_ns;
    const bool new_shape = ran_before && key.second != kNoName && !(in_first_step && mid_run);
    // An op's first call in the trace is its first call in the program only near the trace's start:
    // a trace recorded from step 1,009 of a run holds no first call after its first step.
    if (!new_shape && !steps.empty() && !in_first_step) continue;
    out.push_back({first.e, excess, new_shape, baseline, step_containing(steps, t.start_ns[first.e])});
  }
  std::sort(out.begin(), out.end(), [&](const FirstCall& a, const FirstCall& b) { return t.start_ns[a.op] < t.start_ns[b.op]; });
  return out;
}

FirstCallFacts first_calls(const Trace& t, const Facts& f) {
  FirstCallFacts out;
  out.new_shape_per_step_ns.assign(f.steps.size(), 0);
  const int64_t from = f.steps.empty() ? f.window.start_ns : f.steps.front().start_ns;
  const int64_t to = f.steps.empty() ? f.window.end_ns : f.steps.back().end_ns;
  if (to <= from) return out;
  std::vector<Interval> held = host_wait_intervals(t, from, to);
  for (const Compilation& c : f.compile.compilations) held.emplace_back(c.start_ns, c.end_ns);
  merge_intervals(held);
  out.calls = first_call_work(t, f.steps, from, to, held);
  for (const FirstCall& c : out.calls)
    if (c.new_shape && c.step >= 0) out.new_shape_per_step_ns[c.step] += c.excess_ns;
  return out;
}

}  // namespace whyslow
