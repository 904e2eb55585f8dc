// The profiler's own cost: CUPTI activity buffer requests stall the thread that needs a buffer.
#include "analysis/core/event_names.hpp"
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

}  // namespace whyslow
