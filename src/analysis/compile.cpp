// torch.compile in the trace: compiled regions and what each call costs on the CPU around the
// compiled graph (cache lookup, guards, wrapper), graph breaks, Triton kernels, and compilation
// that happened inside the profiled window.
#include "analysis/event_names.hpp"
#include "analysis/passes.hpp"

namespace whyslow {

CompileFacts compile_regions(const Trace& t) {
  CompileFacts f;
  std::vector<Interval> compiling;
  int64_t graph_in_region_ns = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    const std::string_view name = t.name_of(e);
    const EventKind k = t.kind[e];
    if (k == EventKind::Kernel) {
      if (is_triton_kernel(name)) {
        ++f.triton_kernels;
        f.triton_kernel_ns += t.dur_ns[e];
      }
      continue;
    }
    if (k != EventKind::CpuOp && k != EventKind::UserAnnotation) continue;
    auto inside_region = [&](EventId x) {
      for (EventId a = t.parent[x]; a != kNoEvent; a = t.parent[a])
        if (is_compiled_region(t.name_of(a))) return true;
      return false;
    };
    if (is_compiled_region(name)) {
      ++f.compiled_regions;
      f.compiled_region_ns += t.dur_ns[e];
      if (inside_region(e)) ++f.nested_regions;
    } else if (is_dynamo_cache_lookup(name)) {
      ++f.cache_lookups;
      f.cache_lookup_ns += t.dur_ns[e];
    } else if (is_compiled_graph_call(name)) {
      ++f.graph_calls;
      f.graph_call_ns += t.dur_ns[e];
      if (inside_region(e)) graph_in_region_ns += t.dur_ns[e];
    } else if (is_compilation_event(name)) {
      ++f.compile_events;
      compiling.emplace_back(t.start_ns[e], t.end_ns(e));
    }
  }
  f.compile_ns = union_length(compiling);
  f.wrapper_ns = f.compiled_region_ns > graph_in_region_ns ? f.compiled_region_ns - graph_in_region_ns : 0;
  return f;
}

}  // namespace whyslow
