#include "analysis/steady_steps.hpp"

#include <algorithm>

#include "analysis/median.hpp"

namespace whyslow {

std::vector<const StepFacts*> steady_steps(const Facts& f) {
  std::vector<const StepFacts*> out;
  for (size_t i = 0; i < f.steps.size(); ++i)
    if (static_cast<int>(i) != f.cold_start.step_index) out.push_back(&f.steps[i]);
  if (f.steps.empty() && f.steady_window.duration_ns > 0) out.push_back(&f.steady_window);
  else if (f.steps.empty() && f.window.duration_ns > 0) out.push_back(&f.window);
  return out;
}

int step_containing(const std::vector<StepFacts>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts,
                             [](int64_t x, const StepFacts& s) { return x < s.start_ns; });
  if (it == steps.begin()) return -1;
  const int i = static_cast<int>(it - steps.begin()) - 1;
  return ts <= steps[i].end_ns ? i : -1;
}

namespace {
template <class Get>
int64_t median_by(const std::vector<const StepFacts*>& steps, Get get) {
  std::vector<int64_t> v;
  for (const StepFacts* s : steps) v.push_back(get(*s));
  return median(std::move(v));
}
}  // namespace

int64_t median_of(const std::vector<const StepFacts*>& steps, int64_t StepFacts::*field) {
  return median_by(steps, [&](const StepFacts& s) { return s.*field; });
}

int64_t median_of(const std::vector<const StepFacts*>& steps, CpuCategory category) {
  return median_by(steps, [&](const StepFacts& s) { return s.cpu_breakdown[static_cast<size_t>(category)]; });
}

}  // namespace whyslow
