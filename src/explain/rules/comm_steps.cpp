#include "explain/rules/comm_steps.hpp"

#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/rules.hpp"

namespace whyslow {

SteadyCalls steady_calls(const Facts& f, const std::vector<const StepFacts*>& steady) {
  SteadyCalls s;
  if (f.steps.empty()) {
    for (const CollectiveCall& c : f.comm.calls) {
      s.calls.push_back(&c);
      s.step_of_call.push_back(0);
    }
    return s;
  }
  std::vector<int> steady_index(f.steps.size(), -1);
  for (size_t i = 0; i < steady.size(); ++i) steady_index[static_cast<size_t>(steady[i] - f.steps.data())] = static_cast<int>(i);
  s.steps = std::max<size_t>(1, steady.size());
  for (const CollectiveCall& c : f.comm.calls) {
    if (c.step < 0 || steady_index[static_cast<size_t>(c.step)] < 0) continue;
    s.calls.push_back(&c);
    s.step_of_call.push_back(steady_index[static_cast<size_t>(c.step)]);
  }
  return s;
}

StepBasis comm_basis(const Facts& f, const std::vector<const StepFacts*>& steady) {
  const int64_t step = median_of(steady, &StepFacts::duration_ns);
  const int64_t busy = median_of(steady, &StepFacts::gpu_busy_ns);
  if (busy <= step) return {step, describe_span(f, step)};
  return {busy, fmt::format("the {} of GPU work per step (it runs past the {} {} on the CPU)", human_duration(busy),
                            human_duration(step), f.steps.empty() ? "window" : "step")};
}

}  // namespace whyslow
