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
// How many replayed fixes the advice names: the largest gains; the side's explain lists the rest.
constexpr size_t kFixesAdvised = 2;
// How many of the blocks that changed most the summary names.
constexpr size_t kLargestChanges = 3;
// A step farther than 3 robust spreads (3 MADs, at least 3 × the 2 % noise floor) from its side's
// median is an outlier: under a normal spread fewer than 1 step in 100 lies that far by chance,
// while the first active step of a schedule (the profiler's own warm-up) and a step that meets a
// one-off event (a GC pause, a checkpoint) routinely do.
constexpr double kOutlierSpreads = 3.0;
// The runs do the same work and the time moved in every part of the step at once when no single
// CPU-time category (or the GPU work) carries 60 % of the change: a slower or busier machine slows
// everything a little, a change to the program moves one part a lot.
constexpr double kConcentratedShare = 0.60;
// A cause is named when its part of the step moved by at least half the change of the step.
constexpr double kCauseShare = 0.50;
// The input wait is "gone" when B's is under a tenth of A's.
constexpr double kGoneShare = 0.10;

std::string signed_duration(int64_t ns) { return fmt::format("{}{}", ns > 0 ? "+" : "", human_duration(ns)); }
// "+5.0 %", or what stands in for it when A's median step is 0.
std::string signed_pct(const std::optional<double>& pct) {
  return pct ? fmt::format("{:+.1f} %", *pct) : "no percentage: A's median step is 0";
}

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

// Every step of one side longer than every step of the other, in the direction of `delta`.
bool disjoint(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t delta) {
  if (a.empty() || b.empty()) return false;
  const auto [amin, amax] = std::minmax_element(a.begin(), a.end());
  const auto [bmin, bmax] = std::minmax_element(b.begin(), b.end());
  return delta > 0 ? *bmin > *amax : *bmax < *amin;
}

// The one step of a side farthest from its median, when it is an outlier (kOutlierSpreads); -1 else.
// The median and the spread (MAD) are the profile's own.
int outlier_of(const StepProfile& p, int64_t noise) {
  const std::vector<int64_t>& v = p.step_ns;
  if (v.size() < 3) return -1;
  const int64_t m = p.step.median;
  const double spread = std::max<double>(static_cast<double>(p.step_mad_ns), static_cast<double>(noise));
  int far = -1;
  int64_t far_dev = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (const int64_t dev = std::llabs(v[i] - m); dev > far_dev) {
      far = static_cast<int>(i);
      far_dev = dev;
    }
  return static_cast<double>(far_dev) > kOutlierSpreads * spread ? far : -1;
}

// The same work on both sides: the same device, the same kernels with the same calls per step,
// the same CPU ops with the same calls per step, the same compiled regions and graph replays.
bool same_work(const Diff& d) {
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  if (a.device != b.device || !d.only_a.empty() || !d.only_b.empty()) return false;
  for (const KernelDelta& k : d.matched)
    if (k.a_calls != k.b_calls) return false;
  return a.ops_per_step == b.ops_per_step && a.launches.median == b.launches.median &&
         a.compile.region_calls == b.compile.region_calls && a.compile.steps_compiling == b.compile.steps_compiling &&
         a.graphs.launches == b.graphs.launches;
}

// The CPU-time categories, GPU busy and communication: the parts of the step by kind of time.
bool is_part(const Component& c) {
  return c.unit == Quantity::Time && (c.key == "gpu_busy_us" || c.key == "comm_us" ||
                                      (c.key.starts_with("cpu_") && c.key != "cpu_us"));
}

// The part that moved most in the direction of `delta`; nullptr when none moved that way.
const Component* component(const Diff& d, const std::string& key);

// The CPU blocked on the GPU is the GPU's time seen from the CPU: when the GPU work moved the same
// way by at least half as much, the wait followed it and is no cause of its own.
bool wait_follows_gpu(const Diff& d, const Component& c) {
  if (c.key != "cpu_sync_wait_us") return false;
  const Component* gpu = component(d, "gpu_busy_us");
  return gpu && (gpu->delta() > 0) == (c.delta() > 0) &&
         static_cast<double>(std::llabs(gpu->delta())) >= kCauseShare * static_cast<double>(std::llabs(c.delta()));
}

const Component* largest_part(const Diff& d, int64_t delta) {
  const Component* best = nullptr;
  for (const Component& c : d.components) {
    if (!is_part(c) || (delta > 0 ? c.delta() <= 0 : c.delta() >= 0) || wait_follows_gpu(d, c)) continue;
    if (!best || std::llabs(c.delta()) > std::llabs(best->delta())) best = &c;
  }
  return best;
}

// Faster side, why, and how sure, from the step distributions and where the change happened
// (docs/DIFF.md).
void decide_faster(Verdict& v, const Diff& d) {
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  const int64_t noise = static_cast<int64_t>(kMinChangeShare * static_cast<double>(a.step.median));
  v.noise_ns = noise;
  const int64_t delta = v.delta_step_ns;
  const std::string direction = delta < 0 ? "b" : "a";
  auto decide = [&](const char* basis, const char* confidence) {
    v.faster = direction;
    v.basis = basis;
    v.confidence = confidence;
  };
  if (std::llabs(delta) < noise || delta == 0) {
    v.faster = "same";
    v.basis = "min_change";
    return;
  }
  if (a.steps < 2 || b.steps < 2) return decide("single_step", "low");
  const Component* part = largest_part(d, delta);
  const bool concentrated =
      part && static_cast<double>(std::llabs(part->delta())) >= kConcentratedShare * static_cast<double>(std::llabs(delta));
  if (same_work(d) && !concentrated) {
    v.faster = "same";
    v.basis = "same_work";
    return;
  }
  if (v.test.ranges_disjoint) return decide("ranges_disjoint", v.test.smallest_p <= kSignificance ? "high" : "medium");
  const bool b_slower_by_rank = v.test.u_b_slower > v.test.pairs / 2;
  if (v.test.p_value <= kSignificance && b_slower_by_rank == (delta > 0)) return decide("rank_test", "high");
  // The same steps of one schedule (ProfilerStep#2..#4 on both sides): each pair moved the same way.
  if (a.step_names.size() >= 3 && a.step_names == b.step_names) {
    bool every = true;
    for (size_t i = 0; i < a.step_ns.size(); ++i) {
      const int64_t di = b.step_ns[i] - a.step_ns[i];
      every &= (delta > 0 ? di : -di) >= noise;
    }
    if (every) return decide("paired_steps", "medium");
  }
  // One outlier step hides a change every other step shows.
  for (const bool on_a : {true, false}) {
    const StepProfile& p = on_a ? a : b;
    const int out = outlier_of(p, noise);
    if (out < 0) continue;
    std::vector<int64_t> rest = p.step_ns;
    rest.erase(rest.begin() + out);
    if (!(on_a ? disjoint(rest, b.step_ns, delta) : disjoint(a.step_ns, rest, delta))) continue;
    v.outlier_step = fmt::format("{}'s {} ({})", on_a ? "A" : "B", p.step_names[out], human_duration(p.step_ns[out]));
    return decide("outlier_step", "medium");
  }
  v.faster = "same";
  v.basis = "within_spread";
}

// What made the difference (Cause): torch.compile's own costs first, where the slower side has them
// and they explain the change, else the part of the step that moved most.
Cause find_cause(const Diff& d, const Verdict& v) {
  Cause out;
  if (v.faster != "a" && v.faster != "b") return out;
  const bool b_slower = v.faster == "a";
  const StepProfile& slow = b_slower ? d.b : d.a;
  const StepProfile& fast = b_slower ? d.a : d.b;
  const int64_t gap = std::llabs(v.delta_step_ns);
  auto explains = [&](int64_t ns) { return static_cast<double>(ns) >= kCauseShare * static_cast<double>(gap); };
  auto per_step_compile = [](const StepProfile& p) {
    return p.steps == 0 ? 0 : p.compile.compile_per_step_ns * static_cast<int64_t>(p.compile.steps_compiling) /
                                  static_cast<int64_t>(p.steps);
  };
  const int64_t extra_compile = per_step_compile(slow) - per_step_compile(fast);
  const int64_t sign = b_slower ? 1 : -1;
  if (slow.compile.steps_compiling > 0 && explains(extra_compile))
    return {"recompilation", "cpu_compile_us", sign * extra_compile};
  if (slow.graphs.tree_events > 0 && slow.graphs.launches == 0 &&
      explains(slow.compile.region_ns - fast.compile.region_ns))
    return {"cuda_graphs_not_replayed", "cpu_us", sign * (slow.compile.region_ns - fast.compile.region_ns)};
  const int64_t compiled_call = slow.compile.region_ns + slow.compile.cache_lookup_ns;
  if (slow.compile.region_calls > fast.compile.region_calls && bound_of(slow) == "cpu" &&
      slow.gpu_busy.median < compiled_call && explains(compiled_call - fast.compile.region_ns))
    return {"compiled_call_overhead", "cpu_us", sign * (compiled_call - fast.compile.region_ns)};
  const Component* part = largest_part(d, v.delta_step_ns);
  if (!part || !explains(std::llabs(part->delta()))) return out;
  out.key = part->key;
  out.delta_ns = part->delta();
  out.kind = part->key == "cpu_data_loading_us" ? "data_loading"
             : part->key == "gpu_busy_us"       ? "gpu_work"
             : part->key == "comm_us"           ? "communication"
                                                : "cpu";
  return out;
}

// The replacement that saved (or cost) the most GPU time, in words: "3 kernels of A (…: 378 µs)
// became 1 in B (…: 63.0 µs)"; "" when none.
std::string replacement_words(const Diff& d) {
  const Replacement* best = nullptr;
  for (const Replacement& r : d.replacements)
    if (!r.a_work.empty() && !r.b_work.empty() && (!best || std::llabs(r.a_ns - r.b_ns) > std::llabs(best->a_ns - best->b_ns)))
      best = &r;
  if (!best) return "";
  auto names = [](const std::vector<std::string>& ops, const std::vector<std::string>& work) {
    const std::vector<std::string>& v = ops.empty() ? work : ops;
    std::string out;
    for (size_t i = 0; i < v.size() && i < 4; ++i) out += (i ? ", " : "") + v[i];
    if (v.size() > 4) out += ", …";
    return out;
  };
  return fmt::format("{} GPU operation{} of A ({}: {}) became {} in B ({}: {})", best->a_work.size(),
                     best->a_work.size() == 1 ? "" : "s", names(best->a_ops, best->a_work), human_duration(best->a_ns),
                     best->b_work.size(), names(best->b_ops, best->b_work), human_duration(best->b_ns));
}

const Component* component(const Diff& d, const std::string& key) {
  for (const Component& c : d.components)
    if (c.key == key) return &c;
  return nullptr;
}

// "because …": the cause in words, from the slower side's point of view where that reads best.
std::string cause_words(const Diff& d, const Verdict& v) {
  const Cause& c = v.cause;
  const bool b_slower = v.faster == "a";
  const StepProfile& slow = b_slower ? d.b : d.a;
  const char* slow_name = b_slower ? "B" : "A";
  if (c.kind == "recompilation")
    return fmt::format("{} recompiles in {} of its {} steps ({} compilation{}, {} per compiling step): torch.compile's "
                       "compilation, not the compiled code, sets its pace",
                       slow_name, slow.compile.steps_compiling, slow.steps, slow.compile.compilations,
                       slow.compile.compilations == 1 ? "" : "s", human_duration(slow.compile.compile_per_step_ns));
  if (c.kind == "cuda_graphs_not_replayed")
    return fmt::format("{} asks for CUDA graphs ({:.0f} cudagraphify call{} per step) but replays none: its {} launches "
                       "per step go one by one, and its compiled region takes {} per step",
                       slow_name, slow.graphs.tree_events, slow.graphs.tree_events == 1 ? "" : "s",
                       slow.launches.median, human_duration(slow.compile.region_ns));
  if (c.kind == "compiled_call_overhead")
    return fmt::format("for {} of GPU work per step, {}'s compiled call costs {} of CPU time per step (Dynamo's cache "
                       "lookup and guards {}, the AOT wrapper and the graph call {}): the fixed CPU cost of a "
                       "compiled call outweighs a workload this small",
                       human_duration(slow.gpu_busy.median), slow_name,
                       human_duration(slow.compile.region_ns + slow.compile.cache_lookup_ns),
                       human_duration(slow.compile.cache_lookup_ns), human_duration(slow.compile.region_ns));
  const Component* part = c.key.empty() ? nullptr : component(d, c.key);
  if (!part) return "";
  if (c.kind == "data_loading") {
    const int64_t hi = std::max(part->a.median, part->b.median), lo = std::min(part->a.median, part->b.median);
    const char* low_side = part->a.median < part->b.median ? "A" : "B";
    if (static_cast<double>(lo) < kGoneShare * static_cast<double>(hi))
      return fmt::format("the input wait is gone in {} ({} per step: the DataLoader wait is {} against {})", low_side,
                         signed_duration(-(hi - lo)), human_duration(lo), human_duration(hi));
    return fmt::format("the DataLoader wait is {} in B against {} in A ({} per step)", human_duration(part->b.median),
                       human_duration(part->a.median), signed_duration(part->delta()));
  }
  if (c.kind == "gpu_work") {
    std::string out = fmt::format("B runs {} per step", more_or_less(part->delta(), "GPU work"));
    if (const std::string r = replacement_words(d); !r.empty()) out += ": " + r;
    return out;
  }
  std::string label = part->label;
  label.erase(0, label.find_first_not_of(' '));
  return fmt::format("{} takes {} per step in B against {} in A ({})", label, human_duration(part->b.median),
                     human_duration(part->a.median), signed_duration(part->delta()));
}

// The first advice, from the cause; empty when the cause has none of its own.
std::vector<std::string> cause_advice(const Diff& d, const Verdict& v) {
  const Cause& c = v.cause;
  const bool b_slower = v.faster == "a";
  const StepProfile& slow = b_slower ? d.b : d.a;
  const char* slow_name = b_slower ? "B" : "A";
  if (c.kind == "recompilation")
    return {fmt::format("Stop {}'s recompilation: torch.compile(fn, dynamic=True), or torch._dynamo.mark_dynamic(x, dim) on "
                        "the input whose size changes, or pad the inputs to a few fixed sizes; TORCH_LOGS=recompiles "
                        "names the guard that fails (`whyslow explain` on {} shows the shapes).",
                        slow_name, slow_name)};
  if (c.kind == "cuda_graphs_not_replayed")
    return {fmt::format("TORCH_LOGS=perf_hints says why {}'s CUDA graphs are skipped; with shapes that change every call, "
                        "pad them to a few sizes, or drop mode=\"reduce-overhead\" whose bookkeeping buys nothing here.",
                        slow_name)};
  if (c.kind == "compiled_call_overhead")
    return {fmt::format("For {} of GPU work the compiled call's fixed CPU cost dominates: keep {} here, or give each "
                        "call more work (a larger batch){}.",
                        human_duration(slow.gpu_busy.median), b_slower ? "A" : "B",
                        // A side that already replays CUDA graphs pays the cost around the replay.
                        slow.graphs.launches > 0 ? ""
                                                 : ", or capture the step in a CUDA graph (mode=\"reduce-overhead\") so "
                                                   "one launch replaces the guards and the wrapper")};
  return {};
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

// The fixes B's own what-ifs replay as shortening its step by more than the noise, best first,
// each with the step it predicts: advice that agrees with the side's explain.
// Against torch.compile's own causes (recompiling, graphs never replayed) capturing CUDA graphs is
// no fix: the graph would be captured anew at each recompilation.
std::vector<std::string> replayed_fixes(const StepProfile& p, const char* side, int64_t noise, bool compile_cause) {
  std::vector<std::string> out;
  for (const WhatIf& w : p.what_if) {
    if (!w.per_step || w.step_ns - w.predicted_step_ns < std::max<int64_t>(noise, 1) || out.size() >= kFixesAdvised) continue;
    if (compile_cause && w.edit == "cuda-graphs") continue;
    out.push_back(fmt::format("On {}, {}: the replay of its steps saves {} per step ({}; `whyslow what-if {} --edit {}{}`).",
                              side, w.title, human_duration(w.step_ns - w.predicted_step_ns), w.change, side, w.edit,
                              w.param.empty() ? "" : "=" + w.param));
  }
  return out;
}

std::vector<std::string> advice_words(const Verdict& v, const StepProfile& a, const StepProfile& b) {
  const Advice& x = v.advice;
  if (x.keep.empty() && v.basis == "within_spread")
    return {fmt::format("Profile more steps: with {} and {}, a change of {} is not told apart from the steps' spread.",
                        a.steps, b.steps, v.delta_pct ? signed_pct(v.delta_pct) : signed_duration(v.delta_step_ns))};
  if (x.keep.empty() && v.basis == "recording")
    return {"Record A and B again with the same profiler options (the same record_shapes, with_stack, profile_memory "
            "and with_modules), one right after the other, and compare those."};
  if (x.keep.empty() && v.basis == "same_work")
    return {"The program did not change between the two traces: to compare two versions, change one thing between "
            "the recordings and record both on one quiet machine, one right after the other."};
  if (x.keep.empty())
    return {fmt::format("Neither side wins at this size; keep the simpler one, or try a size where the {}.",
                        cpu_only(a) && cpu_only(b) ? "work is larger"
                        : v.bound_b == "cpu"       ? "GPU work is larger"
                                                   : "CPU overhead matters more")};
  const bool keep_b = x.keep == "b";
  const StepProfile& slow = keep_b ? a : b;
  const StepProfile& fast = keep_b ? b : a;
  const char* slow_name = keep_b ? "A" : "B";
  if (keep_b && x.because == "gpu_work")
    return {fmt::format("Keep B: it saves {} of GPU work per step, and {}.",
                        human_duration(slow.gpu_busy.median - fast.gpu_busy.median), pace("the GPU work", v.bound_a, "A")),
            "Profile B again with a larger batch to see whether the gain holds as the GPU work grows."};
  if (keep_b && x.because == "cpu_time") {
    std::vector<std::string> advice = {fmt::format("Keep B: it saves {} of CPU time per step, and {}.",
                                                   human_duration(slow.cpu.median - fast.cpu.median), pace("the CPU", v.bound_a, "A"))};
    // Without a GPU the CPU does all the work: a larger batch grows the saving with it.
    if (!cpu_only(a) || !cpu_only(b))
      advice.push_back("Profile B again with a larger batch: as the GPU work grows, the CPU saving matters less.");
    return advice;
  }
  if (keep_b)
    return {"Keep B: its steps are shorter, though neither by the GPU work alone nor by the CPU time alone; the "
            "blocks that changed most are listed below."};
  if (x.because == "cpu_time") {
    const bool compile_cause = v.cause.kind == "recompilation" || v.cause.kind == "cuda_graphs_not_replayed";
    std::vector<std::string> out = replayed_fixes(slow, "B", v.noise_ns, compile_cause);
    // A larger call spreads a fixed CPU cost per call only where GPU work waits on it.
    if (slow.gpu_busy.median > 0 && v.bound_b == "cpu")
      out.push_back("Give each call more work (a larger batch) so the fixed CPU cost per call is spread over more data.");
    out.push_back(fmt::format("{}eep A: B adds {} of CPU time per step, and {}.", out.empty() ? "K" : "If none of these applies, k",
                              human_duration(slow.cpu.median - fast.cpu.median),
                              cpu_only(b) ? std::string("its steps run on the CPU alone") : pace("the CPU", v.bound_b, "B")));
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
  const std::string medians = fmt::format("B's median step is {} against A's {} ({}, {})", human_duration(b.step.median),
                                          human_duration(a.step.median), signed_duration(v.delta_step_ns),
                                          signed_pct(v.delta_pct));
  const std::string counts = fmt::format("{} and {} steps", a.steps, b.steps);
  const char* winner = v.faster == "b" ? "B" : "A";
  if (v.basis == "min_change")
    return fmt::format("No measurable difference: {}, within 2 % of A's.", medians);
  if (v.basis == "recording")
    return fmt::format("Not shown to differ: {}, but the two sides were recorded with different profiler options, whose "
                       "cost explains most of it (see the caveat above).",
                       medians);
  if (v.basis == "same_work")
    return fmt::format("Not shown to differ: {}, but both run the same ops and kernels with the same calls in every "
                       "step, and the time moved a little in every part of the step at once rather than in one: "
                       "run-to-run variation of the machine (CPU clocks, other processes), not a change in the program.",
                       medians);
  if (v.basis == "paired_steps")
    return fmt::format("{} is faster (confidence {}): each of the {} steps of one schedule ({} … {}) is {} in B than "
                       "the same step in A, by more than 2 % of A's median. {}.",
                       winner, v.confidence, a.steps, a.step_names.front(), a.step_names.back(),
                       v.faster == "b" ? "shorter" : "longer", medians);
  if (v.basis == "outlier_step")
    return fmt::format("{} is faster (confidence {}): leaving out {}, far from its side's other steps, every B step is "
                       "{} than every A step. {}.",
                       winner, v.confidence, v.outlier_step, v.faster == "b" ? "shorter" : "longer", medians);
  if (v.basis == "single_step")
    return fmt::format("{} is faster on {}: {}. One step shows no run-to-run noise, so this may be noise: profile more "
                       "steps to be sure.",
                       winner, counts, medians);
  if (v.basis == "ranges_disjoint")
    return fmt::format("{} is faster (confidence {}): every B step is {} than every A step ({} and {} steps; by chance "
                       "that happens with probability {}). {}.",
                       winner, v.confidence, v.faster == "b" ? "shorter" : "longer", a.steps, b.steps,
                       p_text(v.test.smallest_p), medians);
  if (v.faster == "same")
    return fmt::format("Not shown to differ: {}, but the steps' ranges overlap, no step of one schedule moved the same "
                       "way in every step, and their ranks differ no more than chance makes them (Mann–Whitney p = {} "
                       "over {}, above {}).",
                       medians, p_text(v.test.p_value), counts, p_text(kSignificance));
  return fmt::format("{} is faster (confidence {}): {}; the steps' ranks differ beyond chance (Mann–Whitney p = {} over "
                     "{}, at most {}).",
                     winner, v.confidence, medians, p_text(v.test.p_value), counts, p_text(kSignificance));
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
  if (cpu_only(a) && cpu_only(b)) return " Both run on the CPU alone: no GPU work is recorded in their steps.";
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

// " What changed per step: A launches 26 … ; B replays 1 CUDA graph …. The GEMMs moved …"
std::string mechanism_words(const Verdict& v) {
  std::string out;
  for (const std::string& m : v.mechanism) out += (out.empty() ? " What changed per step: " : " ") + m;
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

bool cpu_only(const StepProfile& p) { return p.gpu_busy.max == 0 && p.kernels.max == 0 && p.memcpys.max == 0; }

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
  if (a.step.median > 0) v.delta_pct = 100.0 * static_cast<double>(v.delta_step_ns) / static_cast<double>(a.step.median);
  v.delta_gpu_busy_ns = b.gpu_busy.median - a.gpu_busy.median;
  v.delta_cpu_ns = b.cpu.median - a.cpu.median;
  v.bound_a = bound_of(a);
  v.bound_b = bound_of(b);
  v.decided_by = v.bound_b;
  v.syncs_every_step = b.sync_wait.min > 0;
  v.test = rank_test(a.step_ns, b.step_ns);
  WorkloadOverlap& o = v.overlap;
  // An op swap (eager attention → SDPA) changes kernels and op shapes alike; the same blocks given
  // the same inputs still make it one problem solved two ways.
  // The same step structure, whatever kernels run it (one serving engine on two vendors' GPUs,
  // whose kernel names differ): the same CUDA graph replays per step and the same copies, bytes
  // included. A decode step and a prefill step replay other graphs and copy other inputs.
  const bool same_structure = a.graphs.launches > 0 && a.graphs.launches == b.graphs.launches &&
                              a.memcpys.median > 0 && a.memcpys.median == b.memcpys.median &&
                              a.memcpy_bytes.median == b.memcpy_bytes.median;
  if (o.measured && o.share < kMinComparableShare && same_structure) o.basis = "structure";
  const bool same_inputs = o.inputs_agree || o.top_input_share >= kMinComparableShare || same_structure;
  if (o.measured && o.share < kMinComparableShare && same_inputs && !same_structure) o.basis = "inputs";
  // A batch or a sequence scaled: other kernels for other sizes, the same problem per unit.
  const bool scaled = o.scaled_shape_share >= kMinComparableShare;
  // A few scaled inputs whose step's work does not otherwise match (a decode step's logits against
  // a prefill's) are no unit of the same work.
  if (o.scaled_shape_share >= 0 && !scaled) v.per_unit = {};
  if (o.measured && o.share < kMinComparableShare && !same_inputs && scaled) o.basis = "scaled_shapes";
  if (o.measured && o.share < kMinComparableShare && !same_inputs && !scaled) {
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
  decide_faster(v, d);
  judge_recording(d);
  d.mismatches.insert(d.mismatches.end(), v.caveats.begin(), v.caveats.end());
  // Never claim a difference the instrumentation could explain.
  if (v.recording_explains && (v.faster == "a" || v.faster == "b")) {
    v.faster = "same";
    v.basis = "recording";
    v.confidence.clear();
  }
  compare_window_and_steady(d);
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
  v.cause = find_cause(d, v);
  const std::string because = cause_words(d, v);
  const std::string two_answers = window_and_steady_words(d);
  const std::string per_unit = per_unit_words(d);
  // Two CPU-only runs: their GPU work is nothing on both sides, not "the same GPU work".
  const std::string work = cpu_only(a) && cpu_only(b)
                               ? fmt::format("B spends {} per step", more_or_less(v.delta_cpu_ns, "CPU time"))
                               : fmt::format("B runs {} per step and spends {}", more_or_less(v.delta_gpu_busy_ns, "GPU work"),
                                             more_or_less(v.delta_cpu_ns, "CPU time"));
  v.summary = fmt::format("{}{}{}{}{} {}.{}{}", per_unit.empty() ? "" : per_unit + " ",
                          two_answers.empty() ? "" : two_answers + " ", two_answers.empty() && per_unit.empty() ? "" : "Step by step: ",
                          verdict_words(v, a, b),
                          (because.empty() ? "" : fmt::format(" Because {}.", because)) + mechanism_words(v), work,
                          bound_words(v, a, b), change_words(v));
  v.try_next = cause_advice(d, v);
  // Steps that do different amounts of work are judged per unit: that verdict leads, and step-level
  // advice to keep the other side would contradict it.
  if (const std::string keep = per_unit_advice(d); !keep.empty()) {
    v.advice = {v.per_unit.faster, v.advice.keep == v.per_unit.faster ? v.advice.because : ""};
    v.try_next.insert(v.try_next.begin(), keep);
    for (std::string& t : advice_words(v, a, b))
      if (!t.starts_with("Keep") && t.find("keep A") == std::string::npos && t.find("keep B") == std::string::npos) v.try_next.push_back(std::move(t));
    return;
  }
  // A cause of torch.compile's own has its advice first; the generic remedies for CPU time (CUDA
  // graphs, larger calls) would repeat it or, against recompilation, mislead.
  const bool compile_cause = !v.try_next.empty();
  for (std::string& t : advice_words(v, a, b))
    if (!compile_cause || (t.find("CUDA graphs (torch.compile(mode") == std::string::npos &&
                           t.find("Give each call more work") == std::string::npos))
      v.try_next.push_back(std::move(t));
}

}  // namespace whyslow
