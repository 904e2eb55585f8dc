// diff_traces: profile both traces, compare their kernels and the parts of their steps, say first
// what makes them hard to compare, measure how much of their GPU work is the same, and judge.
#include <fmt/core.h>

#include "diff/diff.hpp"

namespace whyslow {
namespace {

void note_mismatches(Diff& d) {
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  if (!a.device.empty() && !b.device.empty() && a.device != b.device)
    d.mismatches.push_back(fmt::format("A ran on {}, B on {}: kernel times are not comparable across GPUs.", a.device, b.device));
  if (a.whole_window)
    d.mismatches.push_back("A has no ProfilerStep annotations: its whole trace counts as one step.");
  if (b.whole_window)
    d.mismatches.push_back("B has no ProfilerStep annotations: its whole trace counts as one step.");
  if (!a.whole_window && !b.whole_window && a.steps != b.steps)
    d.mismatches.push_back(fmt::format("A has {} steady step{}, B has {}: comparing medians per step.", a.steps,
                                       a.steps == 1 ? "" : "s", b.steps));
  for (const std::string& s : a.left_out) d.mismatches.push_back("A: " + s + " left out of the comparison.");
  for (const std::string& s : b.left_out) d.mismatches.push_back("B: " + s + " left out of the comparison.");
}

}  // namespace

Diff diff_traces(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb) {
  Diff d;
  d.a = profile_steps(a, fa);
  d.b = profile_steps(b, fb);
  compare_kernels(a, fa, b, fb, d);
  compare_components(a, fa, b, fb, d);
  note_mismatches(d);
  d.verdict.per_unit = compare_work_units(a, fa, b, fb, d);
  d.verdict.overlap = measure_overlap(a, fa, d.a, b, fb, d.b, d.verdict.per_unit);
  d.verdict.mechanism = find_mechanism(a, fa, b, fb, d);
  judge(d);
  return d;
}

}  // namespace whyslow
