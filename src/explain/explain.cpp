#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/event_names.hpp"
#include "analysis/graph/what_if.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"

#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"

namespace whyslow {
namespace {

// The part of its basis (its step, or the trace window) a finding would give back.
double recoverable_share(const Finding& x, const Facts& f) {
  const int64_t basis = x.impact_basis_ns > 0 ? x.impact_basis_ns : f.window.duration_ns;
  return basis > 0 ? static_cast<double>(x.impact_ns) / static_cast<double>(basis) : 0;
}

// The GPU's busy share of the steady state (the bound verdict's windows), else of the trace window.
double gpu_busy_share(const Facts& f) {
  const BoundScope scope = bound_scope(f);
  if (scope.total_ns > 0) return std::clamp(scope.gpu, 0.0, 1.0);
  return f.window.duration_ns > 0 ? std::clamp(static_cast<double>(f.gpu_busy_ns) / static_cast<double>(f.window.duration_ns), 0.0, 1.0) : 0;
}

// The edit (analysis/graph/edits/) that is each finding's fix, where one is modelled. The CPU work
// before a step's first launch is fixed by workers when it is the DataLoader's (the piece it names).
std::string_view fix_of(const Trace& t, const Finding& x) {
  switch (x.id) {
    case FindingId::cpu_prefix:
      for (const EventRef& r : x.events)
        if (r.event != kNoEvent && is_data_loader_span(t.name_of(r.event))) return "workers";
      return "";
    case FindingId::cold_start: return "one-off";
    case FindingId::overhead_bound:
      // The GPU waiting on Gloo's collectives (step_bound.cpp): not the launches, not graphs' fix; the
      // rule's own estimate (the GPU's wait for the CPU) stands until an edit models moving that work.
      // (One op of the user's holding the host's time is named by the rule: Finding::fix_edit.)
      for (const Evidence& e : x.evidence)
        if (e.key == "host_comm_exposed_us") return "";
      return "cuda-graphs";
    case FindingId::cuda_graphs_not_replayed: return "cuda-graphs";
    case FindingId::sync_wait:
    case FindingId::host_sync_in_loop: return "no-sync";
    case FindingId::pageable_memcpy: return "pin";
    case FindingId::data_loading: return "workers";
    case FindingId::unfused_elementwise: return "fuse";
    case FindingId::fp32_matmul: return "tensor-cores";
    case FindingId::low_efficiency: return "roofline";
    default: return "";
  }
}

void take_replay(Finding& x, const WhatIf& w) {
  x.what_if = w;
  x.impact_ns = std::max<int64_t>(0, w.step_ns - w.predicted_step_ns);
  x.impact_is_gpu_time = false;
  if (w.per_step) x.impact_basis_ns = w.step_ns;
  x.impact_what = fmt::format("the {} replayed with the fix ({}): {} → {}", w.scope, w.change, human_duration(w.step_ns),
                              human_duration(w.predicted_step_ns));
}

// A finding whose fix is modelled gets its recoverable time from the replay: the step as replayed,
// less the step the edited graph replays to. Where the graph was built from GPU records and the
// edit does not apply (nothing in the steady steps that it changes), the fix gives back nothing.
void replay_fix(const Trace& t, Finding& x, const Facts& f) {
  const std::string_view edit = x.fix_edit.empty() ? fix_of(t, x) : std::string_view(x.fix_edit);
  if (edit.empty() || !f.graph.built || f.recording.what != Recorded::Gpu) return;
  if (!x.fix_edit.empty()) {
    // An edit with the rule's own parameter is not among the analysis' default what-ifs: replayed here.
    try {
      take_replay(x, what_if(t, f, {{x.fix_edit, x.fix_param}}).result);
    } catch (const std::invalid_argument& e) {
      x.impact_what += fmt::format(" (not replayed: {})", e.what());
    }
    return;
  }
  for (const WhatIf& w : f.graph.what_if) {
    if (w.edit != edit) continue;
    take_replay(x, w);
    return;
  }
  for (const auto& [name, why] : f.graph.unmodelled)
    if (name == edit) {
      x.impact_what += fmt::format(" (not replayed: {})", why);
      return;
    }
  x.impact_ns = 0;
  x.impact_is_gpu_time = false;
  x.impact_what = fmt::format("the replayed fix ({}) changes nothing in the steady steps", edit);
}

// Two findings whose fix is the same edit (overhead_bound and cuda_graphs_not_replayed, sync_wait
// and host_sync_in_loop, data_loading and cpu_prefix) would recover the same time: the one that
// refines the other, else the first of the most severe, keeps it; the others point there.
// A finding that names why the fix is not in place already refines the one that only sees its
// symptom: CUDA graphs asked for and skipped is why a step is launch-bound.
bool refines(const Finding& a, const Finding& b) {
  return a.id == FindingId::cuda_graphs_not_replayed && b.id == FindingId::overhead_bound;
}

void credit_each_fix_once(std::vector<Finding>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].what_if) continue;
    size_t keeper = i;
    for (size_t j = 0; j < out.size(); ++j)
      if (j != i && out[j].what_if && out[j].what_if->edit == out[i].what_if->edit && out[j].what_if->param == out[i].what_if->param &&
          !refines(out[keeper], out[j]) &&
          (refines(out[j], out[keeper]) || out[j].severity > out[keeper].severity ||
           (out[j].severity == out[keeper].severity && j < keeper)))
        keeper = j;
    if (keeper == i) continue;
    out[i].impact_ns = 0;
    out[i].impact_what = fmt::format("the same replayed fix as {}, credited there", to_string(out[keeper].id));
  }
}

void cap_by_cost(Finding& x, const Facts& f) {
  if (!x.about_the_trace && recoverable_share(x, f) < kMinWarningCostShare) x.severity = Severity::Info;
}

// The rules in the order they run (finding_ids.def's). Those that read the GPU's records run only
// where there are some: without them (the records missing, a CPU program) they would call the
// GPU idle or blame it.
struct Rule {
  void (*run)(const Trace&, const Facts&, std::vector<Finding>&);
  bool reads_gpu_records;
};
constexpr Rule kRules[] = {
    {rule_cold_start, false},      {rule_first_seen_shapes, false}, {rule_data_loading, false},      {rule_alloc_churn, false},
    {rule_warmup_trace, false},    {rule_step_bound, true},         {rule_cpu_bound, false},
    {rule_gpu_waits, true},        {rule_sync_wait, true},          {rule_host_sync_in_loop, true},
    {rule_launch_queue, true},     {rule_pageable_memcpy, true},    {rule_hidden_copy, true},
    {rule_kernel_variance, true},  {rule_compiled_region, false},   {rule_recompilation, false},
    {rule_cuda_graphs_not_replayed, true}, {rule_profiler_artifact, false}, {rule_low_efficiency, true},
    {rule_fp32_matmul, true},      {rule_unfused_elementwise, true}, {rule_exposed_comm, true},
    {rule_comm_wait, true},        {rule_memory_peak, false},       {rule_memory_growth, false},
    {rule_hotspot, false},         {rule_no_annotations, false},    {rule_eager_attention, true},
    {rule_train_mode_inference, false}, {rule_optimizer_step, true},
};

}  // namespace

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Critical: return "critical";
  }
  return "info";
}

std::string describe_span(const Facts& f, int64_t step_ns) {
  if (!f.steps.empty()) return fmt::format("each {} step", human_duration(step_ns));
  if (f.steady_window.duration_ns > 0)
    return fmt::format("the {} profiled after start-up (no ProfilerStep annotations; the first {}, up to the end "
                       "of the last slow one-off CUDA call, are left out)",
                       human_duration(step_ns), human_duration(f.steady_window.start_ns - f.window.start_ns));
  return fmt::format("the {} profiled (no ProfilerStep annotations)", human_duration(step_ns));
}

std::vector<Finding> explain(const Trace& t, const Facts& f) {
  std::vector<Finding> out;
  rule_recording(t, f, out);
  if (f.recording.what == Recorded::Nothing) return out;  // nothing else to read
  for (const Rule& r : kRules)
    if (!r.reads_gpu_records || f.recording.what == Recorded::Gpu) r.run(t, f, out);
  for (Finding& x : out) replay_fix(t, x, f);
  credit_each_fix_once(out);
  // The steady state's bound scope is one more pass over the windows: only for a GPU-time saving.
  const bool any_gpu_saving = std::any_of(out.begin(), out.end(), [](const Finding& x) { return x.impact_is_gpu_time; });
  const double gpu_share = any_gpu_saving ? gpu_busy_share(f) : 0;
  for (Finding& x : out) {
    if (x.impact_is_gpu_time) {
      x.impact_ns = static_cast<int64_t>(static_cast<double>(x.impact_ns) * gpu_share);
      x.impact_what += fmt::format(", times the GPU's busy share of the steady state ({:.0f} %): kernel time "
                                   "shortens the step only where the GPU is its critical path",
                                   gpu_share * 100);
    }
    // No fix recovers more than the time it is measured against (the steps, else the window): GPU
    // time summed over kernels that ran side by side on several streams can exceed it.
    const int64_t basis = x.impact_basis_ns > 0 ? x.impact_basis_ns : f.window.duration_ns;
    if (basis > 0 && x.impact_ns > basis) x.impact_ns = basis;
    cap_by_cost(x, f);
    highlight_named_events(t, x);
    x.evidence.push_back(us("recoverable_us", x.impact_ns));
    x.evidence.push_back(percent("recoverable_pct", recoverable_share(x, f)));
  }
  std::stable_sort(out.begin(), out.end(), [&f](const Finding& a, const Finding& b) {
    if (a.about_the_trace != b.about_the_trace) return a.about_the_trace;
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.context_only != b.context_only) return b.context_only;
    return recoverable_share(a, f) > recoverable_share(b, f);
  });
  return out;
}

}  // namespace whyslow
