// A host sync removed. Model: of each steady step's host waits that read back (synchronize calls,
// blocking device-to-host copies), every one but the step's last wait of any kind stops waiting for the GPU (the read-back moved to the end
// of the step, where the last wait already waits for everything before it); each keeps the call's
// own cost. With a parameter, only the waits whose call, or an op around it, has it in its name.
#include <fmt/core.h>

#include "analysis/cpu/host_waits.hpp"
#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

// How many nodes back on its lane a synchronize looks for the host-to-device copy it finishes
// (copy call, the CPU work after it, the sync).
constexpr NodeId kCopyLookBack = 4;

bool host_to_device_launch(const Trace& t, EventId call) {
  return call != kNoEvent && t.is_launch(call) && t.name_of(t.launch_link[call]).find("HtoD") != std::string_view::npos;
}

// A wait the fix moves: a synchronize, or a copy back to the host (.item(), .cpu()). A blocking
// host-to-device copy is pageable memory's (the pin edit's), not a read-back, and so is a
// synchronize inside the same op right after one (torch's copy from pageable memory waits so).
bool read_back(const Trace& t, const Graph& g, NodeId n) {
  const EventId call = g.nodes[n].event;
  const HostWait w = host_wait_kind(t, call);
  if (w == HostWait::BlockingCopy)
    return t.is_launch(call) && t.name_of(t.launch_link[call]).find("DtoH") != std::string_view::npos;
  if (w != HostWait::Sync) return false;
  const EventId op = t.parent[call];
  for (NodeId k = 1; k <= kCopyLookBack && k <= n; ++k) {
    const GraphNode& before = g.nodes[n - k];
    if (before.lane != g.nodes[n].lane || before.event == kNoEvent) continue;
    if (op != kNoEvent && t.start_ns[before.event] < t.start_ns[op]) break;  // outside the op
    if (host_to_device_launch(t, before.event)) return false;
  }
  return true;
}

// The call's name or an enclosing op's holds `what` (aten::item, aten::_local_scalar_dense, …).
bool named(const Trace& t, EventId e, std::string_view what) {
  if (what.empty()) return true;
  for (int depth = 0; e != kNoEvent && depth < 64; e = t.parent[e], ++depth)
    if (t.name_of(e).find(what) != std::string_view::npos) return true;
  return false;
}

}  // namespace

EditOutcome edit_no_sync(const EditContext& c, std::string_view param, GraphState& s) {
  EditOutcome out;
  const Graph& g = c.graph;
  uint64_t removed = 0;
  int64_t waited = 0;
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    NodeId last_wait = kNoNode;
    for (NodeId n = sp.first; n <= sp.last; ++n)
      if (g.nodes[n].kind == NodeKind::HostWait) last_wait = n;
    for (NodeId n = sp.first; n <= sp.last; ++n) {
      if (g.nodes[n].kind != NodeKind::HostWait || n == last_wait || !read_back(c.trace, g, n) ||
          !named(c.trace, g.nodes[n].event, param))
        continue;
      for (uint32_t k = g.edge_begin[n]; k < g.edge_begin[n + 1]; ++k)
        if (g.edges[k].kind == EdgeKind::HostSync) s.edge_lag[k] = kEdgeRemoved;
      waited += g.nodes[n].end_ns - g.nodes[n].start_ns - g.nodes[n].dur_ns;
      ++removed;
    }
  }
  if (removed == 0) {
    out.why_not = param.empty() ? "no steady step waits for the GPU more than once"
                                : fmt::format("no steady step waits for the GPU in a call named \"{}\" before its last wait", param);
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("{:.1f} host waits per step removed ({:.0f} µs of waiting each step)", static_cast<double>(removed) / steps,
                           static_cast<double>(waited) / steps / 1e3);
  return out;
}

}  // namespace whyslow
