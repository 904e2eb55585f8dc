#include "explain/rules/cpu_categories.hpp"

#include <algorithm>

#include "analysis/steps/steady_steps.hpp"

namespace whyslow {

std::string_view cpu_category_words(CpuCategory c) {
  switch (c) {
    case CpuCategory::DataLoading: return "waiting for the DataLoader";
    case CpuCategory::SyncWait: return "blocked waiting for the GPU";
    case CpuCategory::Allocator: return "in the CUDA allocator";
    case CpuCategory::Launch: return "in CUDA API calls (launches, copies, queries)";
    case CpuCategory::Compile: return "in torch.compile's guards and compilation";
    case CpuCategory::Profiler: return "in the profiler's bookkeeping";
    case CpuCategory::Python: return "in Python";
    case CpuCategory::Dispatch: return "in the PyTorch dispatcher (ops that launch GPU work)";
    case CpuCategory::CpuCompute: return "in CPU work (ops or long Python calls that launch no GPU work: preprocessing, CPU math)";
    case CpuCategory::Other: return "outside any recorded op (Python between ops, unrecorded work)";
    case CpuCategory::Count: break;
  }
  return "";
}

std::vector<std::pair<int64_t, CpuCategory>> ranked_categories(const std::vector<const StepFacts*>& windows) {
  std::vector<std::pair<int64_t, CpuCategory>> out;
  for (size_t c = 0; c < kCpuCategories; ++c) {
    const int64_t ns = median_of(windows, static_cast<CpuCategory>(c));
    if (ns > 0) out.emplace_back(ns, static_cast<CpuCategory>(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

}  // namespace whyslow
