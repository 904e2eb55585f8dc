// record_function blocks: CPU time of each block, and the GPU time of the work launched from
// inside it (summed up the nesting tree, then credited to the outermost block of each name).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/core/event_names.hpp"
#include "analysis/core/nesting_walk.hpp"
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
  // The walk down each track (analysis/core/nesting_walk.hpp) counts the blocks of each name open
  // around the current event. A subtree is walked whole between entering its root and leaving it,
  // so the work launched inside an event is the growth of running sums between the two.
  struct Entered {
    bool outermost;  // a block with no block of its name around it: its row takes its sums
    int64_t gpu_ns_before;
    uint64_t kernels_before;
  };
  std::unordered_map<NameId, uint32_t> open_blocks;
  int64_t gpu_ns = 0;
  uint64_t kernels = 0;
  auto found = launched.begin();
  walk_nesting<Entered>(
      t,
      [&](EventId e, const Entered*, Entered& entry) {
        entry.outermost = is_block(e) && open_blocks[t.name[e]]++ == 0;
        entry.gpu_ns_before = gpu_ns;
        entry.kernels_before = kernels;
        if (!launches[e]) return;
        // A thread's launches come in nearly the order of their ids: searched from the last one found.
        auto it = found = gallop_lower_bound(launched.begin(), launched.end(), found, e,
                                             [](const Launched& l, EventId x) { return l.launch < x; });
        for (; it != launched.end() && it->launch == e; ++it) {
          gpu_ns += it->gpu_ns;
          kernels += it->kernels;
        }
      },
      [&](EventId e, const Entered& entry) {
        if (is_block(e)) --open_blocks[t.name[e]];
        if (!entry.outermost) return;
        AnnotationRow& r = rows[t.name_of(e)];
        r.gpu_ns += gpu_ns - entry.gpu_ns_before;
        r.kernels += kernels - entry.kernels_before;
      });
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
