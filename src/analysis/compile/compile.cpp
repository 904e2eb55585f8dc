// torch.compile in the trace: compiled regions and what each call costs on the CPU around the
// compiled graph (cache lookup, guards, wrapper), graph breaks, Triton kernels, and compilation
// that happened inside the profiled window.
#include "analysis/core/event_names.hpp"
#include "analysis/core/name_memo.hpp"
#include "analysis/passes.hpp"

namespace whyslow {
namespace {

// The name tests below, all at once per name (name_memo.hpp).
enum : uint8_t { kTritonKernel = 1, kCompiledRegion = 2, kCacheLookup = 4, kGraphCall = 8, kCompilation = 16 };
uint8_t compile_name_tests(std::string_view n) {
  return (is_triton_kernel(n) ? kTritonKernel : 0) | (is_compiled_region(n) ? kCompiledRegion : 0) |
         (is_dynamo_cache_lookup(n) ? kCacheLookup : 0) | (is_compiled_graph_call(n) ? kGraphCall : 0) |
         (is_compilation_event(n) ? kCompilation : 0);
}

}  // namespace

CompileFacts compile_regions(const Trace& t) {
  CompileFacts f;
  NameMemo<uint8_t, uint8_t (*)(std::string_view)> names(t, &compile_name_tests);
  std::vector<Interval> compiling;
  int64_t graph_in_region_ns = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    if (k == EventKind::Kernel) {
      if (names.of(e) & kTritonKernel) {
        ++f.triton_kernels;
        f.triton_kernel_ns += t.dur_ns[e];
      }
      continue;
    }
    if (k != EventKind::CpuOp && k != EventKind::UserAnnotation) continue;
    auto inside_region = [&](EventId x) {
      for (EventId a = t.parent[x]; a != kNoEvent; a = t.parent[a])
        if (names.of(a) & kCompiledRegion) return true;
      return false;
    };
    const uint8_t name = names.of(e);
    if (name & kCompiledRegion) {
      ++f.compiled_regions;
      f.compiled_region_ns += t.dur_ns[e];
      if (inside_region(e)) ++f.nested_regions;
    } else if (name & kCacheLookup) {
      ++f.cache_lookups;
      f.cache_lookup_ns += t.dur_ns[e];
    } else if (name & kGraphCall) {
      ++f.graph_calls;
      f.graph_call_ns += t.dur_ns[e];
      if (inside_region(e)) graph_in_region_ns += t.dur_ns[e];
    } else if (name & kCompilation) {
      ++f.compile_events;
      compiling.emplace_back(t.start_ns[e], t.end_ns(e));
    }
  }
  f.compile_ns = union_length(compiling);
  f.wrapper_ns = f.compiled_region_ns > graph_in_region_ns ? f.compiled_region_ns - graph_in_region_ns : 0;
  return f;
}

}  // namespace whyslow
