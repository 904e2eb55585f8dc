#include "explain/highlights.hpp"

#include "trace/steps.hpp"

#include <algorithm>
#include <unordered_set>

#include "analysis/core/event_names.hpp"

namespace whyslow {

void add_mark(Highlights& h, EventId e) {
  if (e != kNoEvent && h.mark.size() < kMaxMarks) h.mark.push_back(e);
}

std::vector<EventId> cover_gpu_work_during(const Trace& t, const std::vector<Interval>& merged, size_t max_events) {
  std::vector<EventId> out;
  for (EventId e = 0; e < t.size() && out.size() < max_events; ++e)
    if (is_gpu_activity(t.kind[e]) && covered_length(merged, t.start_ns[e], t.end_ns(e)) > 0) out.push_back(e);
  return out;
}

void highlight_waits(const Trace& t, const SyncFacts& syncs, Highlights& h) {
  std::vector<Interval> spans;
  for (const SyncCall& c : syncs.calls) {
    add_mark(h, c.event);
    spans.emplace_back(t.start_ns[c.event], t.end_ns(c.event));
  }
  merge_intervals(spans);
  h.cover = cover_gpu_work_during(t, spans, kMaxMarks);
  h.marks_are_waits = true;
}

std::vector<std::pair<EventId, EventId>> longest_queue_delays(const Trace& t, size_t n) {
  std::vector<std::pair<int64_t, EventId>> delays;  // (delay, GPU event)
  for (EventId e = 0; e < t.size(); ++e)
    if (is_gpu_activity(t.kind[e]) && t.launch_link[e] != kNoEvent)
      delays.emplace_back(t.start_ns[e] - t.start_ns[t.launch_link[e]], e);
  n = std::min(n, delays.size());
  std::partial_sort(delays.begin(), delays.begin() + static_cast<ptrdiff_t>(n), delays.end(),
                    [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<std::pair<EventId, EventId>> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(t.launch_link[delays[i].second], delays[i].second);
  return out;
}

void highlight_named_events(const Trace& t, Finding& x) {
  Highlights& h = x.highlights;
  std::vector<EventId> marks;
  for (const EventRef& r : x.events) {
    if (r.event >= t.size()) continue;  // a rule that found no event leaves kNoEvent
    if (is_profiler_step(t, r.event)) h.shade.emplace_back(t.start_ns[r.event], t.end_ns(r.event));
    else marks.push_back(r.event);
  }
  marks.insert(marks.end(), h.mark.begin(), h.mark.end());
  h.mark.clear();
  std::unordered_set<EventId> seen;
  for (EventId e : marks)
    if (seen.insert(e).second) add_mark(h, e);
}

}  // namespace whyslow
