// `whyslow diff A B`: did the change pay? Compares the steady-state steps of two traces (eager
// vs torch.compile, before vs after): step, CPU and GPU time, kernels and launches per step, which
// kernels of B replace which of A, torch.compile's own cost, CUDA graphs — and a verdict that says
// which side is faster and whether the CPU or the GPU decided it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// A per-step quantity over the steady-state steps of one trace.
struct Spread {
  int64_t median = 0, min = 0, max = 0;
};

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
  bool present() const { return region_calls > 0 || graph_calls > 0 || compile_ns > 0; }
};

// CUDA graph replay per steady step.
struct GraphReplay {
  double launches = 0;          // cudaGraphLaunch / hipGraphLaunch calls per step
  double kernels_per_launch = 0;
  double copies = 0;            // memcpys per step next to the replays (static-input copies)
};

// One trace's steady-state step.
struct StepProfile {
  std::string path;
  std::string device;              // deviceProperties[0].name, "" when absent
  size_t steps = 0;                // steady steps compared
  std::vector<std::string> left_out;  // "ProfilerStep#0 (cold start, 145 ms)"
  bool whole_window = false;       // no ProfilerStep annotations: the trace is one step
  Spread step, cpu, gpu_busy, gpu_idle, sync_wait;
  Spread kernels, launches, memcpys, memcpy_bytes, memsets, memset_bytes;
  std::map<std::string, Spread> launches_by_api;  // cudaLaunchKernel, cuLaunchKernelEx, cudaGraphLaunch, …
  int64_t step_mad_ns = 0;         // median absolute deviation of the step durations
  CompileCost compile;
  GraphReplay graphs;
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

struct Verdict {
  bool comparable = true;       // false: the traces share nothing, so no verdict is given
  std::string faster;           // "a", "b" or "same"
  int64_t delta_step_ns = 0;    // B − A, median step
  double delta_pct = 0;         // relative to A
  int64_t noise_ns = 0;         // the larger of 2 % of A and twice the larger MAD
  int64_t delta_gpu_busy_ns = 0, delta_cpu_ns = 0;
  std::string decided_by;       // "cpu", "gpu" or "both": what bounds B's steps
  bool syncs_every_step = false;  // each B step waits for the GPU, so CPU cost lands on the step
  std::string summary;
  std::vector<std::string> try_next;
};

struct Diff {
  StepProfile a, b;
  std::vector<std::string> mismatches;  // said before anything else
  std::vector<KernelDelta> matched, only_a, only_b;
  std::vector<Replacement> replacements;
  std::string alignment_note;  // why replacements could not be computed, if so
  Verdict verdict;
};

Diff diff_traces(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb);

// Parts of diff_traces, one file each.
StepProfile profile_steps(const Trace& t, const Facts& f);
void compare_kernels(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, Diff& d);
void judge(Diff& d);

}  // namespace whyslow
