#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"

#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Severity follows cost: a finding whose time at stake is under 1 % of what it is measured
// against (its step, or the trace window) cannot change the run by more than that, so it is
// worth knowing but never a warning.
constexpr double kMinWarningCostShare = 0.01;

void cap_by_cost(Finding& x, const Facts& f) {
  const int64_t basis = x.impact_basis_ns > 0 ? x.impact_basis_ns : f.window.duration_ns;
  if (basis > 0 && static_cast<double>(x.impact_ns) < kMinWarningCostShare * static_cast<double>(basis))
    x.severity = Severity::Info;
}

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
  rule_cold_start(t, f, out);
  rule_data_loading(t, f, out);
  rule_alloc_churn(t, f, out);
  rule_warmup_trace(t, f, out);
  rule_step_bound(t, f, out);
  rule_gpu_waits(t, f, out);
  rule_sync_wait(t, f, out);
  rule_host_sync_in_loop(t, f, out);
  rule_launch_queue(t, f, out);
  rule_pageable_memcpy(t, f, out);
  rule_hidden_copy(t, f, out);
  rule_kernel_variance(t, f, out);
  rule_compiled_region(t, f, out);
  rule_recompilation(t, f, out);
  rule_cuda_graphs_not_replayed(t, f, out);
  rule_profiler_artifact(t, f, out);
  rule_low_efficiency(t, f, out);
  rule_fp32_matmul(t, f, out);
  rule_unfused_elementwise(t, f, out);
  rule_exposed_comm(t, f, out);
  rule_comm_wait(t, f, out);
  rule_memory_peak(t, f, out);
  rule_memory_growth(t, f, out);
  rule_hotspot(t, f, out);
  rule_no_annotations(t, f, out);
  rule_eager_attention(t, f, out);
  for (Finding& x : out) cap_by_cost(x, f);
  for (Finding& x : out) highlight_named_events(t, x);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.impact_ns > b.impact_ns;
  });
  return out;
}

}  // namespace whyslow
