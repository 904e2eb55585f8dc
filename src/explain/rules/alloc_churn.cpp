// alloc_churn: device memory allocated and freed in steady-state steps. PyTorch's caching
// allocator keeps freed blocks for reuse, so a warm loop calls cudaMalloc/cudaFree only when
// something defeats the cache: torch.cuda.empty_cache() in the loop, shapes that change every
// step, or a fragmented pool. Each call synchronizes the device and costs tens to hundreds of µs.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/event_names.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// From 2 % of the step the allocator is a cost worth a line of configuration to remove; below
// that the calls are the occasional new block any program makes.
constexpr double kMinShareOfStep = 0.02;
// From 10 % it is one of the main costs of the step.
constexpr double kWarningShareOfStep = 0.10;
// A trace without steps mixes start-up allocation with steady state: it needs steps to say "churn".
constexpr size_t kMinSteadySteps = 2;

}  // namespace

void rule_alloc_churn(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.steps.empty()) return;
  const auto steps = steady_steps(f);
  if (steps.size() < kMinSteadySteps) return;
  const int64_t step = median_of(steps, &StepFacts::duration_ns);
  const int64_t alloc = median_of(steps, CpuCategory::Allocator);
  std::vector<uint32_t> calls;
  for (const StepFacts* s : steps) calls.push_back(s->allocator_calls);
  std::sort(calls.begin(), calls.end());
  const uint32_t calls_per_step = calls[calls.size() / 2];
  if (step <= 0 || calls_per_step == 0 || static_cast<double>(alloc) < kMinShareOfStep * static_cast<double>(step))
    return;
  const double share = static_cast<double>(alloc) / static_cast<double>(step);
  EventId longest = kNoEvent;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_host_api(t.kind[e]) || !is_allocator_call(t.name_of(e))) continue;
    const int i = step_containing(f.steps, t.start_ns[e]);
    if (i >= 0 && i != f.cold_start.step_index && (longest == kNoEvent || t.dur_ns[e] > t.dur_ns[longest])) longest = e;
  }

  Finding x = make_finding(FindingId::alloc_churn);
  if (share >= kWarningShareOfStep) x.severity = Severity::Warning;
  x.title = fmt::format("Memory is allocated and freed every step: {} calls take {} of {}", calls_per_step,
                        human_duration(alloc), describe_span(f, step));
  x.detail = fmt::format(
      "Steady-state steps call the CUDA allocator (cudaMalloc, cudaFree and their twins) {} times each, "
      "for {} ({} of the step). PyTorch's caching allocator normally reuses freed memory, so a warm loop "
      "should not need these calls: something in the loop defeats the cache — torch.cuda.empty_cache(), "
      "tensors whose shapes change every step, or a pool too fragmented to reuse. cudaMalloc and cudaFree "
      "also synchronize the device.",
      calls_per_step, human_duration(alloc), human_percent(share));
  x.evidence = {us("allocator_us", alloc), count("allocator_calls", calls_per_step), us("step_us", step),
                percent("allocator_pct", share)};
  if (longest != kNoEvent) x.events.push_back({longest, "longest allocator call"});
  x.try_next = {"Remove torch.cuda.empty_cache() (and gc.collect()) from the loop.",
                "Keep shapes static from step to step: pad variable-length batches to a few fixed sizes.",
                "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the pool grows in place instead of "
                "allocating new segments."};
  x.impact_ns = alloc;
  x.impact_what = "the allocator calls' time per step";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
