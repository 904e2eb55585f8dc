// overhead_bound / gpu_bound: what limits a steady-state step (bound_scope.hpp decides, from why
// the GPU idles). A GPU that is busy most of the step is the bottleneck; one whose idle gaps end
// with work launched only after the GPU went idle waits for the CPU to launch (framework
// overhead, Python, launch latency, syncs). Busy with communication is neither: a rank inside a
// collective may be waiting for a peer, so only compute counts towards gpu_bound (exposed_comm
// and comm_wait speak for the rest). A stepless trace whose top-level work repeats (generate()
// under a bare profile()) is judged per iteration, the first (a prefill) apart.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/gemm_precision.hpp"
#include "analysis/core/median.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"
#include "explain/rules/graph_capture_gain.hpp"
#include "explain/rules/cpu_categories.hpp"
#include "explain/rules/host_op.hpp"

namespace whyslow {
namespace {

// Work from before the trace worth a sentence: 5 % of the time (vLLM's graph replays: 41–48 %).
constexpr double kWordedBacklogShare = 0.05;
// The categories named in the text: the few that hold most of the CPU time.
constexpr size_t kStepCategoriesNamed = 3;

// Advice to remove the step's synchronizations only where they cost something: their wait, or the
// GPU's idle time after them, at least 1 % of the step (the floor under which no finding warns).
constexpr double kSyncAdviceShare = 0.01;

// What to try when the GPU waits for the CPU depends on where the CPU time goes: launch overhead
// calls for fewer launches (CUDA graphs), an input pipeline or the allocator for their own fixes.
// A trace that already replays CUDA graphs gets no advice to use them: the launches left are outside them;
// nor one whose replay with the launches captured gains nothing (graph_capture_gain.hpp): its CPU
// time is not in the launches (a sleep, a wait, work that launches nothing). Removing per-step syncs
// comes last, where they cost something (`syncs_cost`), first where waiting is the CPU's top category.
std::vector<std::string> overhead_advice(CpuCategory top, bool replays_graphs, bool graphs_gain, bool from_torch,
                                         bool syncs_cost) {
  const std::string no_sync = "Remove per-step synchronization (.item(), .cpu(), torch.cuda.synchronize()) so the "
                              "CPU can run ahead and queue the next step.";
  std::vector<std::string> advice;
  switch (top) {
    case CpuCategory::DataLoading:
      advice = {"The input pipeline sets the pace, not launch overhead: see the data_loading finding (DataLoader "
                "workers, pinned memory, prefetching)."};
      break;
    case CpuCategory::Allocator:
      advice = {"The allocator sets the pace: see the alloc_churn finding (no empty_cache() in the loop, static "
                "shapes, expandable segments)."};
      break;
    case CpuCategory::SyncWait:
      return {no_sync, "Overlap: queue step N+1 before reading back step N's result."};
    case CpuCategory::CpuCompute:
      advice = {"Move the CPU work in the step (preprocessing, CPU tensor math) to the GPU or out of the loop."};
      break;
    case CpuCategory::Compile:
      advice = {"Avoid recompilation and guard cost: mark dynamic dimensions (torch._dynamo.mark_dynamic) or "
                "keep shapes static; check TORCH_LOGS=recompiles."};
      break;
    default:
      if (!graphs_gain && !replays_graphs) {
        advice = {"CUDA graphs or a larger batch would not shorten this step: the replay with its launches captured "
                  "gains under 1 %, so the CPU time is not in the launches. Find the host work between them that "
                  "launches nothing (the hotspot finding, the CPU-time table below)."};
        break;
      }
      advice = {"Give the GPU more work per launch: a larger batch, or fewer, bigger kernels.",
                replays_graphs ? "The trace already replays CUDA graphs: the waits are for the launches outside them "
                                 "(the CPU work between replays: input preparation, sampling, scheduling)."
                   : from_torch ? "Cut launch overhead: CUDA graphs (torch.compile(mode=\"reduce-overhead\") or "
                                  "torch.cuda.graphs) replay a whole step with one launch."
                                : "Cut launch overhead: a CUDA graph (cudaStreamBeginCapture … cudaStreamEndCapture, "
                                  "then cudaGraphLaunch) replays a whole step with one launch."};
  }
  if (syncs_cost) advice.push_back(no_sync);
  return advice;
}

// Matrix work already in 16 bits or fewer for at least this share of the matrix kernels' time
// needs no advice to lower its precision: half of it is the point past which the rest is the smaller part.
constexpr double kLowPrecisionMatrixShare = 0.5;

bool is_low_precision(GemmUnit u) {
  return u == GemmUnit::Bf16TensorCore || u == GemmUnit::Fp16TensorCore || u == GemmUnit::Fp8TensorCore ||
         u == GemmUnit::Int8TensorCore;
}

// What shortens GPU-bound steps, fitted to the trace: lower precision only for matrix work that
// is not already bf16/fp16/fp8/int8; torch.compile only for a torch program. The matrix work's
// precision comes from the roofline's models, else, where none has a model (a library's GEMMs
// without recorded shapes, DeepSeek's grouped FP8 GEMMs), from the GEMM kernels' names.
std::string gpu_work_advice(const Trace& t, const Facts& f) {
  int64_t matrix = 0, low = 0;
  for (const KernelRoofline& k : f.roofline.kernels)
    for (const RooflineGroup& g : k.groups) {
      if (g.cost.unit != MathUnit::Matrix) continue;
      matrix += g.verdict.ns;
      const Precision p = g.verdict.roof_precision;
      if (p == Precision::BF16 || p == Precision::FP16 || p == Precision::FP8 || p == Precision::INT8) low += g.verdict.ns;
    }
  if (matrix == 0)
    for (const KernelRow& k : f.kernels) {
      if (k.events.empty()) continue;
      const GemmUnit u = gemm_unit(t, k.events.front());
      if (u == GemmUnit::NotGemm || u == GemmUnit::UnknownGemm) continue;
      matrix += k.total_ns;
      if (is_low_precision(u)) low += k.total_ns;
    }
  const bool already_low = matrix > 0 && static_cast<double>(low) >= kLowPrecisionMatrixShare * static_cast<double>(matrix);
  const std::string fused = f.recording.from_torch ? "larger fused kernels (torch.compile)" : "larger fused kernels";
  if (already_low)
    return fmt::format("The matrix work already runs in 16 bits or fewer: {}, or better kernels for the top shapes.",
                       fused);
  return fmt::format("Use lower precision where accuracy allows (bf16/TF32 for matmuls), {}, or better kernels for "
                     "the top shapes.",
                     fused);
}

// Per iteration, in words: "each step is a loop of 10 iterations …".
std::string iteration_words(const LoopFacts& l) {
  const int64_t idle = std::max<int64_t>(0, l.median_ns - l.gpu_median_ns);
  return fmt::format(
      " Each step is a loop of {} iterations (its top-level work repeats{}): the first takes {}, the others a "
      "median {} each, in which the GPU is busy {} and idle {}: per iteration, as per step, the CPU sets the pace.",
      l.iteration_count, l.first_tokens > l.tokens_per_iteration && l.tokens_per_iteration > 0
                               ? fmt::format("; {} tokens in the first, {} in each of the others: a generate()'s prefill "
                                             "and decode passes", l.first_tokens, l.tokens_per_iteration)
                               : "",
      human_duration(l.iterations.front().duration_ns), human_duration(l.median_ns), human_duration(l.gpu_median_ns),
      human_duration(idle));
}

std::string decode_advice() {
  return "Each decode pass is a small forward that waits on its launches: a static KV cache "
         "(cache_implementation=\"static\") lets torch.compile replay the whole pass as one CUDA graph; a larger "
         "batch gives each launch more work.";
}

void add_iteration_evidence(const LoopFacts& l, const std::vector<const StepFacts*>& windows, std::vector<Evidence>& ev) {
  ev.insert(ev.end(), {count("iterations", l.iteration_count), us("first_iteration_us", l.iterations.front().duration_ns),
                       us("iteration_us", l.median_ns), us("iteration_gpu_busy_us", l.gpu_median_ns),
                       count("kernels_per_iteration", static_cast<uint64_t>(median_of(windows, &StepFacts::kernels))),
                       count("launches_per_iteration", static_cast<uint64_t>(median_of(windows, &StepFacts::launches)))});
  if (tokens_per_s(l) > 0) ev.push_back({"tokens_per_s", tokens_per_s(l), "count"});
}

// A stepless loop per iteration, in words: what one iteration (a decode pass) costs and launches.
std::string per_iteration_words(const LoopFacts& l, const std::vector<const StepFacts*>& windows) {
  const StepFacts& first = l.iterations.front();
  const int64_t kernels = median_of(windows, &StepFacts::kernels);
  const int64_t launches = median_of(windows, &StepFacts::launches);
  const bool decode = is_decode(l);
  std::string tokens;
  if (tokens_per_s(l) > 0)
    tokens = fmt::format(" {} tokens per pass ({} in the prefill): {:.0f} tokens/s.", l.tokens_per_iteration,
                         l.first_tokens, tokens_per_s(l));
  else if (decode && l.median_ns > 0)
    tokens = fmt::format(" One token per sequence per pass: {:.1f} tokens/s per sequence (record_shapes=True gives the "
                         "batch, and the tokens/s of all of it).", 1e9 / static_cast<double>(l.median_ns));
  std::string per_launch;
  if (launches > 0 && l.median_ns > l.gpu_median_ns)
    per_launch = fmt::format(" {} kernels per {} → {} of CPU per launch while the GPU waits.", kernels,
                             decode ? "token" : "iteration",
                             human_duration((l.median_ns - l.gpu_median_ns) / launches));
  return fmt::format(
      " The trace has no ProfilerStep, but its top-level work repeats: {} iterations{}. The first takes {} (GPU busy "
      "{}){}; each later one a median {}, with {} kernels from {} launches and the GPU busy {} of it.{}{}",
      l.iteration_count, decode ? ", one forward pass each (a generate())" : "", human_duration(first.duration_ns),
      human_duration(first.gpu_busy_ns), decode ? ": the prefill" : "", human_duration(l.median_ns), kernels, launches,
      human_duration(l.gpu_median_ns), tokens, per_launch);
}

}  // namespace

void rule_step_bound(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const BoundScope scope = bound_scope(f);
  if (scope.verdict != BoundVerdict::Gpu && scope.verdict != BoundVerdict::Launch) return;
  const auto& steps = scope.windows;
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
  const bool per_step = !f.steps.empty() && !scope.over_iterations;
  const std::string unit = scope_unit(f, scope);
  const std::string span = scope_span(f, scope, step);
  const std::string thread = per_step ? "the step's thread" : scope.over_iterations ? "the looping thread" : "the main thread";
  Finding x;
  x.evidence = {us("step_us", step), us("gpu_busy_us", busy), us("cpu_us", cpu), us("sync_wait_us", wait),
                percent("gpu_busy_pct", share)};
  const auto categories = ranked_categories(steps);
  for (const auto& [ns, c] : categories)
    if (c != CpuCategory::SyncWait) x.evidence.push_back(us(std::string(to_string(c)) + "_us", ns));
  if (comm > 0) x.evidence.insert(x.evidence.end(), {us("compute_us", compute), us("exposed_comm_us", exposed_comm)});
  const LoopFacts* loop = scope.over_iterations ? nullptr : scope.loop;
  if (loop)
    x.evidence.insert(x.evidence.end(), {count("iterations", loop->iteration_count), us("iteration_us", loop->median_ns),
                                         us("iteration_gpu_busy_us", loop->gpu_median_ns)});
  if (scope.over_iterations) add_iteration_evidence(*scope.loop, steps, x.evidence);
  add_idle_evidence(scope, x.evidence);
  const StepFacts* example = steps.front();
  for (const StepFacts* s : steps)
    if (s->duration_ns == step) example = s;
  if (example->event != kNoEvent) x.events.push_back({example->event, per_step ? "typical step" : "typical iteration"});
  const std::string split = " " + idle_split_words(scope);
  if (scope.verdict == BoundVerdict::Gpu) {
    x.id = FindingId::gpu_bound;
    x.severity = Severity::Info;
    const double backlog = scope.share(IdleCause::Backlog);
    x.title = backlog >= kWordedBacklogShare
                  ? fmt::format("GPU-bound: the GPU is busy or working through work queued before the trace {} of {}",
                                human_percent(scope.gpu), span)
                  : fmt::format("GPU-bound: the GPU is busy {} of {}", human_percent(scope.gpu), span);
    // GPU work longer than the step ran past its end (a share over 100 % is never printed).
    const std::string covers =
        busy > step ? fmt::format("takes {}, longer than the {} it was launched in: the GPU cannot keep up and "
                                  "finishes that work after it",
                                  human_duration(busy), human_duration(step))
                    : fmt::format("covers {} of {}", human_duration(busy), human_duration(step));
    // As the replay says: where capturing the launches in CUDA graphs gains something (the hotspot
    // then advises it), CPU-side tuning helps that much, not nothing.
    const WhatIf* graphs = graph_capture_gain(f);
    const std::string cpu_side =
        graphs ? fmt::format("CPU-side tuning gives back little: the replay with the launches in CUDA graphs saves {} a "
                             "step ({:.0f} %)",
                             human_duration(graphs->step_ns - graphs->predicted_step_ns),
                             100.0 * static_cast<double>(graphs->step_ns - graphs->predicted_step_ns) /
                                 static_cast<double>(graphs->step_ns))
               : std::string("CPU-side tuning will not help");
    x.detail = fmt::format(
        "In {}, GPU work (kernels, copies, memsets, all streams merged) {}; the CPU's own "
        "work takes {}. The step time is set by the GPU work, so {}: look at the kernels that take the most "
        "time.{}{}",
        unit, covers, human_duration(cpu), cpu_side,
        comm > 0 ? fmt::format(" Of it, compute (all but the communication kernels) covers {}.", human_duration(compute)) : "",
        (backlog >= kWordedBacklogShare
             ? fmt::format(" Before its first recorded work the GPU sat {} with work already queued: it was still "
                          "running work launched before the profiler started, so that stretch is GPU time too.",
                          human_duration(scope.idle.ns[static_cast<size_t>(IdleCause::Backlog)]))
             : std::string()) + split);
    x.try_next = {"Start from the top of the kernel table: the largest kernels decide the step.",
                  gpu_work_advice(t, f)};
    x.impact_ns = busy;
    x.impact_what = "the step's GPU work: only faster or fewer kernels shorten it (the kernel findings say which)";
    x.impact_basis_ns = step;
    out.push_back(std::move(x));
    return;
  }
  x.id = FindingId::overhead_bound;
  const CpuCategory top = categories.empty() ? CpuCategory::Other : categories.front().second;
  // Host collectives with the GPU idle beside them, per step: where they hold most of the GPU's wait
  // for the CPU, the CPU is communicating, and CUDA graphs or a larger batch are not the answer.
  const HostCommWait host = host_comm_wait(t, f, scope, step);
  const int64_t host_comm = host.ns;
  if (host_comm > 0) {
    x.evidence.push_back(us("host_comm_exposed_us", host_comm));
    x.severity = scope.launch >= kBoundWarningShare ? Severity::Warning : Severity::Info;
    x.title = fmt::format("{}he GPU waits for Gloo's collectives on the host: {} of {} with no GPU work beside them",
                          scope.mixed ? "Mixed, mostly: t" : "T", human_duration(host_comm), span);
    x.detail = fmt::format(
        "In {}, the GPU is busy only {} of {}, and of the time it waits for the CPU's next launch, the CPU spends {} "
        "in Gloo's collectives ({} spans): Gloo runs them on worker threads of the CPU, moving the tensors through "
        "host memory, from when this rank joins until every rank has. This is communication, not launch overhead: "
        "CUDA graphs or a larger batch would not remove it.{}",
        unit, human_duration(busy), human_duration(step), human_duration(host_comm), host.spans, split);
    x.try_next = {"For CUDA tensors, use NCCL (dist.init_process_group(\"nccl\"), one GPU per rank): its collectives "
                  "run on the GPU over NVLink or the network, beside the compute, not through host memory.",
                  "If a rank waits for one that joins late, load every rank's trace (whyslow explain rank*.json) to find "
                  "which and why."};
    // Not the CUDA-graph replay's (explain.cpp's fix_of): at most the communication no compute hides.
    x.impact_ns = host_comm;
    x.impact_what = "the host collectives' time with the GPU idle, per step: what moving them beside the compute "
                    "(NCCL) could give back at most";
    x.impact_basis_ns = step;
    out.push_back(std::move(x));
    return;
  }
  // Waiting for the DataLoader is data_loading's finding, with its own numbers: this one points there.
  x.severity = scope.launch >= kBoundWarningShare && top != CpuCategory::DataLoading ? Severity::Warning : Severity::Info;
  // One op of the user's holding most of the host's time on every call (its fix comes first below),
  // or the DataLoader: the title names what the CPU does, not launches it is not making.
  const HostOp op = dominant_host_op(t, f, scope);
  const std::string waits = fmt::format("{}he GPU waits for the CPU {} of {}", scope.mixed ? "Mixed, mostly: t" : "T",
                                        human_percent(scope.launch), span);
  if (op.found())
    x.title = fmt::format("{}: {} of the step in {}", waits, human_percent(op.share), t.names.view(op.name));
  else if (top == CpuCategory::DataLoading)
    x.title = waits + "; the CPU's largest share is the DataLoader's (data_loading)";
  else if (top == CpuCategory::CpuCompute)
    x.title = waits + "; the CPU's largest share is work of its own inside ops, not launches";
  else
    x.title = fmt::format("{}verhead-bound: the GPU waits for the CPU's launches {} of {}", scope.mixed ? "Mixed, mostly o" : "O",
                          human_percent(scope.launch), span);
  std::string where;
  for (size_t i = 0; i < std::min(kStepCategoriesNamed, categories.size()); ++i)
    where += fmt::format("{}{} {}", i == 0 ? "" : i + 1 == std::min(kStepCategoriesNamed, categories.size()) ? " and " : ", ",
                         human_duration(categories[i].first), cpu_category_words(categories[i].second));
  x.detail = fmt::format(
      "In {}, the GPU is busy only {} of {}. In its idle gaps the next GPU work had not been launched yet, "
      "because the CPU is not done with its part: of {}, {}{}. Faster kernels would not shorten "
      "this {}; less CPU time before each GPU launch would.",
      unit, human_duration(busy), human_duration(step), thread, where.empty() ? "nothing is recorded" : where,
      categories.size() > kStepCategoriesNamed ? " (the rest in the table of CPU time below)" : "",
      scope.over_iterations ? "pass" : "step");
  // Graphs are ruled out only where the plain capture was replayed and gained under 1 %: a compiled
  // step, whose only replay is reduce-overhead's (with its own per-call cost), keeps the advice.
  const bool plain_replayed = std::any_of(f.graph.what_if.begin(), f.graph.what_if.end(), [](const WhatIf& w) {
    return w.edit == "cuda-graphs" && w.param.empty() && w.per_step;
  });
  const double sync_cost = std::max(static_cast<double>(wait) / static_cast<double>(step), scope.share(IdleCause::Sync));
  x.try_next = overhead_advice(top, f.compile.graph_launches > 0, !plain_replayed || graph_capture_gain(f) != nullptr,
                               f.recording.from_torch, sync_cost >= kSyncAdviceShare);
  const bool launch_side = top == CpuCategory::Dispatch || top == CpuCategory::Launch || top == CpuCategory::Python ||
                           top == CpuCategory::Other;
  if (loop) {
    x.detail += iteration_words(*loop);
    // A generate() whose decode passes wait on launches (not on data, syncs or the allocator,
    // which have their own advice above): each pass is one small forward, what a CUDA graph fixes.
    if (loop->first_tokens > 0 && launch_side && f.compile.compiled_regions == 0)
      x.try_next.insert(x.try_next.begin(), decode_advice());
  }
  if (scope.over_iterations) {
    x.detail += per_iteration_words(*scope.loop, steps);
    // The decode advice names a larger batch and CUDA graphs itself: it replaces the generic first line.
    if (is_decode(*scope.loop) && launch_side && f.compile.compiled_regions == 0 && f.compile.graph_launches == 0)
      x.try_next.front() = decode_advice();
  }
  if (op.found()) {
    x.detail += host_op_words(t, f, scope, op);
    x.try_next.insert(x.try_next.begin(), host_op_advice(t, scope, op));
    const int64_t n = static_cast<int64_t>(steps.size());
    x.evidence.insert(x.evidence.end(), {us("host_op_us", op.ns / n), percent("host_op_pct", op.share),
                                         {"host_op_calls_per_window", static_cast<double>(op.calls) / static_cast<double>(n), "count"}});
    if (op.longest != kNoEvent) x.events.push_back({op.longest, "the op that holds the host's time: its longest call"});
    x.fix_edit = "host-op";
    x.fix_param = t.names.view(op.name);
  }
  x.detail += lazy_submission_words(scope);
  if (shows_lazy_submission(scope)) x.evidence.push_back(count("submitted_at_wait", scope.idle.submitted_at_wait));
  x.detail += split;
  x.impact_ns = static_cast<int64_t>(scope.launch * static_cast<double>(step));
  x.impact_what = "the GPU's idle time waiting for the CPU's launches, per step";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
