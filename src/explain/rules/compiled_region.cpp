// compiled_region: torch.compile is in the trace. Says what each compiled call costs on the CPU
// around the compiled graph (Dynamo cache lookup and guards, the AOT wrapper), whether the graph
// broke into several regions, how much work became Triton kernels, and whether compilation
// itself happened inside the profiled window.
#include <fmt/core.h>

#include "analysis/core/event_names.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Compilation confined to the first profiled step (or outside every step) is the one-off warm-up;
// compilation in later steps is the recompilation finding's, and the words point there.
bool compiles_after_first_step(const Facts& f) {
  for (const Compilation& k : f.compile.compilations)
    if (k.step > 0) return true;
  return false;
}

std::string compile_words(const Facts& f) {
  const CompileFacts& c = f.compile;
  if (c.compile_ns <= 0) return "";
  std::vector<std::string> later;
  for (const Compilation& k : c.compilations)
    if (k.step > 0 && (later.empty() || later.back() != f.steps[k.step].name)) later.push_back(f.steps[k.step].name);
  if (later.empty())
    return fmt::format(" Compilation ({} Dynamo/Inductor events, {}) ran inside the profiled window{}: a one-off cost, "
                       "not the compiled code's speed.",
                       c.compile_events, human_duration(c.compile_ns),
                       f.steps.empty() ? "" : ", before the steps or in the first of them");
  return fmt::format(" Compilation ({} Dynamo/Inductor events, {}) ran inside the profiled window, in {} step{} after "
                     "the first ({}{}): not a one-off cost but a recompilation (see the recompilation finding).",
                     c.compile_events, human_duration(c.compile_ns), later.size(), later.size() == 1 ? "" : "s",
                     later.front(), later.size() > 1 ? fmt::format(" … {}", later.back()) : std::string());
}

}  // namespace

void rule_compiled_region(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const CompileFacts& c = f.compile;
  if (c.compiled_regions == 0 && c.graph_calls == 0 && c.triton_kernels == 0) return;
  const uint64_t calls = std::max<uint64_t>(1, c.compiled_regions);
  Finding x = make_finding(FindingId::compiled_region);
  const bool recompiles = compiles_after_first_step(f);  // then the recompilation finding says it
  x.severity = (c.nested_regions > 0 || (c.compile_ns > 0 && !recompiles)) ? Severity::Warning : Severity::Info;
  if (c.compile_ns > 0 && !recompiles)
    x.title = fmt::format("torch.compile compiled for {} inside the profiled window", human_duration(c.compile_ns));
  else if (c.nested_regions > 0)
    x.title = fmt::format("torch.compile: {} graph break{} ({} compiled regions nested in others)", c.nested_regions,
                          c.nested_regions == 1 ? "" : "s", c.nested_regions);
  else if (c.compiled_regions > 0)
    x.title = fmt::format("torch.compile: {} compiled-region calls, {} of CPU around each compiled graph",
                          c.compiled_regions, human_duration(static_cast<int64_t>(c.wrapper_ns / calls)));
  else  // compiled code without its Dynamo entry point in the window (e.g. replayed CUDA graphs)
    x.title = fmt::format("torch.compile-generated code: {} Triton kernel calls ({} of GPU time), {} CompiledFxGraph calls",
                          c.triton_kernels, human_duration(c.triton_kernel_ns), c.graph_calls);
  x.detail = fmt::format(
      "Each call of a compiled function runs a Dynamo cache lookup (guard checks) and an AOT wrapper on the "
      "CPU before the compiled graph launches its kernels. Here: {} compiled-region calls taking {} in total, "
      "{} Dynamo cache lookups ({}), {} CompiledFxGraph calls ({}); so {} per call is wrapper and guard time "
      "outside the graph. {} Triton kernel calls ran {} of GPU time.{}{}",
      c.compiled_regions, human_duration(c.compiled_region_ns), c.cache_lookups, human_duration(c.cache_lookup_ns),
      c.graph_calls, human_duration(c.graph_call_ns), human_duration(static_cast<int64_t>(c.wrapper_ns / calls)),
      c.triton_kernels, human_duration(c.triton_kernel_ns),
      c.nested_regions > 0 ? fmt::format(" {} region(s) run inside another: Dynamo broke the graph there, and each "
                                         "piece pays the per-call cost again.",
                                         c.nested_regions)
                           : std::string(),
      compile_words(f));
  x.evidence = {count("compiled_region_calls", c.compiled_regions), us("compiled_region_us", c.compiled_region_ns),
                count("cache_lookups", c.cache_lookups), us("cache_lookup_us", c.cache_lookup_ns),
                count("graph_calls", c.graph_calls), us("graph_call_us", c.graph_call_ns),
                us("wrapper_per_call_us", static_cast<int64_t>(c.wrapper_ns / calls)),
                count("graph_breaks", c.nested_regions), count("triton_kernels", c.triton_kernels),
                us("triton_kernel_us", c.triton_kernel_ns), us("compile_us", c.compile_ns)};
  x.try_next = {"If the wrapper time per call is large next to the GPU work, the step is overhead-bound: "
                "mode=\"reduce-overhead\" (CUDA graphs) removes most of it.",
                "Find graph breaks with TORCH_LOGS=graph_breaks or torch._dynamo.explain(fn)(*args).",
                "Compare against the eager trace with `whyslow diff` to see whether compile paid."};
  for (EventId e = 0; e < t.size(); ++e)  // the compiled regions themselves
    if (t.kind[e] == EventKind::UserAnnotation && is_compiled_region(t.name_of(e))) add_mark(x.highlights, e);
  x.impact_ns = c.compile_ns + c.wrapper_ns;
  x.impact_what = "compilation and the compiled code's wrapper time";
  out.push_back(std::move(x));
}

}  // namespace whyslow
