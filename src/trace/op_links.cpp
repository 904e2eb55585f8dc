#include "trace/op_links.hpp"

#include <vector>

namespace whyslow {
namespace {

bool is_op(EventKind k) { return k == EventKind::CpuOp || k == EventKind::UserAnnotation; }

// The link of `e` (a GPU event or a host call) names an op that does not enclose `call`, the
// host call that launched it.
bool broken(const Trace& t, EventId e, EventId call) {
  const EventId op = t.op_link[e];
  if (op == kNoEvent || call == kNoEvent) return false;  // nothing to check against
  return t.track[op] != t.track[call] || t.start_ns[op] > t.start_ns[call] || t.end_ns(call) > t.end_ns(op);
}

// The host call whose enclosing op `e` should link to: its launch call for GPU events, itself
// for host calls; kNoEvent for anything else.
EventId call_of(const Trace& t, EventId e) {
  const EventKind k = t.kind[e];
  if (is_gpu_activity(k) || k == EventKind::Sync) return t.launch_link[e];
  return is_host_api(k) ? e : kNoEvent;
}

}  // namespace

uint64_t repair_op_links(Trace& t) {
  std::vector<EventId> to_repair;
  for (EventId e = 0; e < t.size(); ++e)
    if (broken(t, e, call_of(t, e))) to_repair.push_back(e);
  if (to_repair.empty()) return 0;

  // The innermost op enclosing each event, in one pass per track: its events are sorted parents
  // first, so a parent's answer is known before its children ask.
  std::vector<EventId> enclosing_op(t.size(), kNoEvent);
  for (const Track& track : t.tracks)
    for (EventId e : track.events) {
      const EventId p = t.parent[e];
      if (p != kNoEvent) enclosing_op[e] = is_op(t.kind[p]) ? p : enclosing_op[p];
    }
  uint64_t repaired_gpu_events = 0;  // the ones whose time an op is credited with
  for (EventId e : to_repair) {
    t.op_link[e] = enclosing_op[call_of(t, e)];
    if (is_gpu_activity(t.kind[e])) ++repaired_gpu_events;
  }
  return repaired_gpu_events;
}

}  // namespace whyslow
