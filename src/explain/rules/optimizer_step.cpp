// optimizer_step: the optimizer's update holds a large share of the GPU time. torch names it
// ("Optimizer.step#Adam.step"), so the kernels launched beneath it are the update's: for a model
// with large embedding tables or many small parameters they can outweigh the forward and backward,
// and the fix is the optimizer's implementation (fused=True), not the model's kernels.
#include <fmt/core.h>

#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// From a quarter of the GPU time the update is a main part of the GPU's work (the share at which
// the diff names an unchanged kernel as the next thing to work on).
constexpr double kMinOptimizerGpuShare = 0.25;

bool is_optimizer_step(std::string_view n) { return n.starts_with("Optimizer.step#"); }

// torch's fused implementations: one kernel per group of tensors.
bool is_fused_update(std::string_view n) {
  return n.starts_with("aten::_fused_adam") || n.starts_with("aten::_fused_sgd") || n.starts_with("aten::_fused_adagrad");
}

}  // namespace

void rule_optimizer_step(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const std::vector<const StepFacts*> steps = steady_steps(f);
  if (f.steps.empty() || steps.empty()) return;
  std::vector<bool> steady(f.steps.size());
  for (const StepFacts* s : steps) steady[static_cast<size_t>(s - f.steps.data())] = true;
  auto in_steady_step = [&](int64_t ts) {
    const int i = step_containing(f.steps, ts);
    return i >= 0 && steady[static_cast<size_t>(i)];
  };
  NearestAncestor step_above(t, [&](EventId a) {
    return (t.kind[a] == EventKind::UserAnnotation || t.kind[a] == EventKind::CpuOp) && is_optimizer_step(t.name_of(a));
  });
  int64_t all_ns = 0, update_ns = 0;
  uint64_t update_kernels = 0;
  EventId step_event = kNoEvent;
  bool fused = false;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] == EventKind::CpuOp && is_fused_update(t.name_of(e)) && step_above.of(e) != kNoEvent) fused = true;
    if (!is_gpu_activity(t.kind[e]) || t.op_link[e] == kNoEvent || !in_steady_step(t.start_ns[t.op_link[e]])) continue;
    all_ns += t.dur_ns[e];
    if (const EventId s = step_above.of(t.op_link[e]); s != kNoEvent) {
      update_ns += t.dur_ns[e];
      ++update_kernels;
      if (step_event == kNoEvent) step_event = s;
    }
  }
  if (all_ns <= 0 || static_cast<double>(update_ns) < kMinOptimizerGpuShare * static_cast<double>(all_ns)) return;
  const double share = static_cast<double>(update_ns) / static_cast<double>(all_ns);
  const std::string name(t.name_of(step_event).substr(std::string_view("Optimizer.step#").size()));
  const double per_step = static_cast<double>(update_kernels) / static_cast<double>(steps.size());

  Finding x = make_finding(FindingId::optimizer_step);
  x.title = fmt::format("The optimizer's update takes {} of the GPU time: {}, {:.0f} kernels a step ({})",
                        human_percent(share), name, per_step, fused ? "fused" : "not fused");
  x.detail = fmt::format(
      "Of the {} of GPU work the steady steps launch, {} is launched inside {} (torch's \"Optimizer.step#{}\" "
      "annotation): {:.0f} kernels a step. An optimizer's update reads and writes every parameter, its gradient "
      "and its states once a step: memory traffic that grows with the parameter count, not the batch, so a model "
      "with large embedding tables or a small batch can spend more GPU time updating than computing.{}",
      human_duration(all_ns / static_cast<int64_t>(steps.size())), human_duration(update_ns / static_cast<int64_t>(steps.size())),
      name, name, per_step,
      fused ? " It already runs torch's fused implementation (one kernel per group of tensors)." :
              " It runs the foreach implementation (several multi-tensor passes: one per arithmetic step of the update).");
  x.evidence = {us("optimizer_gpu_us", update_ns / static_cast<int64_t>(steps.size())),
                us("gpu_us", all_ns / static_cast<int64_t>(steps.size())), percent("optimizer_gpu_pct", share),
                {"kernels_per_step", per_step, "count"}};
  x.events.push_back({step_event, "the optimizer's step"});
  if (fused)
    x.try_next = {"The update is already fused: less traffic means fewer or smaller states (bf16 optimizer states, "
                  "8-bit Adam), sparse gradients for embedding tables (nn.Embedding(sparse=True) with SparseAdam), "
                  "or sharding the states across ranks (ZeRO, FSDP)."};
  else
    x.try_next = {fmt::format("Use the fused implementation: torch.optim.{}(..., fused=True) updates each group of "
                              "tensors in one kernel instead of several foreach passes.",
                              name.substr(0, name.find('.'))),
                  "For large embedding tables, sparse gradients (nn.Embedding(sparse=True) with SparseAdam) update only "
                  "the rows a step used."};
  out.push_back(std::move(x));
}

}  // namespace whyslow
