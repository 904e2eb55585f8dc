// recompilation: torch.compile compiles again inside the profiled steps. A compilation in the
// first profiled step can be the one-off warm-up (compiled_region says so); compilations in later
// steps, or ones Dynamo itself numbers as recompilations (compile id F/R with R > 0), mean the
// compiled code keeps meeting inputs its guards reject — most often a new shape each call — and
// every such step pays seconds of compile time for milliseconds of work.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/compiled_inputs.hpp"

namespace whyslow {
namespace {

// Dynamo's default cache_size_limit (torch._dynamo.config.cache_size_limit, 8 since torch 2.0;
// recompile_limit in 2.6+): the 8th compilation of a frame is its last, after which Dynamo runs
// the frame eagerly. Compile ids reach F/7 there.
constexpr int32_t kDefaultCacheSizeLimit = 8;
// Compilation in at least half the steps is "every step" for the advice: the shapes change
// faster than a cache of compiled variants can follow.
constexpr double kMostStepsShare = 0.5;

}  // namespace

void rule_recompilation(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const CompileFacts& c = f.compile;
  if (c.compilations.empty() || f.steps.empty()) return;
  // Steps that compile, and whether any of it is a recompilation: a later step, or Dynamo's R > 0.
  uint64_t in_steps = 0, steps_with = 0, recompiles = 0;
  int64_t compile_in_steps_ns = 0;
  int32_t max_recompile = -1;
  std::vector<int64_t> per_compiling_step;
  const Compilation* first = nullptr;
  for (const Compilation& x : c.compilations) {
    if (x.step < 0) continue;
    ++in_steps;
    compile_in_steps_ns += x.ns;
    if (x.id.recompile > 0 || x.step > 0) ++recompiles;
    max_recompile = std::max(max_recompile, x.id.recompile);
    if (!first) first = &x;
  }
  for (const StepCompile& s : c.per_step)
    if (s.compilations > 0) {
      ++steps_with;
      per_compiling_step.push_back(s.compile_ns);
    }
  if (recompiles == 0) return;  // one compilation in the first step: compiled_region's one-off
  const int64_t typical_compile = median(per_compiling_step);
  int64_t steps_ns = 0;
  for (const StepFacts& s : f.steps) steps_ns += s.duration_ns;
  const double share = steps_ns > 0 ? static_cast<double>(compile_in_steps_ns) / static_cast<double>(steps_ns) : 0;
  const bool most_steps = static_cast<double>(steps_with) >= kMostStepsShare * static_cast<double>(f.steps.size());
  const ChangingInputs inputs = changing_inputs(t, c, [](int) { return true; });
  const bool limit_reached = max_recompile >= kDefaultCacheSizeLimit - 1;

  Finding x = make_finding(FindingId::recompilation);
  if (most_steps && steps_with >= 2) x.severity = Severity::Critical;
  x.title = fmt::format("torch.compile recompiles inside the profiled steps: {} compilation{} in {} of {} steps, {} "
                        "per compiling step, {} of the steps' time{}",
                        in_steps, in_steps == 1 ? "" : "s", steps_with, f.steps.size(), human_duration(typical_compile),
                        human_percent(share), inputs.changes() ? ", on a new input shape each time" : "");
  std::string ids;
  for (const Compilation& k : c.compilations)
    if (k.step >= 0 && k.id.known() && ids.size() < 80)
      ids += fmt::format("{}{}/{} in {}", ids.empty() ? "" : ", ", k.id.frame, k.id.recompile, f.steps[k.step].name);
  x.detail = fmt::format(
      "Dynamo compiles a function the first time it is called, with guards on what it was given (shapes, "
      "dtypes, devices, Python values); a later call that fails a guard compiles again. Here {} "
      "compilation{} ran inside {} of the {} profiled steps ({} in all, {} per compiling step){}. Compilation is "
      "CPU work of seconds for a step's milliseconds: it is not the compiled code's speed, and as long as it "
      "recurs the compiled code can never pay.{}{}",
      in_steps, in_steps == 1 ? "" : "s", steps_with, f.steps.size(), human_duration(compile_in_steps_ns),
      human_duration(typical_compile), ids.empty() ? "" : fmt::format(" (compile ids {})", ids),
      inputs.changes() ? fmt::format(" The compiled calls were given {}: each new shape fails the shape guards "
                                     "of every graph compiled so far.",
                                     describe_changing_inputs(inputs))
                       : std::string(),
      limit_reached ? fmt::format(" Compile ids reach {}/{}: Dynamo's cache of {} variants per function "
                                  "(cache_size_limit) is full, after which it runs the function eagerly.",
                                  first ? first->id.frame : 0, max_recompile, kDefaultCacheSizeLimit)
                    : std::string());
  x.evidence = {count("compilations", in_steps), count("steps_with_compilation", steps_with),
                us("compile_per_step_us", typical_compile), us("compile_us", compile_in_steps_ns),
                percent("compile_pct", share), count("max_recompile_id", static_cast<uint64_t>(std::max(0, max_recompile)))};
  if (inputs.changes())
    x.try_next.push_back(fmt::format(
        "Tell Dynamo the changing dimension is dynamic: torch.compile(fn, dynamic=True), or "
        "torch._dynamo.mark_dynamic(x, {}) on the input before the call, so one graph serves every size.",
        inputs.varying_dims.empty() ? std::string("dim") : std::to_string(inputs.varying_dims.front())));
  else
    x.try_next.push_back("Tell Dynamo what changes: torch.compile(fn, dynamic=True), or torch._dynamo.mark_dynamic(x, dim) on "
                         "the input whose size changes.");
  x.try_next.push_back("Or pad the inputs to a few fixed sizes (buckets: 64, 128, 256 …): each bucket compiles once, "
                       "in the first steps, and is reused after.");
  x.try_next.push_back("TORCH_LOGS=recompiles prints the guard that failed for each recompilation.");
  if (most_steps)
    x.try_next.push_back("Until it stops recompiling, eager is faster: a step that compiles costs more than compile saves in "
                         "many steps.");
  for (const Compilation& k : c.compilations)
    if (k.step >= 0) add_mark(x.highlights, k.event);
  x.impact_ns = compile_in_steps_ns / static_cast<int64_t>(f.steps.size());
  x.impact_what = "the compile time inside the steps, per step";
  x.impact_basis_ns = steps_ns / static_cast<int64_t>(f.steps.size());
  out.push_back(std::move(x));
}

}  // namespace whyslow
