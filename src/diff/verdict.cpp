// The verdict of a diff: is one trace's step faster, judged from the two sets of step durations
// (not from their medians alone), which part of the step the time was saved or lost in, what bounds
// the steps, and — decided in the same place from the same facts — what to keep and try.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// Medians closer than 2 % of A's are "same" even when the difference is real: a whole program
// drifts by about that much between runs (clocks, placement, other processes), so a smaller
// change is not worth acting on.
constexpr double kMinChangeShare = 0.02;
// The two-sided significance level of the rank test: the conventional 5 % — one "A is faster"
// in twenty comparisons of two runs of one program would be noise.
constexpr double kSignificance = 0.05;
// Below 30 % of GPU time on shared kernels and on shared shapes, the traces run different
// workloads. Runs of one program measured here share at least 56 % (eager vs CUDA graphs, by
// kernel) and usually all of it (by shape); a 32-token decode step and a 15,360-token prefill step
// of one model share 11 % (a few copy and norm kernels), unrelated models under 7 %.
constexpr double kMinComparableShare = 0.30;
// The same bounds as the overhead_bound / gpu_bound findings (src/explain/rules/step_bound.cpp).
constexpr double kGpuBoundShare = 0.80;
constexpr double kOverheadBoundShare = 0.50;
// How many of the blocks that changed most the summary names.
constexpr size_t kLargestChanges = 3;

std::string signed_duration(int64_t ns) { return fmt::format("{}{}", ns > 0 ? "+" : "", human_duration(ns)); }

std::string more_or_less(int64_t delta_ns, const char* what) {
  if (delta_ns == 0) return fmt::format("the same {}", what);
  return fmt::format("{} {} {}", human_duration(std::llabs(delta_ns)), delta_ns < 0 ? "less" : "more", what);
}

double busy_share(const StepProfile& p) {
  return p.step.median > 0 ? std::min(1.0, static_cast<double>(p.gpu_busy.median) / static_cast<double>(p.step.median)) : 0;
}

std::string bound_of(const StepProfile& p) {
  const double share = busy_share(p);
  return share >= kGpuBoundShare ? "gpu" : share < kOverheadBoundShare ? "cpu" : "both";
}

// "the CPU sets the pace of B's steps", or with a step bound by both, "the CPU shapes B's steps".
std::string pace(const char* part, const std::string& bound, const char* side) {
  if (bound == "both") return fmt::format("{} shapes {}'s steps as much as the {}", part, side, std::string_view(part) == "the CPU" ? "GPU" : "CPU");
  return fmt::format("{} sets the pace of {}'s steps", part, side);
}

std::string p_text(double p) { return p < 0.001 ? fmt::format("{:.1e}", p) : fmt::format("{:.3f}", p); }

// Faster side and why, from the step distributions.
void decide_faster(Verdict& v, const StepProfile& a, const StepProfile& b) {
  const int64_t min_change = static_cast<int64_t>(kMinChangeShare * static_cast<double>(a.step.median));
  v.noise_ns = min_change;
  const std::string direction = v.delta_step_ns < 0 ? "b" : "a";
  if (std::llabs(v.delta_step_ns) < min_change || v.delta_step_ns == 0) {
    v.faster = "same";
    v.basis = "min_change";
  } else if (a.steps < 2 || b.steps < 2) {
    v.faster = direction;
    v.basis = "single_step";
  } else if (v.test.ranges_disjoint) {
    v.faster = direction;
    v.basis = "ranges_disjoint";
  } else {
    v.basis = "rank_test";
    const bool b_slower_by_rank = v.test.u_b_slower > v.test.pairs / 2;
    const bool agrees = b_slower_by_rank == (v.delta_step_ns > 0);
    v.faster = v.test.p_value <= kSignificance && agrees ? direction : "same";
  }
}

// What to keep and why, from the verdict and the bound of the slower side: a saving explains a
// verdict only in the part of the step that bounds the steps it was saved from.
Advice decide_advice(const Verdict& v, const StepProfile& a, const StepProfile& b) {
  if (v.faster != "a" && v.faster != "b") return {};
  const bool b_faster = v.faster == "b";
  const StepProfile& slow = b_faster ? a : b;
  const StepProfile& fast = b_faster ? b : a;
  const std::string& slow_bound = b_faster ? v.bound_a : v.bound_b;
  const int64_t gpu_extra = slow.gpu_busy.median - fast.gpu_busy.median;
  const int64_t cpu_extra = slow.cpu.median - fast.cpu.median;
  Advice out{v.faster, ""};
  if (slow_bound != "cpu" && gpu_extra > 0 && (slow_bound == "gpu" || gpu_extra >= cpu_extra)) out.because = "gpu_work";
  else if (slow_bound != "gpu" && cpu_extra > 0 && (slow_bound == "cpu" || cpu_extra > gpu_extra)) out.because = "cpu_time";
  return out;
}

std::vector<std::string> advice_words(const Verdict& v, const StepProfile& a, const StepProfile& b) {
  const Advice& x = v.advice;
  if (x.keep.empty() && v.basis == "rank_test")
    return {fmt::format("Profile more steps: with {} and {}, a change of {:+.1f} % is not told apart from the steps' spread.",
                        a.steps, b.steps, v.delta_pct)};
  if (x.keep.empty())
    return {fmt::format("Neither side wins at this size; keep the simpler one, or try a size where the {}.",
                        v.bound_b == "cpu" ? "GPU work is larger" : "CPU overhead matters more")};
  const bool keep_b = x.keep == "b";
  const StepProfile& slow = keep_b ? a : b;
  const StepProfile& fast = keep_b ? b : a;
  const char* slow_name = keep_b ? "A" : "B";
  if (keep_b && x.because == "gpu_work")
    return {fmt::format("Keep B: it saves {} of GPU work per step, and {}.",
                        human_duration(slow.gpu_busy.median - fast.gpu_busy.median), pace("the GPU work", v.bound_a, "A")),
            "Profile B again with a larger batch to see whether the gain holds as the GPU work grows."};
  if (keep_b && x.because == "cpu_time")
    return {fmt::format("Keep B: it saves {} of CPU time per step, and {}.", human_duration(slow.cpu.median - fast.cpu.median),
                        pace("the CPU", v.bound_a, "A")),
            "Profile B again with a larger batch: as the GPU work grows, the CPU saving matters less."};
  if (keep_b)
    return {"Keep B: its steps are shorter, though neither by the GPU work alone nor by the CPU time alone; the "
            "blocks that changed most are listed below."};
  if (x.because == "cpu_time") {
    std::vector<std::string> out = {
        "Cut B's CPU time per step: CUDA graphs (torch.compile(mode=\"reduce-overhead\")) replay the whole step with one launch.",
        "Give each call more work (a larger batch) so the fixed CPU cost per call is spread over more data."};
    if (v.syncs_every_step)
      out.push_back("Drop the per-step synchronize so the CPU can queue the next step while the GPU works.");
    out.push_back(fmt::format("If none of these applies, keep A: B adds {} of CPU time per step, and {}.",
                              human_duration(slow.cpu.median - fast.cpu.median), pace("the CPU", v.bound_b, "B")));
    return out;
  }
  if (x.because == "gpu_work")
    return {fmt::format("Keep A: B adds {} of GPU work per step, and {}.",
                        human_duration(slow.gpu_busy.median - fast.gpu_busy.median), pace("the GPU work", v.bound_b, "B")),
            "Look at the matched kernels that got slower and at the replacements with more GPU time below.",
            "Check that both traces ran the same shapes and dtypes (the op table's Input Dims)."};
  return {fmt::format("Keep A: {}'s steps are longer, though neither by the GPU work alone nor by the CPU time alone; the "
                      "blocks that changed most are listed below.",
                      slow_name),
          "Check that both traces ran the same shapes and dtypes (the op table's Input Dims)."};
}

std::string verdict_words(const Verdict& v, const StepProfile& a, const StepProfile& b) {
  const std::string medians = fmt::format("B's median step is {} against A's {} ({}, {:+.1f} %)", human_duration(b.step.median),
                                          human_duration(a.step.median), signed_duration(v.delta_step_ns), v.delta_pct);
  const std::string counts = fmt::format("{} and {} steps", a.steps, b.steps);
  const char* winner = v.faster == "b" ? "B" : "A";
  if (v.basis == "min_change")
    return fmt::format("No measurable difference: {}, within 2 % of A's.", medians);
  if (v.basis == "single_step")
    return fmt::format("{} is faster on {}: {}. One step shows no run-to-run noise, so this may be noise: profile more "
                       "steps to be sure.",
                       winner, counts, medians);
  if (v.basis == "ranges_disjoint")
    return fmt::format("{} is faster: every B step is {} than every A step ({} and {} steps; by chance that happens with "
                       "probability {}). {}.",
                       winner, v.faster == "b" ? "shorter" : "longer", a.steps, b.steps, p_text(v.test.smallest_p), medians);
  if (v.faster == "same")
    return fmt::format("Not shown to differ: {}, but the steps' ranges overlap and their ranks differ no more than "
                       "chance makes them (Mann–Whitney p = {} over {}, above {}).",
                       medians, p_text(v.test.p_value), counts, p_text(kSignificance));
  return fmt::format("{} is faster: {}; the steps' ranks differ beyond chance (Mann–Whitney p = {} over {}, at most {}).",
                     winner, medians, p_text(v.test.p_value), counts, p_text(kSignificance));
}

// Two ranks of one job: the same workload, so the words say where their steps differ (compute or
// time inside the collectives, which a rank spends waiting for its peers) and advise no side.
std::string same_job_words(const Verdict& v, const StepProfile& a, const StepProfile& b) {
  std::string out = fmt::format(
      "A and B are ranks {} and {} of one {}-rank job (distributedInfo): the same workload ({} of the GPU time runs "
      "kernels both run). B's median step is {} against A's {} ({}).",
      a.rank, b.rank, a.world_size, human_percent(v.overlap.kernel_share), human_duration(b.step.median),
      human_duration(a.step.median), signed_duration(v.delta_step_ns));
  if (a.comm.median > 0 || b.comm.median > 0)
    out += fmt::format(
        " Their GPU time differs by {} in compute and {} in communication kernels: a rank's time inside a collective "
        "is mostly waiting for the last rank to join, so the rank that arrives later spends less time there.",
        signed_duration(b.compute.median - a.compute.median), signed_duration(b.comm.median - a.comm.median));
  out += fmt::format(" B spends {} per step.", more_or_less(v.delta_cpu_ns, "CPU time"));
  return out;
}

std::string bound_words(const Verdict& v, const StepProfile& a, const StepProfile& b) {
  auto one = [](const char* side, const std::string& bound, double share) {
    if (bound == "cpu") return fmt::format("{}'s steps are overhead-bound (the GPU is busy {} of the step): the CPU sets their pace", side, human_percent(share));
    if (bound == "gpu") return fmt::format("{}'s steps are GPU-bound (the GPU is busy {} of the step): the GPU work sets their pace", side, human_percent(share));
    return fmt::format("{}'s GPU is busy {} of the step: both the CPU and the GPU time shape it", side, human_percent(share));
  };
  std::string out = fmt::format(" {}{}.", one("B", v.bound_b, busy_share(b)),
                                v.syncs_every_step ? ", and every B step waits for the GPU before the next begins" : "");
  if (v.bound_a != v.bound_b) out += fmt::format(" {}.", one("A", v.bound_a, busy_share(a)));
  return out;
}

std::string change_words(const Verdict& v) {
  if (v.largest_changes.empty()) return "";
  std::string out = " The step's blocks that changed most, per step:";
  for (size_t i = 0; i < v.largest_changes.size(); ++i) {
    const Component& c = v.largest_changes[i];
    out += fmt::format("{} {} {} → {}", i ? ";" : "", c.label, human_duration(c.a.median), human_duration(c.b.median));
  }
  return out + ".";
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
  v.significance = kSignificance;
  v.delta_step_ns = b.step.median - a.step.median;
  v.delta_pct = a.step.median > 0 ? 100.0 * static_cast<double>(v.delta_step_ns) / static_cast<double>(a.step.median) : 0;
  v.delta_gpu_busy_ns = b.gpu_busy.median - a.gpu_busy.median;
  v.delta_cpu_ns = b.cpu.median - a.cpu.median;
  v.bound_a = bound_of(a);
  v.bound_b = bound_of(b);
  v.decided_by = v.bound_b;
  v.syncs_every_step = b.sync_wait.min > 0;
  v.test = rank_test(a.step_ns, b.step_ns);
  const WorkloadOverlap& o = v.overlap;
  if (o.measured && o.share < kMinComparableShare) {
    v.comparable = false;
    d.mismatches.push_back(fmt::format(
        "A and B do not look like the same workload: {} of the GPU time runs kernels both sides run, and {} runs on "
        "tensor shapes both sides use (each the smaller side's share; under {} both). A change of kernels alone "
        "(torch.compile, another GPU) keeps the shapes, a change of data alone keeps the kernels; here both differ, "
        "as between a decode step and a prefill step. Only step times are shown, and no verdict is given.",
        human_percent(o.kernel_share), o.shape_share < 0 ? std::string("none (a side recorded no shapes)") : human_percent(o.shape_share),
        human_percent(kMinComparableShare)));
  }

  if (!v.comparable) {
    v.summary = fmt::format("No verdict: the traces do not run the same workload. Their median steps are {} (A) and {} (B).",
                            human_duration(a.step.median), human_duration(b.step.median));
    v.try_next = {"Compare two traces of the same workload: before and after one change."};
    return;
  }
  decide_faster(v, a, b);
  v.same_job = a.world_size > 0 && a.world_size == b.world_size && a.rank >= 0 && b.rank >= 0 && a.rank != b.rank;
  v.advice = v.same_job ? Advice{} : decide_advice(v, a, b);
  const int64_t min_change = static_cast<int64_t>(kMinChangeShare * static_cast<double>(a.step.median));
  for (const Component& c : d.blocks)
    if (v.largest_changes.size() < kLargestChanges && c.delta() != 0 && std::llabs(c.delta()) >= min_change)
      v.largest_changes.push_back(c);

  if (v.same_job) {
    v.summary = same_job_words(v, a, b) + change_words(v);
    v.try_next = {"Ranks of one job are not alternatives to choose between: load every rank together (whyslow explain "
                  "rank0.json rank1.json … or their folder) to see which rank arrives late at the collectives and why."};
    return;
  }
  v.summary = fmt::format("{} B runs {} per step and spends {}.{}{}", verdict_words(v, a, b),
                          more_or_less(v.delta_gpu_busy_ns, "GPU work"), more_or_less(v.delta_cpu_ns, "CPU time"),
                          bound_words(v, a, b), change_words(v));
  v.try_next = advice_words(v, a, b);
}

}  // namespace whyslow
