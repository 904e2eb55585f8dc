// first_seen_shapes: steady steps paying, once per input shape they have not seen, for work an op
// does at its first call on that shape (Facts::first_calls): cuDNN building an attention plan for
// a new sequence length (40-140 ms each on an H200), a kernel autotuned per shape. A serving loop
// with varying prompt lengths pays it on each new length until it has seen them all; on the
// timeline it looks like dispatch (CPU time inside the op), which is how it was misread.
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "analysis/cpu/first_calls.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// From 5 % of the steps' time (the noise floor of a step's time, and the share at which the diff
// leaves a step out as carrying one-off costs) the new shapes are worth a finding…
constexpr double kNewShapeMinShare = 0.05;
// …and from half of it they are what the steps do: the finding leads.
constexpr double kNewShapeCriticalShare = 0.5;
// Steps to tell a steady step from one paying for a new shape: the cold one and two more.
constexpr size_t kNewShapeMinSteps = 3;
// How many of the costliest first calls the finding points to on the timeline.
constexpr size_t kNewShapeEventsShown = 3;

}  // namespace

void rule_first_seen_shapes(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.steps.size() < kNewShapeMinSteps) return;
  int64_t steps_ns = 0;
  for (size_t i = 0; i < f.steps.size(); ++i)
    if (static_cast<int>(i) != f.cold_start.step_index) steps_ns += f.steps[i].duration_ns;
  std::vector<const FirstCall*> calls;
  int64_t total = 0;
  for (const FirstCall& c : f.first_calls.calls)
    if (c.new_shape && c.step >= 0 && c.step != f.cold_start.step_index) calls.push_back(&c), total += c.excess_ns;
  if (steps_ns <= 0 || static_cast<double>(total) < kNewShapeMinShare * static_cast<double>(steps_ns)) return;
  const double share = static_cast<double>(total) / static_cast<double>(steps_ns);

  std::map<NameId, std::pair<int64_t, size_t>> per_op;  // op name → (ns, new shapes)
  std::vector<int> steps;
  for (const FirstCall* c : calls) {
    auto& [ns, n] = per_op[t.name[c->op]];
    ns += c->excess_ns, ++n;
    if (std::find(steps.begin(), steps.end(), c->step) == steps.end()) steps.push_back(c->step);
  }
  const auto top = std::max_element(per_op.begin(), per_op.end(),
                                    [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
  const std::string op(t.names.view(top->first));
  std::vector<const FirstCall*> costliest = calls;
  std::sort(costliest.begin(), costliest.end(), [](const FirstCall* a, const FirstCall* b) { return a->excess_ns > b->excess_ns; });
  costliest.resize(std::min(costliest.size(), kNewShapeEventsShown));

  Finding x = make_finding(FindingId::first_seen_shapes);
  if (share >= kNewShapeCriticalShare) x.severity = Severity::Critical;
  x.title = fmt::format("New input shapes cost {} of the steps: {} step{} pay{} {} for first calls on shapes not seen before "
                        "({} on {} new shape{})",
                        human_percent(share), steps.size(), steps.size() == 1 ? "" : "s", steps.size() == 1 ? "s" : "",
                        human_duration(total), op, top->second.second, top->second.second == 1 ? "" : "s");
  std::string shapes;
  for (const FirstCall* c : costliest)
    shapes += fmt::format("{}{} {} ({})", shapes.empty() ? "" : "; ", t.name_of(c->op), first_input_text(t, t.input_dims_of(c->op)),
                          human_duration(c->excess_ns));
  x.detail = fmt::format(
      "An op's first call on an input shape it had not run on before takes at least 3× its usual time: work "
      "done once per new shape, such as cuDNN building an attention plan for a new sequence length or a "
      "kernel tuned for a new size. {} of the {} steps after the first pay it, {} in all ({} of their time); "
      "{} alone takes {} over {} new shape{}. The costliest: {}. It is CPU time inside the op, so the "
      "timeline shows it as dispatch; it comes back for every shape not yet seen (a serving loop with "
      "varying lengths pays it until it has seen them all), and the steps that paid it are left out of the "
      "steady state.",
      steps.size(), f.steps.size() - (f.cold_start.step_index >= 0 ? 1 : 0), human_duration(total),
      human_percent(share), op, human_duration(top->second.first), top->second.second,
      top->second.second == 1 ? "" : "s", shapes);
  x.evidence = {us("new_shape_us", total), count("new_shapes", calls.size()), count("steps_with_new_shapes", steps.size()),
                us("steps_us", steps_ns), percent("new_shape_pct", share)};
  for (const FirstCall* c : costliest) x.events.push_back({c->op, "first call on a new shape"});
  x.try_next = {"Warm up on the shapes you serve: one call per input length (or per bucket) at start-up, "
                "before the first request or the measured steps.",
                "Pad inputs to a few bucket lengths (say multiples of 64 tokens): each bucket pays once."};
  if (op.find("cudnn_attention") != std::string::npos)
    x.try_next.push_back("Or pick an SDPA backend that builds no plan per length: with torch.nn.attention.sdpa_kernel("
                         "[SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]): …");
  x.impact_ns = total;
  x.impact_what = "the first calls' time beyond the op's usual, in the steps after the first";
  x.impact_basis_ns = steps_ns;
  out.push_back(std::move(x));
}

}  // namespace whyslow
