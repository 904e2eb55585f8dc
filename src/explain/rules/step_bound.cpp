// overhead_bound / gpu_bound: what limits a steady-state step, from how much of it the GPU was
// busy. A GPU that is busy most of the step is the bottleneck; one that is idle most of it is
// waiting for the CPU to launch work (framework overhead, Python, launch latency, syncs).
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// GPU busy ≥ 80 % of the step: the GPU is the limit; the remaining 20 % covers launch gaps
// between kernels that even a GPU-bound loop shows.
constexpr double kGpuBoundShare = 0.80;
// GPU busy < 50 %: the GPU idles more than it works, so the CPU side sets the pace.
constexpr double kOverheadBoundShare = 0.50;

}  // namespace

void rule_step_bound(const Trace&, const Facts& f, std::vector<Finding>& out) {
  if (f.gpu_busy_ns == 0) return;  // a CPU-only trace: nothing to compare
  const auto steps = steady_steps(f);
  if (steps.empty()) return;
  const int64_t step = median_of(steps, &StepFacts::duration_ns);
  const int64_t busy = median_of(steps, &StepFacts::gpu_busy_ns);
  const int64_t cpu = median_of(steps, &StepFacts::cpu_ns);
  const int64_t wait = median_of(steps, &StepFacts::sync_wait_ns);
  if (step <= 0) return;
  // GPU work launched in a step can run past its end when the CPU runs ahead (work queued for
  // the next step); more than 100 % busy means the GPU cannot keep up: it is saturated.
  const double share = std::min(1.0, static_cast<double>(busy) / static_cast<double>(step));
  const bool per_step = !f.steps.empty();
  const std::string unit = per_step ? fmt::format("the median of {} steady-state steps", steps.size()) : "the whole trace";
  const std::string span = describe_span(f, step);
  Finding x;
  x.evidence = {us("step_us", step), us("gpu_busy_us", busy), us("cpu_us", cpu), us("sync_wait_us", wait),
                percent("gpu_busy_pct", share)};
  if (per_step) {
    const StepFacts* example = steps.front();
    for (const StepFacts* s : steps)
      if (s->duration_ns == step) example = s;
    x.events.push_back({example->event, "typical step"});
  }
  if (share >= kGpuBoundShare) {
    x.id = FindingId::gpu_bound;
    x.severity = Severity::Info;
    x.title = fmt::format("GPU-bound: the GPU is busy {} of {}", human_percent(share), span);
    x.detail = fmt::format(
        "In {}, GPU work (kernels, copies, memsets, all streams merged) covers {} of {}; the CPU's own "
        "work takes {}. The step time is set by the GPU work, so CPU-side tuning will not help: look at the "
        "kernels that take the most time.",
        unit, human_duration(busy), human_duration(step), human_duration(cpu));
    x.try_next = {"Start from the top of the kernel table: the largest kernels decide the step.",
                  "Use lower precision where accuracy allows (bf16/TF32 for matmuls), larger fused kernels "
                  "(torch.compile), or better kernels for the top shapes."};
    x.impact_ns = busy;
  } else if (share < kOverheadBoundShare) {
    x.id = FindingId::overhead_bound;
    x.severity = Severity::Warning;
    x.title = fmt::format("Overhead-bound: the GPU is idle {} of {}, waiting for the CPU", human_percent(1 - share), span);
    x.detail = fmt::format(
        "In {}, the GPU is busy only {} of {}. The rest of the time it has nothing queued: the CPU "
        "spends {} issuing the work (Python, the PyTorch dispatcher, launch calls){}. Faster kernels would "
        "not shorten this step; less CPU work per GPU launch would.",
        unit, human_duration(busy), human_duration(step), human_duration(cpu),
        wait > 0 ? fmt::format(" and {} blocked waiting for the GPU", human_duration(wait)) : std::string());
    x.try_next = {"Give the GPU more work per launch: a larger batch, or fewer, bigger kernels.",
                  "Cut launch overhead: CUDA graphs (torch.compile(mode=\"reduce-overhead\") or "
                  "torch.cuda.graphs) replay a whole step with one launch.",
                  "Remove per-step synchronization (.item(), .cpu(), torch.cuda.synchronize()) so the CPU can "
                  "run ahead and queue the next step."};
    x.impact_ns = step - busy;
  } else {
    return;
  }
  out.push_back(std::move(x));
}

}  // namespace whyslow
