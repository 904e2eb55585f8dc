#include "analysis/steps/steady_steps.hpp"

#include <algorithm>

#include "analysis/core/median.hpp"
#include "common/gallop.hpp"

namespace whyslow {

namespace {

// Capture spans holding a fifth of the window: the trace is the capture phase (vLLM's and SGLang's
// capture traces: 26–93 %); a replay trace holds none.
constexpr double kCaptureShare = 0.20;
// Compilation holding half of a stepless window: the trace is torch.compile warming up.
constexpr double kCompileShare = 0.50;
// Start-up work holding half of a stepless window (cold_start's causes, the profiler's buffers
// apart), with no start-up stretch to cut off and no loop to judge instead: the trace records a
// process's first call alone (a first inference), whose launch gaps and CPU time are that one-off
// work's. Half, as cold_start's own test of a cold step (kMinExplainedShare): the part that
// decides what the window's time was spent on.
constexpr double kColdWindowShare = 0.50;

}  // namespace

TraceKind trace_kind(const Facts& f) {
  const double window = static_cast<double>(std::max<int64_t>(1, f.window.duration_ns));
  if (f.compile.captures > 0 && static_cast<double>(f.compile.capture_ns) >= kCaptureShare * window)
    return TraceKind::GraphCapture;
  if (f.steps.empty() && static_cast<double>(f.compile.compile_ns) >= kCompileShare * window)
    return TraceKind::CompileWarmup;
  const bool window_loop = std::any_of(f.loops.begin(), f.loops.end(), [](const LoopFacts& l) { return l.step == kLoopOverWindow; });
  if (f.steps.empty() && f.cold_start.step_ns > 0 && f.steady_window.duration_ns <= 0 && !window_loop &&
      static_cast<double>(f.cold_start.program_start_up_ns()) >= kColdWindowShare * window)
    return TraceKind::FirstCall;
  return TraceKind::Steady;
}

std::string_view to_string(TraceKind k) {
  switch (k) {
    case TraceKind::Steady: return "steady";
    case TraceKind::GraphCapture: return "graph_capture";
    case TraceKind::CompileWarmup: return "compile_warmup";
    case TraceKind::FirstCall: return "first_call";
  }
  return "";
}

namespace {

// A step whose first-seen-shape work (Facts::first_calls) is 5 % of it or more is not steady: the
// diff's threshold for a step carrying one-off costs (step_profile.cpp), the noise floor of a
// step's time being a few %.
constexpr double kNewShapeStepShare = 0.05;
// …while at least two steps are left: one step is no median.
constexpr size_t kMinSteadySteps = 2;

}  // namespace

std::vector<const StepFacts*> steady_steps(const Facts& f) {
  std::vector<const StepFacts*> out, warm;
  for (size_t i = 0; i < f.steps.size(); ++i) {
    if (static_cast<int>(i) == f.cold_start.step_index) continue;
    out.push_back(&f.steps[i]);
    const std::vector<int64_t>& seen = f.first_calls.new_shape_per_step_ns;
    if (i >= seen.size() || static_cast<double>(seen[i]) < kNewShapeStepShare * static_cast<double>(f.steps[i].duration_ns))
      warm.push_back(&f.steps[i]);
  }
  // Steps paying for shapes seen for the first time (a serving loop's new lengths) leave the
  // steady state while enough steps remain to tell it.
  if (warm.size() >= kMinSteadySteps && warm.size() < out.size()) out = warm;
  if (f.steps.empty() && f.steady_window.duration_ns > 0) out.push_back(&f.steady_window);
  else if (f.steps.empty() && f.window.duration_ns > 0) out.push_back(&f.window);
  return out;
}

namespace {

// The step whose [start, end] holds ts, given `after`, the number of steps that start at or
// before ts; -1 for none.
int containing(const std::vector<StepFacts>& steps, size_t after, int64_t ts) {
  if (after == 0) return -1;
  const int i = static_cast<int>(after) - 1;
  return ts <= steps[i].end_ns ? i : -1;
}

}  // namespace

int step_containing(const std::vector<StepFacts>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts,
                             [](int64_t x, const StepFacts& s) { return x < s.start_ns; });
  return containing(steps, static_cast<size_t>(it - steps.begin()), ts);
}

StepLookup::StepLookup(const std::vector<StepFacts>& steps) : steps_(steps), starts_(steps.size()) {
  for (size_t i = 0; i < steps.size(); ++i) starts_[i] = steps[i].start_ns;
  after_ = starts_.cbegin();
}

int StepLookup::of(int64_t ts) {
  // The first start after ts: a lower bound under "start <= ts".
  after_ = gallop_lower_bound(starts_.cbegin(), starts_.cend(), after_, ts, [](int64_t s, int64_t x) { return s <= x; });
  return containing(steps_, static_cast<size_t>(after_ - starts_.cbegin()), ts);
}

namespace {
template <class Get>
int64_t median_by(const std::vector<const StepFacts*>& steps, Get get) {
  std::vector<int64_t> v;
  for (const StepFacts* s : steps) v.push_back(get(*s));
  return median(std::move(v));
}
}  // namespace

int64_t median_of(const std::vector<const StepFacts*>& steps, int64_t StepFacts::*field) {
  return median_by(steps, [&](const StepFacts& s) { return s.*field; });
}

int64_t median_of(const std::vector<const StepFacts*>& steps, uint32_t StepFacts::*field) {
  return median_by(steps, [&](const StepFacts& s) { return static_cast<int64_t>(s.*field); });
}

int64_t median_of(const std::vector<const StepFacts*>& steps, CpuCategory category) {
  return median_by(steps, [&](const StepFacts& s) { return s.cpu_breakdown[static_cast<size_t>(category)]; });
}

}  // namespace whyslow
