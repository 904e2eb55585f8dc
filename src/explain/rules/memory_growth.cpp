// memory_growth: allocated memory grows step after step. Each steady step ends with more bytes
// allocated than the one before: tensors made in a step outlive it (a loss summed without .item()
// or .detach() keeps every step's graph; a list of outputs; a cache that never evicts) and the run
// ends in "CUDA out of memory" however much memory the GPU has.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Three steps make two increments: fewer cannot tell growth from a step that happens to keep more.
constexpr size_t kMinSteps = 3;
// Growth below 1 MiB a step is the allocator's and the profiler's own bookkeeping (small CPU-side
// caches, cuBLAS workspaces), not a leak worth a warning.
constexpr int64_t kMinGrowthPerStep = 1ll << 20;

}  // namespace

void rule_memory_growth(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.memory.devices.empty() || f.steps.empty()) return;
  const DeviceMemory& d = f.memory.devices.front();
  std::vector<const StepMemory*> steps;
  std::vector<std::string> names;
  for (const StepFacts* s : steady_steps(f)) {
    const size_t i = static_cast<size_t>(s - f.steps.data());
    if (i < d.steps.size() && d.steps[i].recorded && d.steps[i].end_allocated >= 0) {
      steps.push_back(&d.steps[i]);
      names.push_back(s->name);
    }
  }
  if (steps.size() < kMinSteps) return;
  std::vector<int64_t> growth;
  for (size_t i = 1; i < steps.size(); ++i) growth.push_back(steps[i]->end_allocated - steps[i - 1]->end_allocated);
  if (std::any_of(growth.begin(), growth.end(), [](int64_t g) { return g <= 0; })) return;
  const int64_t per_step = median(growth);
  if (per_step < kMinGrowthPerStep) return;
  const int64_t total = steps.back()->end_allocated - steps.front()->end_allocated;
  // What the step keeps: its allocations still live after it, at the peak the memory pass opened.
  std::string kept;
  size_t named = 0;
  for (const LiveAllocation& a : d.live_at_peak)
    if (a.role == MemoryRole::Kept && named < 3) {
      kept += fmt::format("{}{} by {}", named++ ? "; " : "", human_bytes(a.bytes),
                          a.op == kNoEvent ? std::string("no op") : std::string(t.name_of(a.op)));
    }
  Finding x = make_finding(FindingId::memory_growth);
  x.title = fmt::format("Allocated memory grows every step: +{} a step, {} → {} over {} steps", human_bytes(per_step),
                        human_bytes(steps.front()->end_allocated), human_bytes(steps.back()->end_allocated), steps.size());
  x.detail = fmt::format(
      "Each of the {} steady steps ({} … {}) ends with more memory allocated than the one before (median +{} a step, "
      "+{} in all): something made in a step outlives it, and the run will run out of memory. {}The usual causes: "
      "a loss or metric summed across steps as a tensor (total += loss keeps every step's autograd graph alive; use "
      "loss.item() or loss.detach()), outputs appended to a list, a cache that never evicts.",
      steps.size(), names.front(), names.back(), human_bytes(per_step), human_bytes(total),
      kept.empty() ? "" : fmt::format("Allocated in the step and still live after it: {}. ", kept));
  x.evidence = {{"growth_per_step_bytes", static_cast<double>(per_step), "bytes"},
                {"growth_bytes", static_cast<double>(total), "bytes"},
                count("steps", steps.size()),
                {"first_end_bytes", static_cast<double>(steps.front()->end_allocated), "bytes"},
                {"last_end_bytes", static_cast<double>(steps.back()->end_allocated), "bytes"}};
  x.try_next = {"Accumulate Python numbers, not tensors: running_loss += loss.item() (or loss.detach()).",
                "Find what is kept: torch.cuda.memory._record_memory_history() then torch.cuda.memory._dump_snapshot() "
                "after a few steps shows every live tensor with the stack that allocated it."};
  x.impact_what = "memory, not time: what it gives back is bytes (the evidence says how many)";
  out.push_back(std::move(x));
}

}  // namespace whyslow
