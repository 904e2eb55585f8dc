// Per unit of work: when the two sides' steps do different amounts of the same work (batch 1 →
// 256, a longer prompt), step against step compares apples with crates. The evidence is the ops
// both sides run: each op's first call in the compared steps, its first tensor input, one side
// against the other. Inputs that differ in exactly one dimension, the same one and by the same
// sizes for most of the ops whose inputs differ, say the work was scaled along it: the leading
// dimension is the batch ("samples"), the second of a 2-D or deeper input the sequence
// ("tokens"). Weights and buffers keep their shapes and do not vote. The unit divides the step
// only when the scaled work is most of it: a generate() whose longer prompt changes one prefill
// among 16 decode steps does the same decode work on both sides, whatever its prompt's length.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "analysis/core/intervals.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/core/op_inputs.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// At least two ops must agree on the scaled dimension: one op's input can change for its own
// reasons (a cache that grows, a reshape).
constexpr size_t kMinAgreeingOps = 2;
// …and they must be most of the ops whose inputs differ: a scaled batch changes every activation's
// leading dim the same way, while a different model changes shapes every which way.
constexpr double kMinAgreeingShare = 0.5;
// The inputs that vote have at least two dimensions (see compare_work_units).
constexpr size_t kMinRank = 2;
// The scaled work (the op calls taking the unit along its dimension, or the GPU work they launch)
// must be at least half of the work of the side doing more units, on the resource that sets its
// pace: below that most of the step is work both sides do alike, and dividing it by the units
// credits the larger side with work it did not scale (generate() with a 4× prompt: its prefill is
// a few % of a CPU-bound step).
constexpr double kMinScaledWorkShare = 0.5;

// The compared steps (step_profile.cpp's compared_steps) in time order, for step_containing().
std::vector<StepFacts> compared_steps_in_order(const Facts& f, const StepProfile& p) {
  std::vector<StepFacts> steps;
  for (const StepFacts* s : compared_steps(f, p)) steps.push_back(*s);
  std::sort(steps.begin(), steps.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  return steps;
}

// The dims of an op's first tensor input with at least one dimension, if it recorded shapes.
std::optional<std::vector<int64_t>> first_tensor_dims(const Trace& t, EventId e) {
  if (t.input_dims_of(e) == kNoName) return std::nullopt;
  const std::optional<std::vector<OpInput>> inputs = op_inputs(t, e);
  if (!inputs) return std::nullopt;
  for (const OpInput& in : *inputs)
    if (in.is_tensor() && !in.dims.empty()) return in.dims;
  return std::nullopt;
}

// The share of a side's work in its compared steps that is scaled along `dim` to `n`, on the busier
// of the CPU and the GPU (the one that sets the step's pace): on the CPU, the op calls whose first
// tensor input has n along dim, against all top-level op calls (unions); on the GPU, the work
// launched from inside those calls, against all work launched from the steps.
double scaled_work_share(const Trace& t, const Facts& f, const StepProfile& p, size_t dim, int64_t n) {
  const std::vector<StepFacts> steps = compared_steps_in_order(f, p);
  auto scaled = [&](EventId e) {
    if (t.kind[e] != EventKind::CpuOp) return false;
    const auto dims = first_tensor_dims(t, e);
    return dims && dims->size() >= kMinRank && dims->size() > dim && (*dims)[dim] == n;
  };
  NearestAncestor scaled_above(t, scaled);
  NearestAncestor op_above(t, [&](EventId e) { return t.kind[e] == EventKind::CpuOp; });
  std::vector<Interval> cpu_scaled, cpu_all;
  int64_t gpu_scaled = 0, gpu_all = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    if (is_gpu_activity(t.kind[e])) {
      const EventId op = t.op_link[e];
      if (op == kNoEvent || step_containing(steps, t.start_ns[op]) < 0) continue;
      gpu_all += t.dur_ns[e];
      if (scaled_above.of(op) != kNoEvent) gpu_scaled += t.dur_ns[e];
    } else if (t.kind[e] == EventKind::CpuOp && step_containing(steps, t.start_ns[e]) >= 0) {
      if (op_above.of(t.parent[e]) == kNoEvent) cpu_all.emplace_back(t.start_ns[e], t.end_ns(e));
      if (scaled_above.of(t.parent[e]) == kNoEvent && scaled(e)) cpu_scaled.emplace_back(t.start_ns[e], t.end_ns(e));
    }
  }
  const int64_t cpu_scaled_ns = union_length(cpu_scaled), cpu_all_ns = union_length(cpu_all);
  if (gpu_all >= cpu_all_ns) return gpu_all > 0 ? static_cast<double>(gpu_scaled) / static_cast<double>(gpu_all) : 0;
  return static_cast<double>(cpu_scaled_ns) / static_cast<double>(cpu_all_ns);
}

// Op name → dims of its first tensor input at its first call in each compared step, for the ops
// given the same shape in every step (an op whose input changes from step to step does not tell
// how much work a step does).
std::map<std::string, std::vector<int64_t>> first_inputs(const Trace& t, const Facts& f, const StepProfile& p) {
  const std::vector<StepFacts> steps = compared_steps_in_order(f, p);
  std::map<std::pair<std::string, int>, std::pair<int64_t, EventId>> first;  // (name, step) → (start, op)
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::CpuOp || t.input_dims_of(e) == kNoName) continue;
    const int step = step_containing(steps, t.start_ns[e]);
    if (step < 0) continue;
    auto [it, inserted] = first.try_emplace({std::string(t.name_of(e)), step}, t.start_ns[e], e);
    if (!inserted && t.start_ns[e] < it->second.first) it->second = {t.start_ns[e], e};
  }
  std::map<std::string, std::vector<int64_t>> out;
  std::set<std::string> varies;
  for (const auto& [key, v] : first) {
    const std::optional<std::vector<int64_t>> dims = first_tensor_dims(t, v.second);
    if (!dims) continue;
    const auto [it, inserted] = out.try_emplace(key.first, *dims);
    if (!inserted && it->second != *dims) varies.insert(key.first);
  }
  for (const std::string& name : varies) out.erase(name);
  return out;
}

std::string dims_words(const std::vector<int64_t>& d) {
  std::string out = "[";
  for (size_t i = 0; i < d.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", d[i]);
  return out + "]";
}

}  // namespace

PerUnit compare_work_units(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, const Diff& d) {
  PerUnit out;
  const auto ia = first_inputs(a, fa, d.a), ib = first_inputs(b, fb, d.b);
  using Scale = std::tuple<size_t, int64_t, int64_t>;  // (dimension, A's size, B's size)
  std::map<Scale, std::vector<std::string>> votes;
  size_t differing = 0;
  for (const auto& [name, da] : ia) {
    const auto it = ib.find(name);
    // A 1-D input is an index or a bookkeeping vector (sequence lengths, positions); a batch of
    // work comes with its feature dimensions ([batch, features], [batch, tokens, hidden]).
    if (it == ib.end() || it->second.size() != da.size() || da.size() < kMinRank || it->second == da) continue;
    ++differing;
    const std::vector<int64_t>& db = it->second;
    size_t changed = 0, dim = 0;
    for (size_t i = 0; i < da.size(); ++i)
      if (da[i] != db[i]) ++changed, dim = i;
    if (changed == 1 && da[dim] > 0 && db[dim] > 0) votes[{dim, da[dim], db[dim]}].push_back(name);
  }
  const auto best = std::max_element(votes.begin(), votes.end(),
                                     [](const auto& x, const auto& y) { return x.second.size() < y.second.size(); });
  if (best == votes.end() || best->second.size() < kMinAgreeingOps ||
      static_cast<double>(best->second.size()) < kMinAgreeingShare * static_cast<double>(differing))
    return out;
  const auto [dim, na, nb] = best->first;
  if (dim > 1) return out;  // a spatial size or a head dimension is not a unit a user counts
  // One token a sequence is a decode step, which reads a KV cache instead of computing it: another
  // phase of the work, not less of the same.
  if (dim == 1 && std::min(na, nb) <= 1) return out;
  const bool b_more = nb > na;
  out.scaled_work_share = b_more ? scaled_work_share(b, fb, d.b, dim, nb) : scaled_work_share(a, fa, d.a, dim, na);
  if (out.scaled_work_share < kMinScaledWorkShare) return PerUnit{};
  out.unit = dim == 0 ? "sample" : "token";
  out.a_units = static_cast<double>(na);
  out.b_units = static_cast<double>(nb);
  judge_side_by_side(out, static_cast<int64_t>(static_cast<double>(d.a.steady_ns) / out.a_units),
                     static_cast<int64_t>(static_cast<double>(d.b.steady_ns) / out.b_units));
  const std::string& op = best->second.front();
  out.evidence = fmt::format(
      "{}'s input {} in A, {} in B; {} of the {} ops whose inputs differ scale dimension {} the same way, and that work is "
      "{} of {}'s work",
      op, dims_words(ia.at(op)), dims_words(ib.at(op)), best->second.size(), differing, dim,
      human_percent(out.scaled_work_share), b_more ? "B" : "A");
  return out;
}

std::string per_unit_words(const Diff& d) {
  const PerUnit& u = d.verdict.per_unit;
  if (u.unit.empty()) return "";
  const std::string units = fmt::format("{:.0f} {}s against A's {:.0f}", u.b_units, u.unit, u.a_units);
  const std::string lead =
      u.faster == "same" ? fmt::format("Per {} A and B take the same time", u.unit)
                         : fmt::format("Per {} {} is {} faster", u.unit, u.faster == "b" ? "B" : "A", ratio_words(u.ratio));
  return fmt::format("{} (A {}, B {} per {}, once warm): B's steps process {} ({}).", lead, human_duration(u.a_ns),
                     human_duration(u.b_ns), u.unit, units, u.evidence);
}

std::string per_unit_advice(const Diff& d) {
  const PerUnit& u = d.verdict.per_unit;
  if (u.unit.empty() || u.faster == "same") return "";
  const bool b = u.faster == "b";
  const double work = b ? u.b_units / u.a_units : u.a_units / u.b_units;  // the kept side's work per step, relative
  const bool longer = b ? d.b.steady_ns > d.a.steady_ns : d.a.steady_ns > d.b.steady_ns;
  return fmt::format("Keep {}: per {} it is {} faster ({} against {}){}.", b ? "B" : "A", u.unit, ratio_words(u.ratio),
                     human_duration(b ? u.b_ns : u.a_ns), human_duration(b ? u.a_ns : u.b_ns),
                     longer ? fmt::format("; its steps are longer only because each does {} the work", ratio_words(work))
                            : "");
}

}  // namespace whyslow
