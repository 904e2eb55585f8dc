// The verdict of a diff: which trace is faster per step and by how much, decomposed into GPU time
// and CPU time saved or added, and which of the two decided — the step is overhead-bound (the CPU
// sets the pace) or GPU-bound. Then what to try.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// Medians closer than 2 % of A's are within run-to-run noise for steps of any size…
constexpr double kSameShare = 0.02;
// …and so are medians closer than twice the steps' own spread (median absolute deviation).
constexpr int64_t kSpreadFactor = 2;
// The same bounds as the overhead_bound / gpu_bound findings (src/explain/rules/step_bound.cpp).
constexpr double kGpuBoundShare = 0.80;
constexpr double kOverheadBoundShare = 0.50;

std::string signed_duration(int64_t ns) { return fmt::format("{}{}", ns > 0 ? "+" : "", human_duration(ns)); }

std::string more_or_less(int64_t delta_ns, const char* what) {
  if (delta_ns == 0) return fmt::format("the same {}", what);
  return fmt::format("{} {} {}", human_duration(std::llabs(delta_ns)), delta_ns < 0 ? "less" : "more", what);
}

}  // namespace

void judge(Diff& d) {
  Verdict& v = d.verdict;
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  if (a.steps == 0 || b.steps == 0) {
    v.comparable = false;
    v.summary = "One of the traces has no steps and no events to measure: nothing to compare.";
    return;
  }
  v.delta_step_ns = b.step.median - a.step.median;
  v.delta_pct = a.step.median > 0 ? 100.0 * static_cast<double>(v.delta_step_ns) / static_cast<double>(a.step.median) : 0;
  v.noise_ns = std::max(static_cast<int64_t>(kSameShare * static_cast<double>(a.step.median)),
                        kSpreadFactor * std::max(a.step_mad_ns, b.step_mad_ns));
  v.faster = std::llabs(v.delta_step_ns) < v.noise_ns ? "same" : v.delta_step_ns < 0 ? "b" : "a";
  v.delta_gpu_busy_ns = b.gpu_busy.median - a.gpu_busy.median;
  v.delta_cpu_ns = b.cpu.median - a.cpu.median;
  const double share = b.step.median > 0
                           ? std::min(1.0, static_cast<double>(b.gpu_busy.median) / static_cast<double>(b.step.median))
                           : 0;
  v.decided_by = share >= kGpuBoundShare ? "gpu" : share < kOverheadBoundShare ? "cpu" : "both";
  v.syncs_every_step = b.sync_wait.min > 0;

  if (!v.comparable) {
    v.summary = fmt::format("No verdict: the traces do not run the same workload. Their median steps are {} (A) and {} (B).",
                            human_duration(a.step.median), human_duration(b.step.median));
    v.try_next = {"Compare two traces of the same workload: before and after one change."};
    return;
  }
  const std::string work = fmt::format("B runs {} per step and spends {}.", more_or_less(v.delta_gpu_busy_ns, "GPU work"),
                                       more_or_less(v.delta_cpu_ns, "CPU time"));
  std::string bound;
  if (v.decided_by == "cpu")
    bound = fmt::format(" B's steps are overhead-bound (the GPU is busy {} of the step){}, so the CPU time decides the step.",
                        human_percent(share),
                        v.syncs_every_step ? " and every step waits for the GPU before the next begins" : "");
  else if (v.decided_by == "gpu")
    bound = fmt::format(" B's steps are GPU-bound (the GPU is busy {} of the step), so the GPU work decides the step.",
                        human_percent(share));
  else
    bound = fmt::format(" B's GPU is busy {} of the step: both the CPU and the GPU time shape it.", human_percent(share));

  if (v.faster == "same") {
    v.summary = fmt::format("No measurable difference: B's median step is {} ({} {:+.1f} %) against A's {}, within the noise "
                            "of {} (the larger of 2 % and twice the steps' spread). {}{}",
                            human_duration(b.step.median), signed_duration(v.delta_step_ns), v.delta_pct,
                            human_duration(a.step.median), human_duration(v.noise_ns), work, bound);
  } else {
    const bool b_faster = v.faster == "b";
    v.summary = fmt::format("{} is faster: B's median step is {} against A's {} ({}, {:+.1f} %). {}{}",
                            b_faster ? "B" : "A", human_duration(b.step.median), human_duration(a.step.median),
                            signed_duration(v.delta_step_ns), v.delta_pct, work, bound);
  }

  const bool cpu_added = v.delta_cpu_ns > 0, gpu_saved = v.delta_gpu_busy_ns < 0;
  if (v.faster == "a" && v.decided_by != "gpu" && cpu_added) {
    v.try_next = {"Cut B's CPU time per step: CUDA graphs (torch.compile(mode=\"reduce-overhead\")) replay the whole "
                  "step with one launch.",
                  "Give each call more work (a larger batch) so the fixed CPU cost per call is spread over more data.",
                  "Drop the per-step synchronize so the CPU can queue the next step while the GPU works.",
                  "If none of these applies, keep A: at this size the change costs more CPU than it saves GPU."};
  } else if (v.faster == "a") {
    v.try_next = {"Look at the matched kernels that got slower and at the replacements with more GPU time below.",
                  "Check that both traces ran the same shapes and dtypes (the op table's Input Dims)."};
  } else if (v.faster == "b") {
    v.try_next = {gpu_saved ? "Keep B: it saves GPU work per step, and that is what the step waits for."
                            : "Keep B: it saves CPU time per step.",
                  "Profile B again with a larger batch to see whether the gain holds as the GPU work grows."};
  } else {
    v.try_next = {fmt::format("Neither side wins at this size; keep the simpler one, or try a size where the {}.",
                              v.decided_by == "cpu" ? "GPU work is larger" : "CPU overhead matters more")};
  }
}

}  // namespace whyslow
