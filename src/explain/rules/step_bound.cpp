// overhead_bound / gpu_bound: what limits a steady-state step, from how much of it the GPU was
// busy. A GPU that is busy most of the step is the bottleneck; one that is idle most of it is
// waiting for the CPU to launch work (framework overhead, Python, launch latency, syncs). Busy
// with communication is neither: a rank inside a collective may be waiting for a peer, so only
// compute counts towards gpu_bound (exposed_comm and comm_wait speak for the rest).
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
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
// The categories named in the text: the few that hold most of the CPU time.
constexpr size_t kCategoriesNamed = 3;

std::string_view describe(CpuCategory c) {
  switch (c) {
    case CpuCategory::DataLoading: return "waiting for the DataLoader";
    case CpuCategory::SyncWait: return "blocked waiting for the GPU";
    case CpuCategory::Allocator: return "in the CUDA allocator";
    case CpuCategory::Launch: return "in CUDA API calls (launches, copies, queries)";
    case CpuCategory::Compile: return "in torch.compile's guards and compilation";
    case CpuCategory::Profiler: return "in the profiler's bookkeeping";
    case CpuCategory::Python: return "in Python";
    case CpuCategory::Dispatch: return "in the PyTorch dispatcher (ops that launch GPU work)";
    case CpuCategory::CpuCompute: return "in CPU work (ops or long Python calls that launch no GPU work: preprocessing, CPU math)";
    case CpuCategory::Other: return "outside any recorded op (Python between ops, unrecorded work)";
    case CpuCategory::Count: break;
  }
  return "";
}

// The median step's CPU categories, largest first, without the empty ones.
std::vector<std::pair<int64_t, CpuCategory>> ranked_categories(const std::vector<const StepFacts*>& steps) {
  std::vector<std::pair<int64_t, CpuCategory>> out;
  for (size_t c = 0; c < kCpuCategories; ++c) {
    const int64_t ns = median_of(steps, static_cast<CpuCategory>(c));
    if (ns > 0) out.emplace_back(ns, static_cast<CpuCategory>(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

// What to try when the GPU waits for the CPU depends on where the CPU time goes: launch overhead
// calls for fewer launches (CUDA graphs), an input pipeline or the allocator for their own fixes.
std::vector<std::string> overhead_advice(CpuCategory top) {
  const std::string no_sync = "Remove per-step synchronization (.item(), .cpu(), torch.cuda.synchronize()) so the "
                              "CPU can run ahead and queue the next step.";
  switch (top) {
    case CpuCategory::DataLoading:
      return {"The input pipeline sets the pace, not launch overhead: see the data_loading finding (DataLoader "
              "workers, pinned memory, prefetching).",
              no_sync};
    case CpuCategory::Allocator:
      return {"The allocator sets the pace: see the alloc_churn finding (no empty_cache() in the loop, static "
              "shapes, expandable segments).",
              no_sync};
    case CpuCategory::SyncWait:
      return {no_sync, "Overlap: queue step N+1 before reading back step N's result."};
    case CpuCategory::CpuCompute:
      return {"Move the CPU work in the step (preprocessing, CPU tensor math) to the GPU or out of the loop.",
              no_sync};
    case CpuCategory::Compile:
      return {"Avoid recompilation and guard cost: mark dynamic dimensions (torch._dynamo.mark_dynamic) or "
              "keep shapes static; check TORCH_LOGS=recompiles.",
              no_sync};
    default:
      return {"Give the GPU more work per launch: a larger batch, or fewer, bigger kernels.",
              "Cut launch overhead: CUDA graphs (torch.compile(mode=\"reduce-overhead\") or "
              "torch.cuda.graphs) replay a whole step with one launch.",
              no_sync};
  }
}

// The median of the loops' median iteration times over the steady steps that hold one.
int64_t median_loop_ns(const Facts& f, const std::vector<const StepFacts*>& steps) {
  std::vector<int64_t> v;
  for (const LoopFacts& l : f.loops)
    for (const StepFacts* s : steps)
      if (&f.steps[l.step] == s) v.push_back(l.median_ns);
  return median(std::move(v));
}

// The loop of the steady steps (loops.cpp), when every one of them is one: the per-step numbers
// are then sums over its iterations, and the advice is about an iteration (a decode pass).
const LoopFacts* steps_loop(const Facts& f, const std::vector<const StepFacts*>& steps) {
  if (f.loops.empty() || f.steps.empty()) return nullptr;
  const LoopFacts* found = nullptr;
  for (const StepFacts* s : steps) {
    const LoopFacts* mine = nullptr;
    for (const LoopFacts& l : f.loops)
      if (&f.steps[l.step] == s) mine = &l;
    if (!mine) return nullptr;
    if (!found || mine->median_ns == median_loop_ns(f, steps)) found = mine;
  }
  return found;
}

// Per iteration, in words: "each step is a loop of 10 iterations …".
std::string iteration_words(const LoopFacts& l) {
  const int64_t idle = std::max<int64_t>(0, l.median_ns - l.gpu_median_ns);
  return fmt::format(
      " Each step is a loop of {} iterations (its top-level work repeats{}): the first takes {}, the others a "
      "median {} each, in which the GPU is busy {} and idle {}: per iteration, as per step, the CPU sets the pace.",
      l.iterations.size(), l.first_tokens > l.tokens_per_iteration && l.tokens_per_iteration > 0
                               ? fmt::format("; {} tokens in the first, {} in each of the others: a generate()'s prefill "
                                             "and decode passes", l.first_tokens, l.tokens_per_iteration)
                               : "",
      human_duration(l.iterations.front().duration_ns), human_duration(l.median_ns), human_duration(l.gpu_median_ns),
      human_duration(idle));
}

}  // namespace

void rule_step_bound(const Trace&, const Facts& f, std::vector<Finding>& out) {
  if (f.gpu_busy_ns == 0) return;  // a CPU-only trace: nothing to compare
  const auto steps = steady_steps(f);
  if (steps.empty()) return;
  const int64_t step = median_of(steps, &StepFacts::duration_ns);
  const int64_t busy = median_of(steps, &StepFacts::gpu_busy_ns);
  const int64_t cpu = median_of(steps, &StepFacts::cpu_ns);
  const int64_t wait = median_of(steps, &StepFacts::sync_wait_ns);
  const int64_t compute = median_of(steps, &StepFacts::compute_ns);
  const int64_t comm = median_of(steps, &StepFacts::comm_ns);
  const int64_t exposed_comm = median_of(steps, &StepFacts::exposed_comm_ns);
  if (step <= 0) return;
  // GPU work launched in a step can run past its end when the CPU runs ahead (work queued for
  // the next step); more than 100 % busy means the GPU cannot keep up: it is saturated.
  const double share = std::min(1.0, static_cast<double>(busy) / static_cast<double>(step));
  const double compute_share = std::min(1.0, static_cast<double>(compute) / static_cast<double>(step));
  const bool per_step = !f.steps.empty();
  const std::string unit = per_step                          ? fmt::format("the median of {} steady-state steps", steps.size())
                           : f.steady_window.duration_ns > 0 ? std::string("the trace after its start-up")
                                                             : std::string("the whole trace");
  const std::string span = describe_span(f, step);
  Finding x;
  x.evidence = {us("step_us", step), us("gpu_busy_us", busy), us("cpu_us", cpu), us("sync_wait_us", wait),
                percent("gpu_busy_pct", share)};
  const auto categories = ranked_categories(steps);
  for (const auto& [ns, c] : categories)
    if (c != CpuCategory::SyncWait) x.evidence.push_back(us(std::string(to_string(c)) + "_us", ns));
  if (comm > 0) x.evidence.insert(x.evidence.end(), {us("compute_us", compute), us("exposed_comm_us", exposed_comm)});
  const LoopFacts* loop = steps_loop(f, steps);
  if (loop)
    x.evidence.insert(x.evidence.end(), {count("iterations", loop->iterations.size()), us("iteration_us", loop->median_ns),
                                         us("iteration_gpu_busy_us", loop->gpu_median_ns)});
  if (per_step) {
    const StepFacts* example = steps.front();
    for (const StepFacts* s : steps)
      if (s->duration_ns == step) example = s;
    x.events.push_back({example->event, "typical step"});
  }
  if (compute_share >= kGpuBoundShare) {
    x.id = FindingId::gpu_bound;
    x.severity = Severity::Info;
    x.title = fmt::format("GPU-bound: the GPU is busy {} of {}", human_percent(share), span);
    x.detail = fmt::format(
        "In {}, GPU work (kernels, copies, memsets, all streams merged) covers {} of {}; the CPU's own "
        "work takes {}. The step time is set by the GPU work, so CPU-side tuning will not help: look at the "
        "kernels that take the most time.{}",
        unit, human_duration(busy), human_duration(step), human_duration(cpu),
        comm > 0 ? fmt::format(" Of it, compute (all but the NCCL/RCCL kernels) covers {}.", human_duration(compute)) : "");
    x.try_next = {"Start from the top of the kernel table: the largest kernels decide the step.",
                  "Use lower precision where accuracy allows (bf16/TF32 for matmuls), larger fused kernels "
                  "(torch.compile), or better kernels for the top shapes."};
    x.impact_ns = busy;
    x.impact_basis_ns = step;
  } else if (share < kOverheadBoundShare) {
    x.id = FindingId::overhead_bound;
    x.severity = Severity::Warning;
    x.title = fmt::format("Overhead-bound: the GPU is idle {} of {}, waiting for the CPU", human_percent(1 - share), span);
    std::string where;
    for (size_t i = 0; i < std::min(kCategoriesNamed, categories.size()); ++i)
      where += fmt::format("{}{} {}", i == 0 ? "" : i + 1 == std::min(kCategoriesNamed, categories.size()) ? " and " : ", ",
                           human_duration(categories[i].first), describe(categories[i].second));
    x.detail = fmt::format(
        "In {}, the GPU is busy only {} of {}. The rest of the time it has nothing queued, because the "
        "CPU is not done with its part: of {}, {}{}. Faster kernels would not shorten "
        "this step; less CPU time before each GPU launch would.",
        unit, human_duration(busy), human_duration(step), per_step ? "the step's thread" : "the main thread",
        where.empty() ? "nothing is recorded" : where,
        categories.size() > kCategoriesNamed ? " (the rest in the table of CPU time below)" : "");
    x.try_next = overhead_advice(categories.empty() ? CpuCategory::Other : categories.front().second);
    if (loop) {
      x.detail += iteration_words(*loop);
      // A generate() whose decode passes wait on launches (not on data, syncs or the allocator,
      // which have their own advice above): each pass is one small forward, what a CUDA graph fixes.
      const CpuCategory top = categories.empty() ? CpuCategory::Other : categories.front().second;
      const bool launch_side = top == CpuCategory::Dispatch || top == CpuCategory::Launch ||
                               top == CpuCategory::Python || top == CpuCategory::Other;
      if (loop->first_tokens > 0 && launch_side && f.compile.compiled_regions == 0)
        x.try_next.insert(x.try_next.begin(),
                          "Each decode pass is a small forward that waits on its launches: a static KV cache "
                          "(cache_implementation=\"static\") lets torch.compile replay the whole pass as one CUDA "
                          "graph; a larger batch gives each launch more work.");
    }
    x.impact_ns = step - busy;
    x.impact_basis_ns = step;
  } else {
    return;
  }
  out.push_back(std::move(x));
}

}  // namespace whyslow
