// profiler_artifact: gaps the profiler itself caused. CUPTI hands activity records to the
// profiler in buffers; when one fills, the thread that needs a new one stalls on the request.
#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {

void rule_profiler_artifact(const Trace&, const Facts& f, std::vector<Finding>& out) {
  const ProfilerOverheadFacts& p = f.profiler;
  if (p.buffer_requests == 0) return;
  Finding x = make_finding(FindingId::profiler_artifact);
  x.title = fmt::format("{} of the trace is the profiler itself ({} CUPTI buffer request{}): not your code",
                        human_duration(p.buffer_request_ns), p.buffer_requests, p.buffer_requests == 1 ? "" : "s");
  x.detail = "\"Activity Buffer Request\" events are the profiler allocating buffers for CUPTI's activity records. "
             "The program does not do this when it runs unprofiled, so the gaps they leave on the timeline are "
             "measurement cost, not something to optimise.";
  x.evidence = {count("buffer_requests", p.buffer_requests), us("buffer_request_us", p.buffer_request_ns)};
  for (size_t i = 0; i < p.events.size() && i < 3; ++i) x.events.push_back({p.events[i], "profiler overhead"});
  x.try_next = {"Ignore these gaps when reading the timeline; profile fewer steps or with fewer options "
                "(record_shapes, with_stack) if they distort short steps."};
  for (EventId e : p.events) add_mark(x.highlights, e);
  x.impact_ns = 0;
  x.impact_what = "the profiler's own cost: gone without the profiler";
  out.push_back(std::move(x));
}

}  // namespace whyslow
