// train_mode_inference: dropout draws random masks (aten::native_dropout, bernoulli_) in a trace
// that runs no backward: a model served or evaluated without .eval(). Its outputs are random, not
// only slower; nn.Dropout in eval mode calls aten::dropout, which returns its input and draws
// nothing, so a mask drawn is the evidence.
#include <fmt/core.h>

#include <array>

#include "analysis/core/event_names.hpp"
#include "analysis/core/intervals.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// The ops that draw a dropout mask: the training path of nn.Dropout and F.dropout.
constexpr std::array<std::string_view, 5> kMaskOps = {"aten::native_dropout", "aten::bernoulli_", "aten::bernoulli",
                                                      "aten::_fused_dropout", "aten::feature_dropout"};

bool draws_mask(std::string_view n) {
  for (std::string_view m : kMaskOps)
    if (n == m) return true;
  return false;
}

}  // namespace

void rule_train_mode_inference(const Trace& t, const Facts&, std::vector<Finding>& out) {
  uint64_t masks = 0;
  EventId first = kNoEvent;
  std::vector<Interval> spans;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::CpuOp) continue;
    const std::string_view n = t.name_of(e);
    if (is_backward_event_name(n)) return;  // training: dropout belongs there
    if (!draws_mask(n)) continue;
    ++masks;
    if (first == kNoEvent) first = e;
    spans.emplace_back(t.start_ns[e], t.end_ns(e));
  }
  if (masks == 0) return;
  const int64_t cpu_ns = union_length(spans);
  Finding x = make_finding(FindingId::train_mode_inference);
  x.title = fmt::format("The model runs in training mode: dropout draws {} random masks and nothing runs a backward", masks);
  x.detail = fmt::format(
      "{} calls draw dropout masks ({} of CPU time in them), yet the trace holds no backward pass: a model "
      "evaluated or served without .eval(). In training mode every nn.Dropout zeroes a random part of its "
      "input, so the outputs are not the model's and change from call to call; the masks also cost kernels "
      "and memory. In eval mode nn.Dropout calls aten::dropout, which returns its input and draws nothing.",
      masks, human_duration(cpu_ns));
  x.evidence = {count("mask_calls", masks), us("mask_cpu_us", cpu_ns)};
  x.events.push_back({first, "first dropout mask"});
  x.try_next = {"Call model.eval() before inference (and model.train() before training again); torch.no_grad() "
                "alone does not turn dropout off."};
  x.impact_ns = cpu_ns;
  x.impact_what = "the dropout calls' CPU time";
  out.push_back(std::move(x));
}

}  // namespace whyslow
