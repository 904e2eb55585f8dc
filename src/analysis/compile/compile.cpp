// torch.compile in the trace: compiled regions and what each call costs on the CPU around the
// compiled graph (cache lookup, guards, wrapper), graph breaks, Triton kernels, the compilations
// that happened inside the profiled window (with Dynamo's compile ids and the step each ran in),
// what each compiled call was given, and per step whether CUDA graphs replayed.
#include <algorithm>
#include <charconv>
#include <tuple>

#include "analysis/core/event_names.hpp"
#include "trace/name_memo.hpp"
#include "analysis/core/nesting_walk.hpp"
#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

// The name tests below, all at once per name (name_memo.hpp).
enum : uint16_t {
  kTritonKernel = 1, kCompiledRegion = 2, kCacheLookup = 4, kGraphCall = 8, kCompilation = 16,
  kCompileIdNote = 32, kGraphLaunch = 64, kCudagraphTree = 128, kCaptureBegin = 256, kCaptureEnd = 512,
};
uint16_t compile_name_tests(std::string_view n) {
  return (is_triton_kernel(n) ? kTritonKernel : 0) | (is_compiled_region(n) ? kCompiledRegion : 0) |
         (is_dynamo_cache_lookup(n) ? kCacheLookup : 0) | (is_compiled_graph_call(n) ? kGraphCall : 0) |
         (is_compilation_event(n) ? kCompilation : 0) |
         (n.find("compile_id=") != std::string_view::npos ? kCompileIdNote : 0) |
         (is_graph_launch(n) ? kGraphLaunch : 0) | (is_cudagraph_tree_event(n) ? kCudagraphTree : 0) |
         (is_capture_begin(n) ? kCaptureBegin : 0) | (is_capture_end(n) ? kCaptureEnd : 0);
}

// Each capture's span: on each thread an end closes the latest begin before it that no end has
// closed yet (a begin followed by another begin never ended: the second is the capture that ran), so
// one thread's captures never overlap. Their time is the union of the spans over all threads:
// within the window, whatever the trace pairs (three begins with one far end summed 3 × 2^62 and
// wrapped around).
void pair_captures(const Trace& t, const std::vector<EventId>& begins, const std::vector<EventId>& ends,
                   CompileFacts& f) {
  std::vector<std::pair<EventId, bool>> marks;  // (event, is a begin)
  for (EventId b : begins) marks.emplace_back(b, true);
  for (EventId e : ends) marks.emplace_back(e, false);
  // By thread, then time; at one time a begin before an end, so the pair of a zero-length capture holds.
  std::sort(marks.begin(), marks.end(), [&](const auto& a, const auto& b) {
    return std::tuple(t.track[a.first], t.start_ns[a.first], !a.second) <
           std::tuple(t.track[b.first], t.start_ns[b.first], !b.second);
  });
  std::vector<std::pair<int64_t, int64_t>> spans;
  EventId open = kNoEvent;
  for (size_t i = 0; i < marks.size(); ++i) {
    const auto [e, is_begin] = marks[i];
    if (i > 0 && t.track[marks[i - 1].first] != t.track[e]) open = kNoEvent;
    if (is_begin) {
      open = e;
    } else if (open != kNoEvent) {
      spans.emplace_back(t.start_ns[open], std::max(t.start_ns[open], t.end_ns(e)));
      open = kNoEvent;
    }
  }
  f.captures = spans.size();
  std::sort(spans.begin(), spans.end());
  int64_t covered_to = INT64_MIN;
  for (const auto& [from, to] : spans) {
    f.capture_ns += std::max<int64_t>(0, to - std::max(from, covered_to));
    covered_to = std::max(covered_to, to);
  }
}

// "0/3" at the start of `text` (Dynamo's "frame/recompile"; newer torch may add a third "/attempt"
// part, which is not a recompilation and is ignored).
CompileId parse_compile_id(std::string_view text) {
  CompileId id;
  const char* p = text.data();
  const char* end = p + text.size();
  int32_t frame = 0, recompile = 0;
  auto r = std::from_chars(p, end, frame);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '/') return id;
  auto r2 = std::from_chars(r.ptr + 1, end, recompile);
  if (r2.ec != std::errc() || frame < 0 || recompile < 0) return id;
  return {frame, recompile};
}

// "Torch-Compiled Region: 0/3" → 0/3.
CompileId region_id(std::string_view name) {
  const size_t colon = name.find(": ");
  return colon == std::string_view::npos ? CompileId{} : parse_compile_id(name.substr(colon + 2));
}

// "…_data: compile_id=0/3, …" → 0/3.
CompileId note_id(std::string_view name) {
  constexpr std::string_view key = "compile_id=";
  const size_t at = name.find(key);
  return at == std::string_view::npos ? CompileId{} : parse_compile_id(name.substr(at + key.size()));
}

struct Stretch {
  EventId event;
  int64_t start, end;
};

// Overlapping compile events are one compilation (Dynamo's outer compile_inner holds Inductor's
// passes); the union of each group is its time.
std::vector<Compilation> group_compilations(std::vector<Stretch> events) {
  std::sort(events.begin(), events.end(), [](const Stretch& a, const Stretch& b) { return a.start < b.start; });
  std::vector<Compilation> out;
  for (const Stretch& s : events) {
    if (!out.empty() && s.start <= out.back().end_ns) {
      Compilation& c = out.back();
      if (s.end > c.end_ns) {
        c.ns += s.end - c.end_ns;
        c.end_ns = s.end;
      }
      continue;
    }
    Compilation c;
    c.event = s.event;
    c.start_ns = s.start;
    c.end_ns = s.end;
    c.ns = s.end - s.start;
    out.push_back(c);
  }
  return out;
}

}  // namespace

CompileFacts compile_regions(const Trace& t, const std::vector<StepFacts>& steps) {
  CompileFacts f;
  f.per_step.resize(steps.size());
  NameMemo<uint16_t, uint16_t (*)(std::string_view)> names(t, &compile_name_tests);
  StepLookup step_of(steps);
  std::vector<Stretch> compiling;
  std::vector<std::pair<int64_t, CompileId>> id_notes;
  int64_t graph_in_region_ns = 0;
  std::vector<EventId> capture_begins, capture_ends;
  // Which events have a compiled region around them: a walk down each track with the chain of
  // open events (analysis/core/nesting_walk.hpp), a bit per event.
  // Most traces hold no compiled region: then nothing is in one, and the walk is skipped.
  std::vector<bool> in_region(t.size());
  bool any_region = false;
  for (EventId e = 0; e < t.size() && !any_region; ++e) any_region = (names.of(e) & kCompiledRegion) != 0;
  if (any_region)
    walk_nesting<bool>(t, [&](EventId e, const bool* parent_in_or_is_region, bool& in_or_is_region) {
      in_region[e] = parent_in_or_is_region && *parent_in_or_is_region;
      in_or_is_region = in_region[e] || (names.of(e) & kCompiledRegion) != 0;
    });
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    if (k == EventKind::Kernel) {
      if (names.of(e) & kTritonKernel) {
        ++f.triton_kernels;
        f.triton_kernel_ns += t.dur_ns[e];
      }
      continue;
    }
    if (is_host_api(k)) {
      if (names.of(e) & kCaptureBegin) capture_begins.push_back(e);
      if (names.of(e) & kCaptureEnd) capture_ends.push_back(e);
      if (!t.is_launch(e)) continue;
      if (names.of(e) & kGraphLaunch) ++f.graph_launches;
      const int s = step_of.of(t.start_ns[e]);
      if (s < 0) continue;
      if (names.of(e) & kGraphLaunch) ++f.per_step[s].graph_launches;
      else ++f.per_step[s].kernel_launches;
      continue;
    }
    if (k != EventKind::CpuOp && k != EventKind::UserAnnotation && k != EventKind::PythonFunction) continue;
    if (names.of(e) & kCudagraphTree) {  // ops, annotations, or (with_stack) the module's frames
      // Count each call once: the outermost, not its "_data" note, "(dynamo_timed)" twin or callees.
      if (t.parent[e] == kNoEvent || !(names.of(t.parent[e]) & kCudagraphTree)) {
        ++f.cudagraph_tree_events;
        if (const int s = step_of.of(t.start_ns[e]); s >= 0) ++f.per_step[s].cudagraph_tree_events;
      }
      continue;
    }
    if (k == EventKind::PythonFunction) continue;
    const auto inside_region = [&](EventId x) { return static_cast<bool>(in_region[x]); };
    const uint16_t name = names.of(e);
    if (name & kCompileIdNote) id_notes.emplace_back(t.start_ns[e], note_id(t.name_of(e)));
    if (name & kCompiledRegion) {
      ++f.compiled_regions;
      f.compiled_region_ns += t.dur_ns[e];
      if (inside_region(e)) ++f.nested_regions;
      CompiledCall call;
      call.event = e;
      call.id = region_id(t.name_of(e));
      call.step = step_of.of(t.start_ns[e]);
      if (call.step >= 0) ++f.per_step[call.step].region_calls;
      f.calls.push_back(call);
    } else if (name & kCacheLookup) {
      ++f.cache_lookups;
      f.cache_lookup_ns += t.dur_ns[e];
    } else if (name & kGraphCall) {
      ++f.graph_calls;
      f.graph_call_ns += t.dur_ns[e];
      if (inside_region(e)) graph_in_region_ns += t.dur_ns[e];
    } else if (name & kCompilation) {
      ++f.compile_events;
      compiling.push_back({e, t.start_ns[e], t.end_ns(e)});
    }
  }
  f.wrapper_ns = f.compiled_region_ns > graph_in_region_ns ? f.compiled_region_ns - graph_in_region_ns : 0;
  pair_captures(t, capture_begins, capture_ends, f);

  f.compilations = group_compilations(std::move(compiling));
  std::sort(id_notes.begin(), id_notes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (Compilation& c : f.compilations) {
    f.compile_ns += c.ns;
    // The first compile id noted inside the compilation names it.
    auto it = std::lower_bound(id_notes.begin(), id_notes.end(), c.start_ns,
                               [](const auto& n, int64_t ts) { return n.first < ts; });
    for (; it != id_notes.end() && it->first <= c.end_ns; ++it)
      if (it->second.known()) {
        c.id = it->second;
        break;
      }
    c.step = step_containing(steps, c.start_ns);
  }
  // A stretch without a compile id right after a compilation in the same step is the end of that
  // compilation (Inductor's autotuning at the new graph's first call:
  // "CachingAutotuner.benchmark_all_configs"), not another one.
  std::vector<Compilation> merged;
  for (Compilation& c : f.compilations) {
    if (!merged.empty() && !c.id.known() && merged.back().id.known() && merged.back().step == c.step) {
      merged.back().end_ns = std::max(merged.back().end_ns, c.end_ns);
      merged.back().ns += c.ns;
      continue;
    }
    merged.push_back(c);
  }
  f.compilations = std::move(merged);
  for (const Compilation& c : f.compilations)
    if (c.step >= 0) {
      ++f.per_step[c.step].compilations;
      f.per_step[c.step].compile_ns += c.ns;
    }

  // What each compiled call was given: the first op with recorded shapes inside it.
  std::sort(f.calls.begin(), f.calls.end(),
            [&](const CompiledCall& a, const CompiledCall& b) { return t.start_ns[a.event] < t.start_ns[b.event]; });
  if (!f.calls.empty()) {
    // The calls by event, and a bit per event that says which to look up.
    std::vector<std::pair<EventId, uint32_t>> call_index;
    std::vector<bool> is_call(t.size());
    for (size_t i = 0; i < f.calls.size(); ++i) {
      call_index.emplace_back(f.calls[i].event, static_cast<uint32_t>(i));
      is_call[f.calls[i].event] = true;
    }
    std::sort(call_index.begin(), call_index.end());
    // The op that gives a call its input: the first to start inside it (of two that start
    // together, the first in the file).
    std::vector<int64_t> first_input_ns(f.calls.size(), INT64_MAX);
    std::vector<EventId> first_input(f.calls.size(), kNoEvent);
    constexpr uint32_t kNoCall = UINT32_MAX;
    walk_nesting<uint32_t>(t, [&](EventId e, const uint32_t* call_at_parent, uint32_t& call_here) {
      const uint32_t around = call_at_parent ? *call_at_parent : kNoCall;  // the nearest call around e
      call_here = is_call[e] ? std::lower_bound(call_index.begin(), call_index.end(), std::pair{e, uint32_t{0}})->second
                             : around;
      if (around == kNoCall || t.kind[e] != EventKind::CpuOp || t.detail[e] == UINT32_MAX) return;
      const NameId dims = t.op_shapes[t.detail[e]].input_dims;
      if (dims == kNoName) return;
      const int64_t start = t.start_ns[e];
      if (start < first_input_ns[around] || (start == first_input_ns[around] && e < first_input[around])) {
        f.calls[around].input_dims = dims;
        first_input_ns[around] = start;
        first_input[around] = e;
      }
    });
  }
  return f;
}

}  // namespace whyslow
