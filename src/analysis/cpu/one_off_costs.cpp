// One-off costs over the whole trace. The classes are cold_start's (one_off_classes.hpp), each
// claiming only the time the classes before it left, over every step rather than the cold one:
// - compilation is one-off by nature; each compilation with a compile id R > 0 is a recompilation,
//   its cause the change of input shape between the frame's previous call and this one;
// - module and lazy loading, context creation and slow first uses are one-off by nature;
// - allocation, stream/event creation and library set-up calls also run in steady steps: only
//   what a step spends on them beyond the steps' median is one-off (none without steps);
// - an op's first call on an input shape far slower than its usual calls is first-call work
//   (first_calls.hpp; time claimed above and host waits inside it left out): a "first-seen
//   shape" or a "first call".
// The profiler's own buffer requests are not the program's and are left out.
#include "analysis/cpu/one_off_costs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/core/median.hpp"
#include "analysis/cpu/first_calls.hpp"
#include "analysis/cpu/one_off_classes.hpp"
#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"

namespace whyslow {
namespace {

// A step's recurring calls (allocation, library set-up) count as one-off only beyond the steps'
// median by this much: their steady time jitters by tens of µs.
constexpr int64_t kRecurringMinExcessNs = 100'000;
// Inductor's autotuning benchmark ("CachingAutotuner.benchmark_all_configs (dynamo_timed)").
constexpr std::string_view kAutotuneEvent = "CachingAutotuner.benchmark_all_configs";
// How many recompilation causes and first-call ops a part's detail names.
constexpr size_t kDetailItems = 3;

bool recurring(ColdCauseKind k) {
  return k == ColdCauseKind::MemoryAllocation || k == ColdCauseKind::StreamEventCreation ||
         k == ColdCauseKind::LibrarySetup;
}

// a \ b, both merged.
std::vector<Interval> subtract(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (Interval iv : a) {
    while (j < b.size() && b[j].second <= iv.first) ++j;
    for (size_t k = j; k < b.size() && b[k].first < iv.second; ++k) {
      if (b[k].first > iv.first) out.emplace_back(iv.first, b[k].first);
      iv.first = std::max(iv.first, b[k].second);
      if (iv.first >= iv.second) break;
    }
    if (iv.first < iv.second) out.push_back(iv);
  }
  return out;
}

// The cause of each recompilation: the input shape of the frame's call before it against its own.
std::string recompile_causes(const Trace& t, const CompileFacts& c) {
  std::vector<std::pair<std::string, int>> causes;  // in the order they first happened
  std::set<std::pair<int32_t, int32_t>> seen;         // compile ids called so far
  std::map<int32_t, NameId> last_input;               // frame → the input of its last call
  int same_input = 0;                                 // recompilations whose first input did not change
  auto add = [&](std::string text) {
    for (auto& [known, n] : causes)
      if (known == text) return void(++n);
    causes.emplace_back(std::move(text), 1);
  };
  for (const CompiledCall& call : c.calls) {  // in time order
    const auto before = last_input.find(call.id.frame);
    if (call.id.recompile > 0 && seen.emplace(call.id.frame, call.id.recompile).second && call.input_dims != kNoName) {
      if (before == last_input.end())  // the frame's earlier calls ran before the profiler started
        add(fmt::format("input {} (the call before it was not profiled)", first_input_text(t, call.input_dims)));
      else if (before->second != call.input_dims)
        add(fmt::format("input {} → {}", first_input_text(t, before->second), first_input_text(t, call.input_dims)));
      else
        ++same_input;  // a guard on something else failed: a cache's length, a flag, a global
    }
    last_input[call.id.frame] = call.input_dims;
  }
  std::string out;
  for (size_t i = 0; i < causes.size() && i < kDetailItems; ++i)
    out += fmt::format("{}{}{}", i ? "; " : "", causes[i].first, causes[i].second > 1 ? fmt::format(" (×{})", causes[i].second) : "");
  if (causes.size() > kDetailItems) out += "; …";
  if (same_input > 0)
    out += fmt::format("{}{} with the same first input (a guard on other state: a cache's length, a flag)",
                       out.empty() ? "" : "; ", same_input);
  return out;
}

}  // namespace

OneOffCosts one_off_costs(const Trace& t, const Facts& f) {
  OneOffCosts out;
  const int64_t from = f.steps.empty() ? f.window.start_ns : f.steps.front().start_ns;
  const int64_t to = f.steps.empty() ? f.window.end_ns : f.steps.back().end_ns;
  out.window_ns = std::max<int64_t>(0, to - from);
  out.window_steps = f.steps.size();
  out.per_step_ns.assign(f.steps.size(), 0);
  if (to <= from) return out;

  const OneOffInput in = find_slow_calls(t, gpu_busy_intervals(t));
  constexpr size_t kClasses = std::size(kOneOffClasses);
  std::vector<std::vector<Interval>> matched(kClasses);
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.start_ns[e] < from || t.start_ns[e] > to || t.dur_ns[e] <= 0) continue;
    for (size_t k = 0; k < kClasses; ++k)
      if (kOneOffClasses[k].kind != ColdCauseKind::ProfilerBuffers && kOneOffClasses[k].matches(in, e))
        matched[k].emplace_back(t.start_ns[e], std::min(t.end_ns(e), to));
  }
  auto step_time = [&](const std::vector<Interval>& pieces, size_t i) {
    return covered_length(pieces, f.steps[i].start_ns, f.steps[i].end_ns);
  };
  std::vector<Interval> claimed;
  for (size_t k = 0; k < kClasses; ++k) {
    if (matched[k].empty()) continue;
    merge_intervals(matched[k]);
    const std::vector<Interval> pieces = subtract(matched[k], claimed);
    claimed.insert(claimed.end(), matched[k].begin(), matched[k].end());
    merge_intervals(claimed);
    const ColdCauseKind kind = kOneOffClasses[k].kind;
    OneOffPart part{std::string(to_string(kind)), 0, 0, ""};
    if (!recurring(kind)) {
      std::vector<Interval> own = pieces;
      part.ns = union_length(own);
      part.count = matched[k].size();
      for (size_t i = 0; i < f.steps.size(); ++i) out.per_step_ns[i] += step_time(pieces, i);
    } else if (f.steps.size() >= 3) {
      std::vector<int64_t> per(f.steps.size());
      for (size_t i = 0; i < f.steps.size(); ++i) per[i] = step_time(pieces, i);
      const int64_t usual = median(per);
      for (size_t i = 0; i < f.steps.size(); ++i)
        if (per[i] - usual >= kRecurringMinExcessNs) {
          part.ns += per[i] - usual;
          out.per_step_ns[i] += per[i] - usual;
          ++part.count;
        }
    }
    if (part.ns <= 0) continue;
    if (kind == ColdCauseKind::Compilation) {
      // Split into the first compilations and the recompilations (Facts::compile's ids).
      int64_t re_ns = 0;
      uint64_t re = 0, first = 0;
      for (const Compilation& c : f.compile.compilations)
        if (c.end_ns > from && c.start_ns < to) (c.id.recompile > 0 ? (re_ns += c.ns, ++re) : ++first);
      re_ns = std::min(re_ns, part.ns);
      part.count = first;
      // Inductor's autotuning runs at a new graph's first call, inside the compilation's events.
      std::vector<Interval> tuning;
      for (EventId e = 0; e < t.size(); ++e)
        if (t.start_ns[e] >= from && t.start_ns[e] <= to && t.name_of(e).starts_with(kAutotuneEvent))
          tuning.emplace_back(t.start_ns[e], t.end_ns(e));
      if (const int64_t tuned = union_length(tuning); tuned > 0)
        part.detail = fmt::format("autotuning {} of it", human_duration(tuned));
      if (re > 0) {
        out.parts.push_back({"recompilation", re, re_ns, recompile_causes(t, f.compile)});
        part.ns -= re_ns;
      }
      if (part.ns <= 0) continue;
    }
    out.parts.push_back(std::move(part));
  }

  // First-call work, per judged op and input shape (first_calls.hpp), less what the classes
  // claimed and the host's waits.
  std::vector<Interval> held = claimed;
  const std::vector<Interval> waits = host_wait_intervals(t, from, to);
  held.insert(held.end(), waits.begin(), waits.end());
  merge_intervals(held);
  OneOffPart seen{"first_seen_shape", 0, 0, ""}, first{"first_call", 0, 0, ""};
  std::map<NameId, std::pair<int64_t, uint64_t>> seen_ops, first_ops;  // op name → (ns, calls)
  for (const FirstCall& c : first_call_work(t, f.steps, from, to, held)) {
    OneOffPart& part = c.new_shape ? seen : first;
    auto& per_op = (c.new_shape ? seen_ops : first_ops)[t.name[c.op]];
    per_op.first += c.excess_ns;
    ++per_op.second;
    part.ns += c.excess_ns;
    ++part.count;
    if (c.step >= 0) out.per_step_ns[c.step] += c.excess_ns;
  }
  for (auto [part, ops] : {std::pair{&seen, &seen_ops}, std::pair{&first, &first_ops}}) {
    if (part->ns <= 0) continue;
    std::vector<std::pair<int64_t, NameId>> order;
    for (const auto& [name, v] : *ops) order.emplace_back(v.first, name);
    std::sort(order.rbegin(), order.rend());
    for (size_t i = 0; i < order.size() && i < kDetailItems; ++i) {
      const auto& v = (*ops)[order[i].second];
      part->detail += fmt::format("{}{} {}{}", i ? "; " : "", t.names.view(order[i].second), human_duration(v.first),
                                  part == &seen ? fmt::format(" on {} new shape{}", v.second, v.second == 1 ? "" : "s") : "");
    }
    out.parts.push_back(std::move(*part));
  }
  std::sort(out.parts.begin(), out.parts.end(), [](const OneOffPart& a, const OneOffPart& b) { return a.ns > b.ns; });
  for (const OneOffPart& p : out.parts) out.ns += p.ns;
  return out;
}

std::string one_off_words(const std::vector<OneOffPart>& parts, size_t at_most) {
  std::string out;
  for (size_t i = 0; i < parts.size() && i < at_most; ++i) {
    const OneOffPart& p = parts[i];
    std::string kind = p.kind;
    std::replace(kind.begin(), kind.end(), '_', ' ');
    out += fmt::format("{}{} {}", i ? ", " : "", kind, human_duration(p.ns));
    if (p.kind == "recompilation" || p.kind == "compilation")
      out += fmt::format(" ({}{})", p.count, p.detail.empty() ? "" : ": " + p.detail);
    else if (!p.detail.empty())
      out += fmt::format(" ({})", p.detail);
  }
  return out;
}

}  // namespace whyslow
