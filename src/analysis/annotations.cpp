// record_function blocks: CPU time of each block, and the GPU time of the work launched from
// inside it (found by walking up from each launch call to the annotations enclosing it).
#include <algorithm>
#include <map>

#include "analysis/event_names.hpp"
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
  std::vector<NameId> credited;  // names already credited for this GPU activity
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    credited.clear();
    for (EventId a = t.parent[t.launch_link[e]]; a != kNoEvent; a = t.parent[a]) {
      if (!is_block(a)) continue;
      if (std::find(credited.begin(), credited.end(), t.name[a]) != credited.end()) continue;
      credited.push_back(t.name[a]);
      AnnotationRow& r = rows[t.name_of(a)];
      r.gpu_ns += t.dur_ns[e];
      if (t.kind[e] == EventKind::Kernel) ++r.kernels;
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
