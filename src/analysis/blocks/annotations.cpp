// record_function blocks: CPU time of each block, and the GPU time of the work launched from
// inside it (summed up the nesting tree, then credited to the outermost block of each name).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/core/event_names.hpp"
#include "trace/steps.hpp"
#include "analysis/passes.hpp"
#include "common/gallop.hpp"

namespace whyslow {

std::vector<AnnotationRow> annotation_table(const Trace& t) {
  std::map<std::string_view, AnnotationRow> rows;
  auto is_block = [&](EventId e) {
    return t.kind[e] == EventKind::UserAnnotation && t.tracks[t.track[e]].kind == TrackKind::Cpu &&
           !is_profiler_step(t, e);
  };
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_block(e)) continue;
    AnnotationRow& r = rows[t.name_of(e)];
    ++r.calls;
    r.cpu_total_ns += t.dur_ns[e];
  }
  if (rows.empty()) return {};  // no blocks: the sums below would feed no row
  // A block's GPU time is that of the GPU work launched from anywhere inside it, each piece
  // credited once per name even where blocks of one name nest: per name, the sums of its outermost
  // blocks, those with no block of the same name around them. Each launch's own GPU work first,
  // in a list by launch (launches are few against the events; a bit per event says which to look
  // up: two sums per event took 16 MB on the bench's 542 MB trace).
  struct Launched {
    EventId launch;
    uint32_t kernels;
    int64_t gpu_ns;
  };
  std::vector<Launched> launched;
  std::vector<bool> launches(t.size(), false);
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    launched.push_back({t.launch_link[e], t.kind[e] == EventKind::Kernel, t.dur_ns[e]});
    launches[t.launch_link[e]] = true;
  }
  std::sort(launched.begin(), launched.end(), [](const Launched& a, const Launched& b) { return a.launch < b.launch; });
  // The walk down each track keeps the chain of events around the current one, as the loader
  // nested them (trace_builder.cpp: the parent is the innermost open event), and how many blocks
  // of each name are on it. A track's events come parents first, each subtree whole after its
  // root, so the work launched inside an event is what the walk meets between entering it and
  // leaving it: running sums, read at both ends. Linear, however deep the nesting.
  struct Open {
    EventId event;
    bool outermost;  // a block with no block of its name around it: its row takes its sums
    int64_t gpu_ns_before;
    uint64_t kernels_before;
  };
  std::vector<Open> open;
  std::unordered_map<NameId, uint32_t> open_blocks;
  int64_t gpu_ns = 0;
  uint64_t kernels = 0;
  auto found = launched.begin();
  const auto leave = [&] {
    const Open& o = open.back();
    if (is_block(o.event)) --open_blocks[t.name[o.event]];
    if (o.outermost) {
      AnnotationRow& r = rows[t.name_of(o.event)];
      r.gpu_ns += gpu_ns - o.gpu_ns_before;
      r.kernels += kernels - o.kernels_before;
    }
    open.pop_back();
  };
  for (const Track& tr : t.tracks) {
    open_blocks.clear();
    for (const EventId e : tr.events) {  // by start, parents before children
      if (t.kind[e] == EventKind::Instant) continue;  // never nested, never a parent
      while (!open.empty() && open.back().event != t.parent[e]) leave();
      Open& o = open.emplace_back();  // filled in place: a pushed temporary stalls on its read-back
      o.event = e;
      o.outermost = is_block(e) && open_blocks[t.name[e]]++ == 0;
      o.gpu_ns_before = gpu_ns;
      o.kernels_before = kernels;
      if (!launches[e]) continue;
      // A thread's launches come in nearly the order of their ids: searched from the last one found.
      auto it = found = gallop_lower_bound(launched.begin(), launched.end(), found, e,
                                           [](const Launched& l, EventId x) { return l.launch < x; });
      for (; it != launched.end() && it->launch == e; ++it) {
        gpu_ns += it->gpu_ns;
        kernels += it->kernels;
      }
    }
    while (!open.empty()) leave();
  }
  std::vector<AnnotationRow> out;
  for (auto& [name, row] : rows) {
    row.name = std::string(name);
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const AnnotationRow& a, const AnnotationRow& b) {
    return a.cpu_total_ns != b.cpu_total_ns ? a.cpu_total_ns > b.cpu_total_ns : a.name < b.name;
  });
  return out;
}

}  // namespace whyslow
