// `whyslow diff A B`: did the change pay? Compares the steady-state steps of two traces (eager
// vs torch.compile, before vs after): step, CPU and GPU time, kernels and launches per step, which
// kernels of B replace which of A, torch.compile's own cost, CUDA graphs — and a verdict that says
// which side is faster and whether the CPU or the GPU decided it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cpu/one_off_costs.hpp"
#include "analysis/facts.hpp"

namespace whyslow {

// Medians closer than 2 % of A's are "same" even when the difference is real: a whole program
// drifts by about that much between runs (clocks, placement, other processes), so a smaller
// change is not worth acting on.
inline constexpr double kMinChangeShare = 0.02;

// A per-step quantity over the steady-state steps of one trace.
struct Spread {
  int64_t median = 0, min = 0, max = 0;
};
Spread spread_of(std::vector<int64_t> values);  // empty: all 0

// torch.compile's CPU-side cost per steady step.
struct CompileCost {
  double region_calls = 0;          // "Torch-Compiled Region" calls per step
  int64_t region_ns = 0;            // their time per step
  double cache_lookups = 0;         // "TorchDynamo Cache Lookup" (guard evaluation)
  int64_t cache_lookup_ns = 0;
  int64_t wrapper_prologue_ns = 0;  // "AOTDispatcher Runtime Wrapper Prologue"
  double graph_calls = 0;           // "## Call CompiledFxGraph … ##"
  int64_t graph_call_ns = 0;
  int64_t outside_graph_ns = 0;     // region time not inside the graph calls: guards + wrappers
  double graph_breaks = 0;          // regions nested in another region, per step
  uint64_t recompilations = 0;      // "Torch-Compiled Region: F/R" with R > 0, in the whole trace
  int64_t compile_ns = 0;           // Dynamo/Inductor compilation inside the profiled window
  size_t steps_compiling = 0;       // steady steps with a compilation inside (Facts::compile)
  uint64_t compilations = 0;        // compilations inside the steady steps
  int64_t compile_per_step_ns = 0;  // median over the steady steps that compile
  bool present() const { return region_calls > 0 || graph_calls > 0 || compile_ns > 0; }
};

// CUDA graph replay per steady step.
struct GraphReplay {
  double launches = 0;          // cudaGraphLaunch / hipGraphLaunch calls per step
  double kernels_per_launch = 0;
  double copies = 0;            // memcpys per step next to the replays (static-input copies)
  double tree_events = 0;       // "cudagraphify…" calls per step: compiled code that asks for CUDA graphs
};

// The profiler options a trace was recorded with, read from what it holds (recording_caveats.cpp).
struct RecordingOptions {
  bool shapes = false;   // record_shapes: Input Dims on the ops
  bool stack = false;    // with_stack: python_function events
  bool memory = false;   // profile_memory: [memory] records
  bool modules = false;  // with_modules: nn.Module events
};
RecordingOptions recording_options(const Trace& t);

// One trace's steady-state step.
struct StepProfile {
  std::string path;
  std::string device;              // deviceProperties[0].name, "" when absent
  int32_t rank = -1, world_size = -1;  // distributedInfo, -1 when absent
  size_t steps = 0;                // steady steps compared
  std::vector<std::string> left_out;  // "ProfilerStep#0 (cold start, 145 ms)"
  std::vector<EventId> one_off_steps;  // steady steps left out for their one-off costs (compared_steps)
  bool whole_window = false;       // no ProfilerStep annotations: the trace is one step
  Spread step, cpu, gpu_busy, gpu_idle, sync_wait;
  Spread compute, comm;            // GPU busy = compute + exposed comm (steps[].compute_us, comm_us)
  Spread kernels, launches, memcpys, memcpy_bytes, memsets, memset_bytes;
  std::map<std::string, Spread> launches_by_api;  // cudaLaunchKernel, cuLaunchKernelEx, cudaGraphLaunch, …
  int64_t step_mad_ns = 0;         // median absolute deviation of the step durations
  std::vector<int64_t> step_ns;    // each steady step's duration, in time order: the distribution judged
  std::vector<std::string> step_names;  // their names ("ProfilerStep#2"), in the same order
  std::map<std::string, double> ops_per_step;  // CPU ops by name: calls per steady step
  CompileCost compile;
  GraphReplay graphs;
  OneOffCosts one_off;       // over what was profiled: every step, the cold one included
  // Once warm: the median of the steps that carry no one-off cost ("warm_steps"), else of the
  // steps less their one-off costs ("steps_without_one_off"), or without steps the window less
  // its one-off costs ("window_without_one_off").
  int64_t steady_ns = 0;
  std::string steady_basis;
  // The trace's own what-ifs (its explain's "What would it take"): the diff advises only fixes
  // whose replay shortens this side's step, so it never contradicts the side's explain.
  std::vector<WhatIf> what_if;
  RecordingOptions options;
};

// A kernel (or copy/memset) name and its time per steady step on each side.
struct KernelDelta {
  std::string name;
  double a_calls = 0, b_calls = 0;  // per step
  int64_t a_ns = 0, b_ns = 0;       // per step
};

// GPU work of A that B does differently, found by aligning one typical step of each: the
// stretches between kernels the two share are what changed.
struct Replacement {
  std::vector<std::string> a_work, b_work;  // kernel / copy names, in launch order
  std::vector<std::string> a_ops, b_ops;    // the ATen ops that launched them
  int64_t a_ns = 0, b_ns = 0;
  // "kernel": B runs fewer GPU operations (a real fusion); "graph": as many, replayed by one CUDA
  // graph launch; "dispatcher": fewer ops launch as many GPU operations (fused in PyTorch only);
  // "none": different kernels, same count; "removed" / "added": work on one side only.
  std::string fusion;
};

// The Mann–Whitney U test of two sets of step durations (rank_test.cpp).
struct RankTest {
  double u_b_slower = 0;         // pairs (a step, b step) with the B step longer; ties count ½
  double pairs = 0;              // |A| × |B|
  bool ranges_disjoint = false;  // every B step is longer than every A step, or every one shorter
  bool exact = false;            // p by enumerating every split (else the normal approximation)
  double p_value = 1;            // two-sided
  double smallest_p = 1;         // the smallest p these step counts allow: 2 / C(|A|+|B|, |A|)
};
RankTest rank_test(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// How much of the two traces' GPU work is the same work, each side's GPU time weighted
// (workload_overlap.cpp): the smaller of the two sides' shares of GPU time spent on kernels the
// other side also runs, and the same for the tensor shapes the launching ops were called with.
struct WorkloadOverlap {
  bool measured = false;    // both sides ran GPU work in their steady steps
  double kernel_share = 0;  // by kernel name
  double shape_share = -1;  // by input tensor shape; -1 when a side recorded no shapes
  double share = 0;         // the larger of the two: what the comparable verdict uses
  std::string basis;        // "kernels", "shapes" or "inputs": which of them makes the traces comparable
  // The steps' record_function blocks are the same on both sides and each is given the same first
  // input shape ("attention: [8, 16, 1024, 64]"): the same problem, whatever kernels solve it.
  bool inputs_agree = false;
  // The shape share with the scaled dimension of a per-unit comparison (PerUnit) set aside: the same
  // work at another batch has the same shapes but for it. -1 when there is no per-unit comparison.
  double scaled_shape_share = -1;
  // GPU time launched by top-level ops taking an input shape the other side's top-level ops take
  // (the smaller side's share; -1 without shapes): one problem however it is solved.
  double top_input_share = -1;
  std::vector<std::string> agreeing_inputs;  // "attention: [8, 16, 1024, 64]"
};

// A per-step quantity compared between A and B (step_components.cpp): its value in every steady
// step of each side, so the part of the step that changed can be named.
enum class Quantity { Time, Count };
struct Component {
  std::string key;    // JSON key: "cpu_us", "kernels", …; blocks: the block's name up to '#'
  std::string label;  // the text table's row
  Quantity unit = Quantity::Time;
  Spread a, b;        // over the steady steps
  int64_t delta() const { return b.median - a.median; }
};

// What the verdict advises: keep one side, and why. `because` names the part of the step the
// saving or the cost is in; it is only ever the part that bounds the slower side's steps.
struct Advice {
  std::string keep;     // "a", "b" or "" (neither wins)
  std::string because;  // "gpu_work", "cpu_time" or "" (the cause is not one part)
};

// The part of the step that made the difference, named by kind so the summary and the first advice
// follow from it (verdict.cpp): "recompilation" (the slower side compiles inside its steady steps),
// "cuda_graphs_not_replayed" (it asks for CUDA graphs and replays none), "compiled_call_overhead"
// (its compiled call's fixed CPU cost exceeds the GPU work it launches), "data_loading",
// "gpu_work", "communication", "cpu" (another CPU-time category: `key`), or "" (none found).
struct Cause {
  std::string kind;
  std::string key;       // the component behind it: "cpu_data_loading_us", "gpu_busy_us", …
  int64_t delta_ns = 0;  // B − A of that component, median per step
};

// One quantity of each side and which is smaller: "a", "b", or "same" within kMinChangeShare.
struct SideBySide {
  int64_t a_ns = 0, b_ns = 0;
  std::string faster;
  double ratio = 1;  // the larger over the smaller: "B is 32× slower"
};
// Sets `s` from A's and B's value (window_steady.cpp): the one comparison of two quantities.
void judge_side_by_side(SideBySide& s, int64_t a_ns, int64_t b_ns);
// Over what was profiled: window against window, one-off costs included (window_steady.cpp).
struct WindowVerdict : SideBySide {
  size_t a_steps = 0, b_steps = 0;
};
// Once warm: each side's steady step (StepProfile::steady_ns).
struct SteadyVerdict : SideBySide {
  std::string a_basis, b_basis;
};
// How many steps (calls, requests) the side that is faster once warm needs to pay back its extra
// one-off costs: "at_once" (it has no extra one-off cost), "after" (`calls`), "never" (it is not
// faster once warm); "" when neither side has one-off costs to pay back.
struct BreakEven {
  std::string status;
  double calls = 0;
  std::string basis;  // the numbers it comes from, in words
};

// Per unit of work (work_units.cpp): the two sides' steps do the same work scaled along one input
// dimension — the batch ("sample") or the sequence ("token") — so they are compared per unit.
// `unit` is "" when the steps do the same amount of work or the evidence does not say.
struct PerUnit : SideBySide {     // a_ns, b_ns: the steady step per unit
  std::string unit;
  double a_units = 0, b_units = 0;  // per step
  std::string evidence;             // "aten::linear's input [1, 128, 768] in A, [256, 128, 768] in B; …"
  double scaled_work_share = 0;     // of the steps of the side doing more units: the work that scales
};

struct Verdict {
  bool comparable = true;       // false: the traces do not run the same workload, so no verdict is given
  WorkloadOverlap overlap;
  std::string faster;           // "a", "b" or "same"
  // Why (docs/DIFF.md has the rule): "min_change" (medians within 2 %), "single_step" (one side has
  // one step), "same_work" (the same ops and kernels in every step, the time spread over every part
  // of it: the machine, not the program), "ranges_disjoint" (every B step slower, or faster, than
  // every A step), "rank_test" (Mann–Whitney p ≤ 5 %), "paired_steps" (the same steps of one
  // schedule, each moved the same way beyond the noise), "outlier_step" (ranges disjoint but for
  // one step far from its side's others), "within_spread" (none of these: not shown to differ),
  // "" when not comparable.
  std::string basis;
  std::string confidence;       // "high", "medium", "low" (single_step); "" when `faster` is "same"
  std::string outlier_step;     // outlier_step: the step left out, "B's ProfilerStep#7 (412 ms)"
  Cause cause;
  RankTest test;
  double significance = 0;      // the level p is held to
  int64_t delta_step_ns = 0;    // B − A, median step
  // Relative to A; none when A's median step is 0, where no percentage means anything ("+0.0 %" did).
  std::optional<double> delta_pct;
  int64_t noise_ns = 0;         // the smallest change of the median called a difference: 2 % of A
  int64_t delta_gpu_busy_ns = 0, delta_cpu_ns = 0;
  std::string bound_a, bound_b;  // "cpu", "gpu" or "both": what bounds each side's steps
  std::string decided_by;       // bound_b (kept for the JSON schema)
  bool syncs_every_step = false;  // each B step waits for the GPU, so CPU cost lands on the step
  // A and B are two ranks of one job (distributedInfo: same world size, different ranks): one
  // workload, so no side is advised; the difference is said as compute and communication.
  bool same_job = false;
  std::vector<Component> largest_changes;  // the blocks and step parts that moved most, largest first
  Advice advice;
  WindowVerdict window;
  SteadyVerdict steady;
  BreakEven break_even;
  PerUnit per_unit;
  // What changes the reading (recording_caveats.cpp): the sides recorded with different profiler
  // options, with the time that costs measured on the work both run alike.
  std::vector<std::string> caveats;
  // What the program does differently per step (mechanism.cpp): launches against graph replays,
  // GEMM units, copies' bandwidth, compiled regions, communication, what now dominates.
  std::vector<std::string> mechanism;
  bool recording_explains = false;  // that cost is at least half the change: no side is called faster
  std::string summary;
  std::vector<std::string> try_next;
};

struct Diff {
  StepProfile a, b;
  std::vector<std::string> mismatches;  // said before anything else
  std::vector<KernelDelta> matched, only_a, only_b;
  std::vector<Replacement> replacements;
  std::string alignment_note;  // why replacements could not be computed, if so
  std::vector<Component> components;  // the parts of the step, in table order (step, CPU, GPU, …)
  std::vector<Component> blocks;      // the step's top-level blocks and ops by name, largest change first
  Verdict verdict;
};

Diff diff_traces(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb);

// A top-level block's name up to '#' (step_components.cpp): `enumerate(DataLoader)#<iterator>`
// and `Optimizer.step#<class>.step` name the implementation after it.
std::string block_key(std::string_view name);

// No GPU work in the compared steps: a CPU-only run (or one recorded without CUDA activity).
// Both sides so: the verdict and the text say nothing of a GPU (verdict.cpp).
bool cpu_only(const StepProfile& p);

// Parts of diff_traces, one file each.
StepProfile profile_steps(const Trace& t, const Facts& f);
void compare_kernels(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, Diff& d);
WorkloadOverlap measure_overlap(const Trace& a, const Facts& fa, const StepProfile& pa, const Trace& b, const Facts& fb,
                                const StepProfile& pb, const PerUnit& unit);
// The steps a profile compares: the steady steps less those it left out for their one-off costs.
std::vector<const StepFacts*> compared_steps(const Facts& f, const StepProfile& p);
void compare_components(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, Diff& d);
void compare_window_and_steady(Diff& d);  // window_steady.cpp: verdict.window, .steady, .break_even
// "Over what was profiled … B is 32× slower …; once warm B is 1.7× faster …": "" when both answers
// agree and no side's one-off costs are worth saying.
std::string window_and_steady_words(const Diff& d);
PerUnit compare_work_units(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, const Diff& d);
std::string per_unit_words(const Diff& d);   // "Per sample B is 105× faster …"; "" without per_unit
std::string per_unit_advice(const Diff& d);  // "Keep B: per sample it is …"; "" without a faster side
std::string ratio_words(double ratio);       // "1.7×", "105×"
std::vector<std::string> find_mechanism(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, const Diff& d);
void judge_recording(Diff& d);  // recording_caveats.cpp: verdict.caveats, recording_explains
void judge(Diff& d);

// `whyslow diff --fail-if-slower PCT` (ci_gate.cpp): fails when the verdict says B is slower than A
// by more than `max_slower_pct` percent with at least medium confidence. `slower_pct`: B's change
// against A in % (negative when B is faster; none when A's median is 0); `reason`: the outcome in
// words, without the exit status.
struct GateResult { bool fails; std::optional<double> slower_pct; std::string reason; };
GateResult ci_gate(const Diff& d, double max_slower_pct);

}  // namespace whyslow
