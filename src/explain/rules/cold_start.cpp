// cold_start: a step far longer than the others, broken down into the one-off costs inside it.
#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// At 10× the typical step the start-up cost dominates any measurement that includes it.
constexpr double kCriticalRatio = 10.0;

// What each kind of start-up work is, for people.
std::string describe(ColdCauseKind kind, bool first_calls_in_ops) {
  switch (kind) {
    case ColdCauseKind::Compilation: return "torch.compile compilation (Dynamo/Inductor)";
    case ColdCauseKind::ModuleLoading: return "CUDA module loading (Runtime Triggered Module Loading)";
    case ColdCauseKind::LazyLoading: return "lazy kernel loading (Lazy Function Loading)";
    case ColdCauseKind::ProfilerBuffers: return "profiler buffer allocation (Activity Buffer Request)";
    case ColdCauseKind::MemoryAllocation: return "device memory allocation (cudaMalloc/cudaFree)";
    case ColdCauseKind::StreamEventCreation: return "stream and event creation (cudaStreamCreate/cudaEventCreate)";
    case ColdCauseKind::LibrarySetup:
      return "library set-up: kernel attribute and device queries (cudaFuncGetAttributes, cudaFuncSetAttribute, "
             "cudaGetSymbolAddress, cudaDeviceGetAttribute, cudaOccupancy*)";
    case ColdCauseKind::ContextCreation:
      return "device context creation: the trace's first CUDA call, taking 100 ms or more with the GPU idle (the "
             "runtime creates the context on the first call that needs it)";
    case ColdCauseKind::SlowFirstUse:
      return "slow one-off CUDA calls (each 100 ms or more with the GPU idle; warm, such calls take microseconds): "
             "a kernel's first launch loading its module, the first allocations, stream creation";
    case ColdCauseKind::FirstLaunch:
      return "kernels' first launches inside first calls (1 ms or more each, warm launches take microseconds): "
             "each kernel's module loaded on first use (CUDA's lazy loading)";
    case ColdCauseKind::Autotuning:
      return "autotuning inside first calls: the call timed candidate kernels itself (CUDA events recorded and "
             "waited on inside it), a library choosing the fastest algorithm for a shape it has not seen";
    case ColdCauseKind::FirstCallWork:
      return fmt::format("first-call work inside {} with no CUDA call to show for it (library loading, handle "
                         "creation)", first_calls_in_ops ? "ops" : "scopes");
  }
  return "";
}

}  // namespace

void rule_cold_start(const Trace&, const Facts& f, std::vector<Finding>& out) {
  const ColdStartFacts& c = f.cold_start;
  if (c.causes.empty() && c.step_index < 0) return;
  Finding x = make_finding(FindingId::cold_start);
  int64_t explained = 0;
  for (const ColdCause& cause : c.causes) explained += cause.total_ns;
  std::string causes;
  for (const ColdCause& cause : c.causes)
    causes += fmt::format("\n  - {}: {} ({} event{})", describe(cause.kind, c.first_calls_in_ops), human_duration(cause.total_ns), cause.count,
                          cause.count == 1 ? "" : "s");
  if (c.step_index >= 0) {
    const StepFacts& s = f.steps[c.step_index];
    // The typical step is the steady state's (steady_steps(): no step paying for new shapes), the
    // one every other finding measures against; cold_start's own median of the other steps counts
    // those steps in.
    const std::vector<const StepFacts*> steady = steady_steps(f);
    const int64_t typical = steady.empty() ? c.typical_step_ns : median_of(steady, &StepFacts::duration_ns);
    const double r = static_cast<double>(c.step_ns) / static_cast<double>(std::max<int64_t>(1, typical));
    x.severity = r >= kCriticalRatio ? Severity::Critical : Severity::Warning;
    x.title = fmt::format("{} took {}, {} the other steps ({}): one-off start-up costs, not steady-state work",
                          s.name, human_duration(c.step_ns), human_ratio(r), human_duration(typical));
    x.detail = fmt::format(
        "The first time a process runs a CUDA kernel, library call or allocation it pays one-off costs: the "
        "driver loads the kernel's module, cuBLAS and friends query and set kernel attributes, the caching "
        "allocator asks the driver for memory, torch.compile compiles. Inside {} whyslow finds {} of such "
        "work ({} the step's extra {}):{}\nSteady-state steps do not pay these costs again; measure and "
        "optimise those.",
        s.name, human_duration(explained),
        // The causes are timed whole while the extra is the step less a typical one: a cold step's
        // steady part is shorter than a typical step, so they can sum to more than the extra.
        explained >= c.step_ns - typical
            ? std::string("all of")
            : human_percent(static_cast<double>(explained) / std::max<int64_t>(1, c.step_ns - typical)) + " of",
        human_duration(c.step_ns - typical), causes);
    x.evidence = {us("step_us", c.step_ns), us("typical_step_us", typical), ratio("ratio", r),
                  us("explained_us", explained)};
    x.events.push_back({s.event, "slow step"});
    x.highlights.shade_emphasis = ShadeEmphasis::Strong;
    x.impact_ns = c.step_ns - typical;
    x.impact_what = "the slow step's time above the typical step, paid once";
  } else {
    x.severity = Severity::Warning;
    x.title = fmt::format("{} of the {} profiled are one-off start-up costs", human_duration(explained),
                          human_duration(c.step_ns));
    x.detail = fmt::format(
        "The trace has no ProfilerStep annotations to compare, but {} of it is start-up work that a warm "
        "process does not repeat:{}",
        human_percent(static_cast<double>(explained) / std::max<int64_t>(1, c.step_ns)), causes);
    x.evidence = {us("window_us", c.step_ns), us("explained_us", explained)};
    x.impact_ns = explained;
    x.impact_what = "the one-off start-up work found in the window, paid once";
  }
  for (const ColdCause& cause : c.causes) x.evidence.push_back(us(std::string(to_string(cause.kind)) + "_us", cause.total_ns));
  for (EventId e : c.evidence) x.events.push_back({e, "start-up cost"});
  x.try_next.clear();
  // Autotuning inside cuDNN's convolutions is the benchmark mode the user turned on: its own switch.
  if (c.autotuned_convolution)
    x.try_next.push_back(
        "torch.backends.cudnn.benchmark = True times every candidate algorithm for each new convolution shape on "
        "its first call: keep it for long runs on fixed shapes; where one request's latency matters, turn it off "
        "or run one warm-up call per input shape at start-up.");
  x.try_next.insert(x.try_next.end(), {
      "Warm up before measuring: run a few iterations first, or use torch.profiler.schedule(wait=1, warmup=1, "
      "active=3) so the recorded steps are steady-state.",
      "If the first request's latency matters (a server), pay the costs at start-up: run one dummy batch per "
      "shape before serving; CUDA_MODULE_LOADING=EAGER loads all kernels at start-up instead of on first use.",
      "For torch.compile, compile ahead of time (a warm-up call per input shape) or cache compiled artefacts "
      "(TORCHINDUCTOR_FX_GRAPH_CACHE=1)."});
  out.push_back(std::move(x));
}

}  // namespace whyslow
