// The op table with torch.profiler's key_averages() semantics, so a user can hold whyslow's
// numbers against the table torch printed for the same run:
//  - rows are CPU-side events (ops, record_function blocks, runtime/driver calls, profiler
//    overhead) and, kept apart under the same name, device-side events (kernels, copies,
//    memsets, GPU-lane annotations);
//  - ProfilerStep#N rows are grouped as "ProfilerStep*";
//  - an op's children are the events nested directly inside it on its thread (torch's tree:
//    sorted by start, longer first; a partial overlap closes the open event); self CPU time is
//    its duration minus its children's;
//  - an op that is the only child of an op of the same name (an overload calling itself, e.g.
//    aten::sum → aten::sum) is merged into its parent, as torch's _remove_dup_nodes does: the
//    parent takes the child's children and the child's kernels *in place of its own* (torch's
//    "lift kernels up" assigns the list), so kernels credited to the parent itself count in no
//    row of the chain. Where links hold, a parent that launches a kernel has the launch call as
//    a second child and is not merged; the rule bites where an External id names an op away
//    from the launch, as in PARAM resnet (7 rows: aten::result_type, the _foreach ops, the
//    optimizer), or where a kernel's launch call is missing from the trace;
//  - a kernel's time counts as self device time of the op it is linked to (the op its External
//    id names; see the second divergence below), and as device total of that op and all its
//    ancestors;
//  - GPU-lane annotations are written 2 ns longer than the span they mirror; torch reports the
//    span, so the 2 ns are taken off.
// Two known divergences:
//  - in traces with cold-start profiler events (Runtime Triggered Module Loading, Lazy Function
//    Loading, Activity Buffer Request), torch also credits kernel time to those events and their
//    ancestors, counting the same kernel several times (its Self CUDA % then sums to over
//    100 %). whyslow credits each kernel once, to the op that launched it;
//  - where a kernel's External id names an op that does not enclose its launch call (writers
//    that copy the correlation id into External id: the 2023 PARAM traces, HTA's critical_path
//    traces), torch credits the unrelated op with that id (PARAM resnet: 239 ms of self CUDA on
//    aten::result_type, which launches nothing). whyslow credits the op that encloses the launch
//    (Trace::repaired_op_links, trace/op_links.hpp). On traces with sane links (every oracle
//    fixture: tests/ops_oracle_test.cpp checks none needed repair) the table is torch's row for
//    row; tests/public_links_test.cpp holds it to torch's rows on PARAM resnet with the External
//    id links put back as written.
#include <algorithm>
#include <map>

#include "analysis/core/event_names.hpp"
#include "trace/steps.hpp"
#include "analysis/passes.hpp"

namespace whyslow {
namespace {

// Writer padding of gpu_user_annotation spans (libkineto: ts − 1 ns, dur + 2 ns).
constexpr int64_t kGpuAnnotationPaddingNs = 2;

bool in_op_tree(EventKind k) {
  return k == EventKind::CpuOp || k == EventKind::UserAnnotation || is_host_api(k) ||
         k == EventKind::Overhead;
}

// The CPU track whose op-tree event encloses `e` (profiler overhead events are written on
// their own pseudo-track, pid -1, though they run inside a runtime call on a real thread).
TrackId home_track(const Trace& t, EventId e) {
  const int64_t start = t.start_ns[e], end = t.end_ns(e);
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    const Track& track = t.tracks[tr];
    if (track.kind != TrackKind::Cpu) continue;
    auto it = std::upper_bound(track.events.begin(), track.events.end(), start,
                               [&](int64_t s, EventId x) { return s < t.start_ns[x]; });
    if (it == track.events.begin()) continue;
    for (EventId c = *(it - 1); c != kNoEvent; c = t.parent[c])
      if (t.start_ns[c] <= start && t.end_ns(c) >= end) return tr;
  }
  return UINT32_MAX;
}

std::string row_key(std::string_view name) {
  return is_profiler_step_name(name) ? std::string("ProfilerStep*") : std::string(name);
}

}  // namespace

std::vector<OpRow> op_table(const Trace& t) {
  // 1. The events of torch's tree, per thread, in (start, longer first) order. A CPU track's events
  // come in this order already (trace_builder nests them so): only the few overhead events moved
  // to their home thread need sorting, then merging in as the tree is walked below.
  auto order = [&](EventId a, EventId b) { return t.nests_before(a, b); };
  std::vector<std::vector<EventId>> moved(t.tracks.size());
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    const Track& track = t.tracks[tr];
    if (track.kind == TrackKind::Cpu) continue;
    for (EventId e : track.events) {
      if (t.kind[e] != EventKind::Overhead) continue;
      const TrackId home = home_track(t, e);
      moved[home == UINT32_MAX ? tr : home].push_back(e);
    }
  }
  for (std::vector<EventId>& list : moved) std::sort(list.begin(), list.end(), order);

  // 2. Each GPU activity's time to the op it is linked to (trace/op_links.hpp), as that op's own
  // device time. The linked ops are few against the events: their sums in a list sorted by op, and
  // a bit per event that says which to look up.
  std::vector<std::pair<EventId, int64_t>> linked;
  std::vector<bool> has_linked(t.size(), false);
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.op_link[e] == kNoEvent) continue;
    linked.emplace_back(t.op_link[e], t.dur_ns[e]);
    has_linked[t.op_link[e]] = true;
  }
  std::sort(linked.begin(), linked.end());
  const auto own_device_ns = [&](EventId e) {
    int64_t sum = 0;
    if (!has_linked[e]) return sum;
    auto it = std::lower_bound(linked.begin(), linked.end(), std::pair<EventId, int64_t>{e, INT64_MIN});
    for (; it != linked.end() && it->first == e; ++it) sum += it->second;
    return sum;
  };

  // 3. The tree, duplicate merging, self and device times, in one walk down each thread's events
  // with the chain of open ones (memory: the chain, not the events). An op is merged into its
  // parent when it is the parent's only child and has the parent's name: a chain of merged ops
  // shares one name, so "the name of the chain's head" is the name of any op in it. Whether a
  // child is its parent's only one is known when a second child comes or the parent ends: until
  // then the first child's sums wait in the parent's entry (`pending`), then count as a row's
  // (a head's) or vanish into the chain (merged).
  //  - A head adds a call, its duration to its name's self and total CPU time, and takes its
  //    duration off its parent's name's self time.
  //  - Device time: a chain keeps the kernels of its innermost merged op in place of the head's
  //    own (torch: parent.kernels = child.kernels, "lift kernels up"), so kernels credited to the
  //    head itself count in no row; a head's device total is that own time and the totals of the
  //    heads below it, its chain's included.
  struct Sums {
    uint64_t calls = 0;
    int64_t self_cpu_ns = 0, cpu_total_ns = 0, self_device_ns = 0, device_total_ns = 0;
  };
  const size_t no_name = t.names.size();  // Trace::name_slot's entry for events without a name
  std::vector<Sums> host_sums(no_name + 1), device_sums(no_name + 1);
  // A finished op's sums, before it is known to be a head or merged.
  struct Done {
    size_t slot;
    int64_t dur_ns, own_device_ns, below_device_ns;  // own: after its chain's handoff
  };
  struct Open {
    int64_t end_ns;
    size_t slot;
    EventId event;
    uint8_t children;  // saturating at 2: only "one" matters
    int64_t own_device_ns, below_device_ns;
    Done pending;      // the first child's, while it is the only one
  };
  std::vector<Open> open;
  const auto count_head = [&](const Done& d, Open* parent) {
    Sums& r = host_sums[d.slot];
    ++r.calls;
    r.self_cpu_ns += d.dur_ns;
    r.cpu_total_ns += d.dur_ns;
    r.self_device_ns += d.own_device_ns;
    r.device_total_ns += d.own_device_ns + d.below_device_ns;
    if (!parent) return;
    host_sums[parent->slot].self_cpu_ns -= d.dur_ns;
    parent->below_device_ns += d.own_device_ns + d.below_device_ns;
  };
  // The op on top of the chain ends: its only child settles, then it goes to its parent.
  const auto finish = [&] {
    Open& o = open.back();
    if (o.children == 1) {
      const Done& c = o.pending;
      if (c.slot == o.slot) {  // merged: the chain takes its kernels and what is below it
        o.own_device_ns = c.own_device_ns;
        o.below_device_ns += c.below_device_ns;
      } else {
        count_head(c, &o);
      }
    }
    const Done d{o.slot, t.dur_ns[o.event], o.own_device_ns, o.below_device_ns};
    open.pop_back();
    if (open.empty()) count_head(d, nullptr);
    else if (open.back().children == 1) open.back().pending = d;
    else count_head(d, &open.back());
  };
  const auto add_node = [&](EventId e) {
    const int64_t start = t.start_ns[e], end = t.end_ns(e);
    while (!open.empty() && (start >= open.back().end_ns || end > open.back().end_ns)) finish();
    if (!open.empty()) {
      Open& p = open.back();
      if (p.children == 1) count_head(p.pending, &p);  // a second child: the first is a head
      if (p.children < 2) ++p.children;
    }
    // Filled in place: a pushed temporary was written in pieces and read back whole, a stall at
    // each of a million ops.
    Open& o = open.emplace_back();
    o.end_ns = end;
    o.slot = t.name_slot(e);
    o.event = e;
    o.children = 0;
    o.own_device_ns = own_device_ns(e);
    o.below_device_ns = 0;
  };
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    // The track's own op-tree events (a CPU track's) merged with those moved to it: a moved event
    // goes first only when it comes strictly before (std::inplace_merge's order).
    const std::vector<EventId>& own = t.tracks[tr].events;
    const std::vector<EventId>& extra = moved[tr];
    const bool cpu = t.tracks[tr].kind == TrackKind::Cpu;
    if (!cpu && extra.empty()) continue;
    size_t a = 0, b = 0;
    for (;;) {
      while (a < own.size() && !(cpu && in_op_tree(t.kind[own[a]]))) ++a;
      if (a < own.size() && (b == extra.size() || !order(extra[b], own[a]))) add_node(own[a++]);
      else if (b < extra.size()) add_node(extra[b++]);
      else break;
    }
    while (!open.empty()) finish();
  }
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    if (!is_gpu_activity(k) && k != EventKind::GpuUserAnnotation) continue;
    int64_t d = t.dur_ns[e];
    if (k == EventKind::GpuUserAnnotation) d = std::max<int64_t>(0, d - kGpuAnnotationPaddingNs);
    Sums& r = device_sums[t.name_slot(e)];
    ++r.calls;
    r.self_device_ns += d;
    r.device_total_ns += d;
  }
  std::map<std::pair<std::string, bool>, OpRow> rows;
  for (const bool device_row : {false, true}) {
    const std::vector<Sums>& sums = device_row ? device_sums : host_sums;
    for (size_t id = 0; id < sums.size(); ++id) {
      const Sums& x = sums[id];
      if (x.calls == 0) continue;
      OpRow& r = rows[{row_key(id == no_name ? std::string_view{} : t.names.view(static_cast<NameId>(id))), device_row}];
      r.calls += x.calls;
      r.self_cpu_ns += x.self_cpu_ns;
      r.cpu_total_ns += x.cpu_total_ns;
      r.self_device_ns += x.self_device_ns;
      r.device_total_ns += x.device_total_ns;
    }
  }
  std::vector<OpRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) {
    row.name = key.first;
    row.device_row = key.second;
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const OpRow& a, const OpRow& b) {
    const int64_t wa = std::max(a.self_cpu_ns, a.self_device_ns), wb = std::max(b.self_cpu_ns, b.self_device_ns);
    if (wa != wb) return wa > wb;
    return std::tie(a.name, a.device_row) < std::tie(b.name, b.device_row);
  });
  return out;
}

}  // namespace whyslow
