// The steps' CPU time by category (analysis/cpu/cpu_time.cpp), as the verdicts word it:
// overhead_bound names where the CPU is before each launch, cpu_bound where a CPU program's time goes.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

// "waiting for the DataLoader", "in Python", …: what the time of a category was spent on.
std::string_view cpu_category_words(CpuCategory c);
// The median window's CPU categories, largest first, without the empty ones.
std::vector<std::pair<int64_t, CpuCategory>> ranked_categories(const std::vector<const StepFacts*>& windows);

}  // namespace whyslow
