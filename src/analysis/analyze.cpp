#include <future>

#include "analysis/passes.hpp"

namespace whyslow {

Facts analyze(const Trace& trace, const AnalyzeOptions& options) {
  Facts f;
  // The passes that need neither the steps nor each other's results but the GPU's busy time (the
  // tables, the kernel models built on the kernel table, launches, syncs, copies) run on a second
  // core while this thread runs the passes that depend on the steps and on one another (the trace
  // is immutable; each pass writes only its own result). On a 540 MB trace the halves take
  // ~0.13 and ~0.18 s.
  std::vector<Interval> busy = gpu_busy_intervals(trace);
  for (const Interval& iv : busy) f.gpu_busy_ns += iv.second - iv.first;
  struct Tables {
    std::vector<OpRow> ops;
    std::vector<KernelRow> kernels;
    std::vector<AnnotationRow> annotations;
    CompileFacts compile;
    ProfilerOverheadFacts profiler;
    RooflineFacts roofline;
    std::vector<EagerAttention> eager_attention;
    LaunchFacts launches;
    SyncFacts syncs;
    CopyFacts copies;
  };
  std::future<Tables> tables = std::async(std::launch::async, [&trace, &options, &busy] {
    Tables t{op_table(trace), kernel_table(trace), annotation_table(trace), compile_regions(trace),
             profiler_overhead(trace), {}, {}, launch_queue(trace), sync_waits(trace, busy), copies(trace)};
    t.roofline = roofline(trace, t.kernels, options.measured);
    t.eager_attention = eager_attention(trace, t.roofline);
    return t;
  });
  f.steps = measure_steps(trace);
  f.window_thread = main_thread(trace);
  // The window's sync wait is the waiting of the thread the report is about: the steps' thread, or
  // the main thread of a stepless trace (summing every thread's waits can exceed the window).
  f.window = measure_window(trace, f.steps.empty() ? f.window_thread : trace.track[f.steps.front().event]);
  f.cpu_category = attribute_cpu_time(trace, busy, f.steps, f.window, f.window_thread);
  f.cold_start = cold_start(trace, f.steps, busy);
  // A stepless trace's bound verdicts leave its start-up stretch out (steady_steps()).
  if (f.steps.empty() && f.cold_start.startup_end_ns > f.window.start_ns &&
      f.cold_start.startup_end_ns < f.window.end_ns) {
    f.steady_window = measure_window(trace, f.window_thread, f.cold_start.startup_end_ns);
    break_down_window(trace, busy, f.window_thread, f.steady_window);
  }
  f.comm = communication(trace, f.steps);
  f.blocks = code_blocks(trace, f.steps, f.window, f.steps.empty() ? f.window_thread : trace.track[f.steps.front().event],
                         f.cpu_category);
  f.loops = find_loops(trace, f.steps);
  Tables t = tables.get();
  f.ops = std::move(t.ops);
  f.kernels = std::move(t.kernels);
  f.annotations = std::move(t.annotations);
  f.compile = std::move(t.compile);
  f.profiler = std::move(t.profiler);
  f.roofline = std::move(t.roofline);
  f.eager_attention = std::move(t.eager_attention);
  f.launches = std::move(t.launches);
  f.syncs = std::move(t.syncs);
  f.copies = std::move(t.copies);
  return f;
}

}  // namespace whyslow
