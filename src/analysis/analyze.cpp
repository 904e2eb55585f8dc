#include <algorithm>

#include "analysis/cpu/first_calls.hpp"
#include "analysis/graph/what_if.hpp"
#include "analysis/passes.hpp"
#include "common/task_group.hpp"
#include "common/usable_cores.hpp"

namespace whyslow {
namespace {

// Threads for the passes at most: past six, the longest chain of passes that depend on one
// another (steps → window → CPU time → blocks, ~0.12 s on a 540 MB trace) is the wall time.
constexpr unsigned kMaxAnalysisThreads = 6;

}  // namespace

Facts analyze(const Trace& trace, const AnalyzeOptions& options) {
  Facts f;
  f.recording = recording(trace);
  // The trace is immutable and each pass writes only its own part of `f`, so the passes run as
  // jobs on the cores there are (at most as many at once as threads: on two cores two passes'
  // temporaries at a time). Queued longest first, so two threads end about together: on a 540 MB
  // trace the chain of passes that depend on one another takes ~0.12 s, the rest ~0.16 s.
  const std::vector<Interval> busy = gpu_busy_intervals(trace);
  for (const Interval& iv : busy) f.gpu_busy_ns += iv.second - iv.first;
  const std::vector<Interval> profiler_books = profiler_buffer_intervals(trace);
  // usable_cores(): this thread's share where a job's ranks are analyzed side by side (load_each).
  TaskGroup jobs(std::min(usable_cores(), kMaxAnalysisThreads));
  jobs.run([&] {
    f.steps = measure_steps(trace);
    // These read only the steps' bounds, which the CPU-time pass below leaves as they are.
    jobs.run([&] { f.cold_start = cold_start(trace, f.steps, busy, f.recording.what); });
    jobs.run([&] { f.compile = compile_regions(trace, f.steps); });
    if (!trace.memory.empty()) jobs.run([&] { f.memory = memory_usage(trace, f.steps); });
    jobs.run([&] { f.comm = communication(trace, f.steps); });
    f.window_thread = main_thread(trace);
    // The window's sync wait is the waiting of the thread the report is about: the steps' thread,
    // or the main thread of a stepless trace (summing every thread's waits can exceed the window).
    const TrackId thread = f.steps.empty() ? f.window_thread : trace.track[f.steps.front().event];
    f.window = measure_window(trace, thread);
    jobs.run([&] { f.loops = find_loops(trace, f.steps, f.window, f.window_thread); });
    f.cpu_category = attribute_cpu_time(trace, busy, profiler_books, f.steps, f.window, f.window_thread);
    f.blocks = code_blocks(trace, f.steps, f.window, thread, f.cpu_category);
  });
  jobs.run([&] { f.ops = op_table(trace); });
  jobs.run([&] {
    f.launches = launch_queue(trace, busy);
    f.syncs = sync_waits(trace, busy);
    f.copies = copies(trace);
    f.profiler = profiler_overhead(trace);
  });
  jobs.run([&] {
    f.kernels = kernel_table(trace);
    f.roofline = roofline(trace, f.kernels, options.measured);
    f.eager_attention = eager_attention(trace, f.roofline);
  });
  jobs.run([&] { f.annotations = annotation_table(trace); });
  jobs.wait();
  // Before anything reads steady_steps(): a step paying for new shapes is not a steady one.
  f.first_calls = first_calls(trace, f);
  // A stepless trace's bound verdicts leave its start-up stretch out (steady_steps()).
  if (f.steps.empty() && f.cold_start.startup_end_ns > f.window.start_ns &&
      f.cold_start.startup_end_ns < f.window.end_ns) {
    f.steady_window = measure_window(trace, f.window_thread, f.cold_start.startup_end_ns);
    break_down_window(trace, busy, profiler_books, f.window_thread, f.steady_window);
  }
  // A stepless trace's loop stands in for its steps: its iterations get a CPU breakdown as steps do.
  for (LoopFacts& l : f.loops) {
    if (l.step != kLoopOverWindow) continue;
    std::vector<StepFacts*> iterations;
    for (StepFacts& i : l.iterations) iterations.push_back(&i);
    break_down_windows(trace, busy, profiler_books, l.thread, iterations);
  }
  std::vector<StepFacts*> windows = {&f.window, &f.steady_window};
  for (StepFacts& s : f.steps) windows.push_back(&s);
  for (LoopFacts& l : f.loops)
    for (StepFacts& i : l.iterations) windows.push_back(&i);
  classify_gpu_idle(trace, profiler_books, windows);
  // Last: the graph reads the steps, the CPU categories and the cold step.
  f.graph = analyze_graph(trace, f);
  return f;
}

}  // namespace whyslow
