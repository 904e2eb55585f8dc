// Which collectives belong to the steady steps the comm rules measure (shared by exposed_comm and
// comm_wait): in a trace with steps, those launched in a steady step; without steps, all.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// The steady steps' calls, and how many steps they spread over (1 for a stepless trace).
struct SteadyCalls {
  std::vector<const CollectiveCall*> calls;
  std::vector<int> step_of_call;  // index into the steady steps, parallel to `calls`
  size_t steps = 1;
};
SteadyCalls steady_calls(const Facts& facts, const std::vector<const StepFacts*>& steady);

// What a comm finding's time is a share of: the median step, or, when the GPU work launched in a
// step runs longer than the step itself (the GPU behind the CPU), the step's GPU busy time; and
// the words for it.
struct StepBasis {
  int64_t ns = 0;
  std::string words;
};
StepBasis comm_basis(const Facts& facts, const std::vector<const StepFacts*>& steady);

// The median over the steady steps of a per-call quantity summed per step.
template <class F>
int64_t median_per_step(const SteadyCalls& s, F per_call) {
  std::vector<int64_t> sums(s.steps, 0);
  for (size_t i = 0; i < s.calls.size(); ++i) sums[static_cast<size_t>(s.step_of_call[i])] += per_call(*s.calls[i]);
  std::sort(sums.begin(), sums.end());
  return sums.empty() ? 0 : sums[sums.size() / 2];
}

}  // namespace whyslow
