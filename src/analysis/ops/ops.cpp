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
  // to their home thread need sorting, then merging in as the nodes are laid out below.
  auto order = [&](EventId a, EventId b) { return t.nests_before(a, b); };
  std::vector<std::vector<EventId>> moved(t.tracks.size());
  size_t node_count = 0;
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    const Track& track = t.tracks[tr];
    for (EventId e : track.events) {
      if (!in_op_tree(t.kind[e])) continue;
      if (track.kind == TrackKind::Cpu) {
        ++node_count;
      } else if (t.kind[e] == EventKind::Overhead) {
        const TrackId home = home_track(t, e);
        moved[home == UINT32_MAX ? tr : home].push_back(e);
        ++node_count;
      }
    }
  }
  for (std::vector<EventId>& list : moved) std::sort(list.begin(), list.end(), order);

  // 2. Tree, duplicate merging, self times. Node i ↔ nodes[i]; parents precede children.
  // Children counts double as the live counts of the merging below (a node's count changes only
  // after its own turn); the merging asks only whether a count is one, so they saturate at two
  // and share a byte with the bit that marks a node merged into its parent's chain. These three
  // arrays, 9 bytes a node, are this pass's memory: the nodes are read straight off the tracks.
  constexpr uint8_t kManyChildren = 2, kCountBits = 0x03, kMerged = 0x80;
  std::vector<EventId> nodes;
  std::vector<int32_t> parent;
  std::vector<uint8_t> live_children;
  nodes.reserve(node_count);
  parent.reserve(node_count);
  live_children.reserve(node_count);
  std::vector<int32_t> open;
  const auto add_node = [&](EventId e) {
    const int32_t i = static_cast<int32_t>(nodes.size());
    nodes.push_back(e);
    int32_t p = -1;
    while (!open.empty()) {
      const EventId top = nodes[open.back()];
      if (t.start_ns[e] >= t.end_ns(top) || t.end_ns(e) > t.end_ns(top)) {
        open.pop_back();
        continue;
      }
      p = open.back();
      break;
    }
    parent.push_back(p);
    live_children.push_back(0);
    if (p >= 0 && live_children[p] < kManyChildren) ++live_children[p];
    open.push_back(i);
  };
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    // The track's own op-tree events (a CPU track's) merged with those moved to it: a moved event
    // goes first only when it comes strictly before (std::inplace_merge's order).
    const std::vector<EventId>& own = t.tracks[tr].events;
    const std::vector<EventId>& extra = moved[tr];
    const bool cpu = t.tracks[tr].kind == TrackKind::Cpu;
    if (!cpu && extra.empty()) continue;
    open.clear();
    size_t a = 0, b = 0;
    for (;;) {
      while (a < own.size() && !(cpu && in_op_tree(t.kind[own[a]]))) ++a;
      if (a < own.size() && (b == extra.size() || !order(extra[b], own[a]))) add_node(own[a++]);
      else if (b < extra.size()) add_node(extra[b++]);
      else break;
    }
  }
  std::vector<std::vector<EventId>>().swap(moved);
  const size_t n = nodes.size();
  // Each GPU activity's time to the op it is linked to (trace/op_links.hpp), as that node's own
  // device time. The linked ops are few against the events: their sums in a list sorted by op, and
  // a bit per event that says which to look up, then the nodes' own times in a list by node (an
  // array of 8 bytes a node took 10 MB on the bench's 542 MB trace).
  std::vector<std::pair<uint32_t, int64_t>> own_device;  // (node, its linked GPU time), ascending by node
  {
    std::vector<std::pair<EventId, int64_t>> linked;
    std::vector<bool> has_linked(t.size(), false);
    for (EventId e = 0; e < t.size(); ++e) {
      if (!is_gpu_activity(t.kind[e]) || t.op_link[e] == kNoEvent) continue;
      linked.emplace_back(t.op_link[e], t.dur_ns[e]);
      has_linked[t.op_link[e]] = true;
    }
    std::sort(linked.begin(), linked.end());
    for (size_t i = 0; i < n; ++i) {
      if (!has_linked[nodes[i]]) continue;
      int64_t sum = 0;
      auto it = std::lower_bound(linked.begin(), linked.end(), std::pair<EventId, int64_t>{nodes[i], INT64_MIN});
      for (; it != linked.end() && it->first == nodes[i]; ++it) sum += it->second;
      own_device.emplace_back(static_cast<uint32_t>(i), sum);
    }
  }
  // Each node's head (itself, or the head of the chain it merged into), without an array of its
  // own: a merged node's head is its parent's head, so parent[i] becomes the parent's head (all
  // that is read of it from here on) and kMerged says which nodes are not heads.
  auto is_head = [&](size_t i) { return (live_children[i] & kMerged) == 0; };
  auto head_of = [&](size_t i) { return is_head(i) ? static_cast<int32_t>(i) : parent[i]; };
  for (size_t i = 0; i < n; ++i) {
    if (parent[i] < 0) continue;
    const int32_t p = head_of(static_cast<size_t>(parent[i]));
    parent[i] = p;
    if (t.name[nodes[i]] == t.name[nodes[p]] && (live_children[p] & kCountBits) == 1) {
      live_children[i] |= kMerged;
      // i's own count: unchanged until its turn
      live_children[p] = static_cast<uint8_t>((live_children[p] & ~kCountBits) | (live_children[i] & kCountBits));
    }
  }
  // 3. Rows, summed per name id first (a name repeats over millions of events), then per row key
  // (ProfilerStep#N names share one). A chain's self CPU time is its head's duration less its
  // children's: added and subtracted straight into the sums, which is all the rows need of it.
  struct Sums {
    uint64_t calls = 0;
    int64_t self_cpu_ns = 0, cpu_total_ns = 0, self_device_ns = 0, device_total_ns = 0;
  };
  const size_t no_name = t.names.size();  // Trace::name_slot's entry for events without a name
  std::vector<Sums> host_sums(no_name + 1), device_sums(no_name + 1);
  for (size_t i = 0; i < n; ++i) {
    if (!is_head(i)) continue;
    const int64_t dur = t.dur_ns[nodes[i]];
    Sums& r = host_sums[t.name_slot(nodes[i])];
    ++r.calls;
    r.self_cpu_ns += dur;
    r.cpu_total_ns += dur;
    if (parent[i] >= 0) host_sums[t.name_slot(nodes[parent[i]])].self_cpu_ns -= dur;
  }

  // 4. Device time (each node's own was taken in step 2). A merged chain keeps the kernels of its
  // innermost merged node (torch: parent.kernels = child.kernels, "lift kernels up"), so kernels
  // credited to the head itself count in no row. A head's device total is its own time and the
  // totals of the heads below it. One walk down the nodes (pre-order: a node's subtree follows
  // it) keeps the heads on the path to the current node: a head is complete when the walk leaves
  // its subtree, and hands its total to the head above it. A chain's merged nodes come before
  // any head below it (each had its parent's only child), while the head is still the path's last.
  struct OnPath {
    int32_t head;
    int64_t own_ns, below_ns;  // its own device time (after the handoff); its heads' totals below
  };
  std::vector<OnPath> path;
  const auto leave = [&] {
    const OnPath h = path.back();
    path.pop_back();
    Sums& r = host_sums[t.name_slot(nodes[h.head])];
    r.self_device_ns += h.own_ns;
    r.device_total_ns += h.own_ns + h.below_ns;
    if (!path.empty()) path.back().below_ns += h.own_ns + h.below_ns;
  };
  size_t next_own = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t own_ns = 0;
    if (next_own < own_device.size() && own_device[next_own].first == i) own_ns = own_device[next_own++].second;
    // parent[i]: the head of i's parent, an ancestor, so on the path (-1: a root)
    while (!path.empty() && path.back().head != parent[i]) leave();
    if (is_head(i)) path.push_back({static_cast<int32_t>(i), own_ns, 0});
    else path.back().own_ns = own_ns;  // in place of its head's own: the innermost writes last
  }
  while (!path.empty()) leave();
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
