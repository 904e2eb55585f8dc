#include "analysis/steps/steady_steps.hpp"

#include <algorithm>

#include "analysis/core/median.hpp"
#include "common/gallop.hpp"

namespace whyslow {

std::vector<const StepFacts*> steady_steps(const Facts& f) {
  std::vector<const StepFacts*> out;
  for (size_t i = 0; i < f.steps.size(); ++i)
    if (static_cast<int>(i) != f.cold_start.step_index) out.push_back(&f.steps[i]);
  if (f.steps.empty() && f.steady_window.duration_ns > 0) out.push_back(&f.steady_window);
  else if (f.steps.empty() && f.window.duration_ns > 0) out.push_back(&f.window);
  return out;
}

namespace {

// The step whose [start, end] holds ts, given `after`, the number of steps that start at or
// before ts; -1 for none.
int containing(const std::vector<StepFacts>& steps, size_t after, int64_t ts) {
  if (after == 0) return -1;
  const int i = static_cast<int>(after) - 1;
  return ts <= steps[i].end_ns ? i : -1;
}

}  // namespace

int step_containing(const std::vector<StepFacts>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts,
                             [](int64_t x, const StepFacts& s) { return x < s.start_ns; });
  return containing(steps, static_cast<size_t>(it - steps.begin()), ts);
}

StepLookup::StepLookup(const std::vector<StepFacts>& steps) : steps_(steps), starts_(steps.size()) {
  for (size_t i = 0; i < steps.size(); ++i) starts_[i] = steps[i].start_ns;
  after_ = starts_.cbegin();
}

int StepLookup::of(int64_t ts) {
  // The first start after ts: a lower bound under "start <= ts".
  after_ = gallop_lower_bound(starts_.cbegin(), starts_.cend(), after_, ts, [](int64_t s, int64_t x) { return s <= x; });
  return containing(steps_, static_cast<size_t>(after_ - starts_.cbegin()), ts);
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
