// A host op's own work taken off each steady step. Model: the CPU work inside each call of the
// named op on the steps' thread goes (the op made on the GPU instead, torch.randn(..., device=
// "cuda"), or done once before the loop, as the coalesce that the overhead_bound and cpu_prefix
// findings name); the CUDA calls inside it stay, with the work they launch, and so does everything
// else the step does. A call nested inside another call of the same op counts once.
#include <fmt/core.h>

#include "analysis/graph/edits/cpu_work_cuts.hpp"
#include "analysis/graph/edits/edits.hpp"

namespace whyslow {

EditOutcome edit_host_op(const EditContext& c, std::string_view param, GraphState& s) {
  EditOutcome out;
  if (param.empty()) {
    out.why_not = "host-op takes the name of the op to take off the step: --edit host-op=aten::coalesce";
    return out;
  }
  const Trace& t = c.trace;
  const Graph& g = c.graph;
  const NameId name = t.names.find(param);
  if (name == kNoName) {
    out.why_not = fmt::format("no event of the trace is named \"{}\"", param);
    return out;
  }
  int64_t removed = 0;
  uint64_t calls = 0;
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    const Track& tr = t.tracks[g.lanes[sp.lane].track];
    const int64_t from = g.nodes[sp.first].start_ns, to = g.nodes[sp.last].end_ns;
    int64_t covered_to = INT64_MIN;  // the end of the last call counted: calls inside it are not
    for (EventId e : tr.events) {
      if (t.name[e] != name || t.dur_ns[e] <= 0 || t.start_ns[e] < from || t.end_ns(e) > to) continue;
      if (t.start_ns[e] < covered_to) continue;
      covered_to = t.end_ns(e);
      ++calls;
      removed += shrink_work(g, s, sp.first, sp.last, t.start_ns[e], t.end_ns(e), INT64_MAX);  // all of it
    }
  }
  if (calls == 0) {
    out.why_not = fmt::format("the steady steps hold no call of {} on their thread", param);
    return out;
  }
  if (removed == 0) {
    out.why_not = fmt::format("{}'s calls in the steady steps hold no CPU work of their own", param);
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("{}'s CPU work off the step: {:.0f} µs in {:.1f} calls per step", param,
                           static_cast<double>(removed) / steps / 1e3, static_cast<double>(calls) / steps);
  return out;
}

}  // namespace whyslow
