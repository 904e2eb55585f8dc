// cuda_graphs_not_replayed: the compiled code asks for CUDA graphs (mode="reduce-overhead":
// Inductor's CUDA graph trees run "cudagraphify…" at every call, or with with_stack the frames of
// cudagraph_trees.py where Inductor skipped the graphs) but steady steps launch their
// kernels one by one and no cudaGraphLaunch replays anything. The user paid for CUDA graphs (the
// tree's bookkeeping, its static-input copies, warm-up runs) and got none of their saving.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/compiled_inputs.hpp"

namespace whyslow {

void rule_cuda_graphs_not_replayed(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const CompileFacts& c = f.compile;
  if (c.cudagraph_tree_events == 0 || f.steps.empty() || c.per_step.size() != f.steps.size()) return;
  std::vector<int> affected;
  for (const StepFacts* s : steady_steps(f)) {
    const int i = static_cast<int>(s - f.steps.data());
    const StepCompile& sc = c.per_step[i];
    if (sc.cudagraph_tree_events > 0 && sc.graph_launches == 0 && sc.kernel_launches > 0) affected.push_back(i);
  }
  if (affected.empty()) return;
  std::vector<int64_t> step_ns, region_ns, launches, busy;
  for (int i : affected) {
    step_ns.push_back(f.steps[i].duration_ns);
    launches.push_back(c.per_step[i].kernel_launches);
    busy.push_back(f.steps[i].gpu_busy_ns);
    int64_t r = 0;
    for (const CompiledCall& call : c.calls)
      if (call.step == i) r += t.dur_ns[call.event];
    region_ns.push_back(r);
  }
  const int64_t step = median(step_ns), region = median(region_ns), per_step_launches = median(launches),
                gpu = median(busy);
  const size_t steady = steady_steps(f).size();
  const ChangingInputs inputs = changing_inputs(
      t, c, [&](int s) { return std::find(affected.begin(), affected.end(), s) != affected.end(); });

  Finding x = make_finding(FindingId::cuda_graphs_not_replayed);
  x.title = fmt::format("CUDA graphs asked for but never replayed: {} of {} steady steps launch {} GPU operations "
                        "one by one, with no cudaGraphLaunch{}",
                        affected.size(), steady, per_step_launches,
                        inputs.changes() ? ", on a new input shape each step" : "");
  x.detail = fmt::format(
      "The compiled code runs Inductor's CUDA graph trees (\"cudagraphify…\" events, or with with_stack its "
      "cudagraph_trees.py frames, in every call: "
      "mode=\"reduce-overhead\" or options={{\"triton.cudagraphs\": True}}), which should replay each step's kernels "
      "with one cudaGraphLaunch. In {} of the {} steady steps nothing replays: the step launches {} kernels, "
      "copies and memsets one by one, its compiled region takes {} of CPU time for {} of GPU work, and the "
      "step {}. A CUDA graph tree records a graph only after a warm-up run of the same shapes and replays it "
      "only when those shapes come again; until then every call runs eagerly, and pays the tree's bookkeeping "
      "besides.{}",
      affected.size(), steady, per_step_launches, human_duration(region), human_duration(gpu), human_duration(step),
      inputs.changes() ? fmt::format(" Here the compiled calls were given {}: no shape comes back, so no graph "
                                     "is ever replayed.",
                                     describe_changing_inputs(inputs))
                       : std::string(" The usual reasons: input shapes that change between calls (each new shape "
                                     "is warmed up and recorded before it can replay), CPU tensors or CPU ops "
                                     "in the graph, inputs the graph mutates, or a graph break around the part "
                                     "that would be captured."));
  x.evidence = {count("steps_without_replay", affected.size()), count("steady_steps", steady),
                count("launches_per_step", static_cast<uint64_t>(per_step_launches)),
                us("compiled_region_per_step_us", region), us("gpu_busy_us", gpu), us("step_us", step)};
  x.try_next = {"TORCH_LOGS=perf_hints (or torch._logging.set_logs(perf_hints=True)) prints why each graph was "
                "skipped: dynamic shapes, CPU tensors, mutated inputs, incompatible ops."};
  if (inputs.changes())
    x.try_next.push_back("Pad the inputs to a few fixed sizes (buckets) so each size is recorded once and then replayed; "
                         "or mark the changing dimension static and accept one graph per bucket.");
  x.try_next.push_back("If the shapes must change every call, drop mode=\"reduce-overhead\": the default mode skips the "
                       "CUDA graph trees' bookkeeping that buys nothing here.");
  for (const CompiledCall& call : c.calls)
    if (std::find(affected.begin(), affected.end(), call.step) != affected.end()) add_mark(x.highlights, call.event);
  x.impact_ns = std::max<int64_t>(0, region - gpu);
  x.impact_what = "the region's CPU time beyond its GPU work, which a graph replay would not spend";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
