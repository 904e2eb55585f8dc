#include "analysis/passes.hpp"

namespace whyslow {

Facts analyze(const Trace& trace, const AnalyzeOptions& options) {
  Facts f;
  std::vector<Interval> busy = gpu_busy_intervals(trace);
  for (const Interval& iv : busy) f.gpu_busy_ns += iv.second - iv.first;
  f.steps = measure_steps(trace);
  f.window_thread = main_thread(trace);
  // The window's sync wait is the waiting of the thread the report is about: the steps' thread, or
  // the main thread of a stepless trace (summing every thread's waits can exceed the window).
  f.window = measure_window(trace, f.steps.empty() ? f.window_thread : trace.track[f.steps.front().event]);
  f.cpu_category = attribute_cpu_time(trace, busy, f.steps, f.window, f.window_thread);
  f.ops = op_table(trace);
  f.kernels = kernel_table(trace);
  f.annotations = annotation_table(trace);
  f.launches = launch_queue(trace);
  f.syncs = sync_waits(trace, busy);
  f.copies = copies(trace);
  f.cold_start = cold_start(trace, f.steps, busy);
  // A stepless trace's bound verdicts leave its start-up stretch out (steady_steps()).
  if (f.steps.empty() && f.cold_start.startup_end_ns > f.window.start_ns &&
      f.cold_start.startup_end_ns < f.window.end_ns) {
    f.steady_window = measure_window(trace, f.window_thread, f.cold_start.startup_end_ns);
    break_down_window(trace, busy, f.window_thread, f.steady_window);
  }
  f.compile = compile_regions(trace);
  f.profiler = profiler_overhead(trace);
  f.roofline = roofline(trace, f.kernels, options.measured);
  f.comm = communication(trace, f.steps);
  f.blocks = code_blocks(trace, f.steps, f.window, f.steps.empty() ? f.window_thread : trace.track[f.steps.front().event],
                         f.cpu_category);
  f.loops = find_loops(trace, f.steps);
  f.eager_attention = eager_attention(trace, f.roofline);
  return f;
}

}  // namespace whyslow
