// record_function blocks: CPU time of each block, and the GPU time of the work launched from
// inside it (summed up the nesting tree, then credited to the outermost block of each name).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/core/event_names.hpp"
#include "trace/steps.hpp"
#include "analysis/passes.hpp"

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
  if (rows.empty()) return {};  // no blocks: the per-event sums below would feed no row
  // A block's GPU time is that of the GPU work launched from anywhere inside it, each piece
  // credited once per name even where blocks of one name nest. Per event: the GPU work launched
  // from inside it (summed from the leaves up, children after parents in track order); per name:
  // the sums of its outermost blocks, those with no block of the same name around them. Linear,
  // however deep the nesting.
  std::vector<int64_t> gpu_ns(t.size(), 0);
  // A count of the kernels below one event fits 32 bits, as every event id does: 4 bytes per
  // event less of this pass's peak.
  std::vector<uint32_t> kernels(t.size(), 0);
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    gpu_ns[t.launch_link[e]] += t.dur_ns[e];
    kernels[t.launch_link[e]] += t.kind[e] == EventKind::Kernel;
  }
  // The walk down each track keeps the chain of events around the current one, as the loader
  // nested them (trace_builder.cpp: the parent is the innermost open event), and how many blocks
  // of each name are on it.
  std::vector<EventId> open;
  std::unordered_map<NameId, uint32_t> open_blocks;
  for (const Track& tr : t.tracks) {
    for (auto it = tr.events.rbegin(); it != tr.events.rend(); ++it) {
      const EventId p = t.parent[*it];
      if (p == kNoEvent) continue;
      gpu_ns[p] += gpu_ns[*it];
      kernels[p] += kernels[*it];
    }
    open.clear();
    open_blocks.clear();
    for (const EventId e : tr.events) {  // by start, parents before children
      if (t.kind[e] == EventKind::Instant) continue;  // never nested, never a parent
      while (!open.empty() && open.back() != t.parent[e]) {
        if (is_block(open.back())) --open_blocks[t.name[open.back()]];
        open.pop_back();
      }
      open.push_back(e);
      if (!is_block(e) || open_blocks[t.name[e]]++ > 0) continue;
      AnnotationRow& r = rows[t.name_of(e)];
      r.gpu_ns += gpu_ns[e];
      r.kernels += kernels[e];
    }
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
