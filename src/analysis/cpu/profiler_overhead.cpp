// The profiler's own cost: CUPTI activity buffer requests stall the thread that needs a buffer.
#include "analysis/core/event_names.hpp"
#include "analysis/core/intervals.hpp"
#include "analysis/passes.hpp"

namespace whyslow {

ProfilerOverheadFacts profiler_overhead(const Trace& t) {
  ProfilerOverheadFacts f;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Overhead || !is_profiler_buffer_request(t.name_of(e))) continue;
    ++f.buffer_requests;
    f.buffer_request_ns += t.dur_ns[e];
    f.events.push_back(e);
  }
  return f;
}

std::vector<Interval> profiler_buffer_intervals(const Trace& t) {
  std::vector<Interval> out;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == EventKind::Overhead && t.dur_ns[e] > 0 && is_profiler_buffer_request(t.name_of(e)))
      out.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(out);
  return out;
}

}  // namespace whyslow
