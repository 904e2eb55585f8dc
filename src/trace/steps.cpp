#include "trace/steps.hpp"

#include <algorithm>
#include <charconv>

#include "trace/name_memo.hpp"

namespace whyslow {

namespace {
constexpr std::string_view kStepPrefix = "ProfilerStep#";
}

std::optional<int64_t> profiler_step_number(std::string_view name) {
  if (!name.starts_with(kStepPrefix)) return std::nullopt;
  const std::string_view digits = name.substr(kStepPrefix.size());
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() || n < 0) return std::nullopt;
  return n;
}

bool is_profiler_step(const Trace& t, EventId e) {
  const EventKind k = t.kind[e];
  return (k == EventKind::UserAnnotation || k == EventKind::CpuOp) &&
         t.tracks[t.track[e]].kind == TrackKind::Cpu && is_profiler_step_name(t.name_of(e));
}

std::vector<EventId> profiler_steps(const Trace& t) {
  std::vector<EventId> steps;
  // A step inside a step is part of the outer one's window, not a step of its own: 2,000 nested
  // steps made 2,000 windows each holding the rest (quadratic time, 3.5 GB). One pass per track,
  // parents before children: whether an event is a step or inside one follows from its parent.
  std::vector<bool> covered(t.size());
  // Whether each name is a step's, tested once per name (name_memo.hpp): testing it per event
  // looked the name up in the pool a million times on a 542 MB trace (1 % of explain's CPU).
  NameMemo<bool, bool (*)(std::string_view)> step_name(t, is_profiler_step_name);
  const auto is_step = [&](EventId e) {
    const EventKind k = t.kind[e];
    return (k == EventKind::UserAnnotation || k == EventKind::CpuOp) && step_name.of(e);
  };
  for (const Track& tr : t.tracks) {
    if (tr.kind != TrackKind::Cpu) continue;
    for (EventId e : tr.events) {
      const bool inside = t.parent[e] != kNoEvent && covered[t.parent[e]];
      const bool step = is_step(e);  // is_profiler_step(): the track is a CPU one
      if (step && !inside) steps.push_back(e);
      covered[e] = inside || step;
    }
  }
  std::sort(steps.begin(), steps.end(), [&](EventId a, EventId b) {
    return t.start_ns[a] != t.start_ns[b] ? t.start_ns[a] < t.start_ns[b] : a < b;
  });
  return steps;
}

std::vector<EventId> find_profiler_steps(const Trace& t, int64_t n) {
  std::vector<EventId> out;
  for (EventId e : profiler_steps(t))
    if (profiler_step_number(t.name_of(e)) == n) out.push_back(e);
  return out;
}

}  // namespace whyslow
