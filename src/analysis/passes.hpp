// One function per analysis pass. Each reads the Trace (and, where noted, earlier facts);
// none reads JSON. analyze() in analyze.cpp runs them in order.
#pragma once

#include <vector>

#include "analysis/facts.hpp"
#include "analysis/core/intervals.hpp"

namespace whyslow {

// Merged [start, end) of every kernel, memcpy and memset on every stream.
std::vector<Interval> gpu_busy_intervals(const Trace& trace);

// What the profiler recorded: CPU only, GPU records missing, nothing (recording/recording.cpp).
RecordingFacts recording(const Trace& trace);
// The matrix op whose shapes give the most FLOPs per second of CPU time, when that is more than any
// CPU computes (recording/beyond_cpu.cpp); an empty `op` otherwise.
BeyondCpuFacts beyond_cpu(const Trace& trace);
// Steps (ProfilerStep#N) with their CPU, sync-wait and GPU-busy times.
std::vector<StepFacts> measure_steps(const Trace& trace);
// Fills the measured fields of `windows` (start/end/event already set; ascending; adjacent ones may
// share an endpoint, which then belongs to the later one): GPU work by where its launch starts, sync
// wait on `owners[i]` (UINT32_MAX: any thread). Steps and loop iterations are measured alike.
void measure_windows(const Trace& trace, std::vector<StepFacts>& windows, const std::vector<TrackId>& owners);
// The thread a stepless trace is about (cpu_time.cpp says how it is chosen); UINT32_MAX for none.
TrackId main_thread(const Trace& trace);
// The whole trace measured as one window (for traces without ProfilerStep annotations), its
// sync wait counted on `thread` (the main thread) as a step's is on its own; with `from_ns`, only
// its part from then on (a stepless trace after its start-up stretch).
StepFacts measure_window(const Trace& trace, TrackId thread, int64_t from_ns = INT64_MIN);

// CPU time by category (cpu_time.cpp): fills each step's and, on `window_thread`, the window's
// cpu_breakdown, data_loading_gpu_idle_ns and allocator_calls; returns each event's category.
// The categories of one thread's events by the same rules (rule 4, with rules 1–3 by nesting),
// written into `per_event`: for a thread attribute_cpu_time leaves Other (it categorizes only the
// threads that hold windows), such as the autograd engine's or a Gloo worker's in the dependency graph.
void categorize_track(const Trace& trace, TrackId track, std::vector<CpuCategory>& per_event);
// `profiler_books`: profiler_buffer_intervals(), time with no event open there is the profiler's.
std::vector<CpuCategory> attribute_cpu_time(const Trace& trace, const std::vector<Interval>& gpu_busy,
                                            const std::vector<Interval>& profiler_books, std::vector<StepFacts>& steps,
                                            StepFacts& window, TrackId window_thread);
// The CPU breakdown (and DataLoader/allocator counts) of one more window on one thread: the
// steady window of a stepless trace, on the thread attribute_cpu_time chose.
void break_down_window(const Trace& trace, const std::vector<Interval>& gpu_busy,
                       const std::vector<Interval>& profiler_books, TrackId thread, StepFacts& window);
// The same for windows in time order that do not overlap (a stepless trace's loop iterations).
void break_down_windows(const Trace& trace, const std::vector<Interval>& gpu_busy,
                        const std::vector<Interval>& profiler_books, TrackId thread,
                        const std::vector<StepFacts*>& windows);

// Why the GPU idles (gpu/idle_gaps.cpp): fills each window's `idle`. Windows may overlap (steps,
// their loops' iterations, the whole trace).
void classify_gpu_idle(const Trace& trace, const std::vector<Interval>& profiler_books,
                       const std::vector<StepFacts*>& windows);

std::vector<OpRow> op_table(const Trace& trace);                  // torch's key_averages()
std::vector<KernelRow> kernel_table(const Trace& trace);
std::vector<AnnotationRow> annotation_table(const Trace& trace);
LaunchFacts launch_queue(const Trace& trace, const std::vector<Interval>& gpu_busy);  // busy: gpu_busy_intervals()
SyncFacts sync_waits(const Trace& trace, const std::vector<Interval>& gpu_busy);
CopyFacts copies(const Trace& trace);
ColdStartFacts cold_start(const Trace& trace, const std::vector<StepFacts>& steps, const std::vector<Interval>& gpu_busy,
                          Recorded recorded);
// An event cold_start counts as start-up work by its name and kind alone (compilation, module and
// lazy loading, profiler buffers, allocator, stream/event creation, library set-up calls); the slow
// one-off calls it finds by duration are in ColdStartFacts::evidence.
bool is_one_off_by_name(const Trace& trace, EventId e);
CompileFacts compile_regions(const Trace& trace, const std::vector<StepFacts>& steps);
MemoryFacts memory_usage(const Trace& trace, const std::vector<StepFacts>& steps);
ProfilerOverheadFacts profiler_overhead(const Trace& trace);
// The profiler's buffer requests on any track (Kineto puts them on a row of their own), merged: the
// time a thread is stalled in CUPTI, which a run without the profiler does not pay.
std::vector<Interval> profiler_buffer_intervals(const Trace& trace);
// NCCL/RCCL kernels with their collectives' parameters and the link's peak (comm.cpp).
CommFacts communication(const Trace& trace, const std::vector<StepFacts>& steps);
// The user's code as a tree of blocks, credited from the per-event CPU categories (blocks.cpp).
// Measured within the steps (a stepless trace: its whole window); `main_thread` is the thread whose
// open blocks are credited with other threads' launches.
BlockFacts code_blocks(const Trace& trace, const std::vector<StepFacts>& steps, const StepFacts& window,
                       TrackId main_thread, const std::vector<CpuCategory>& cpu_category);
// Loops inside steps (loops.cpp): steps whose top-level work repeats, split into their iterations;
// without steps, the main thread's top-level work of the window (generate() under a bare profile()).
std::vector<LoopFacts> find_loops(const Trace& trace, const std::vector<StepFacts>& steps, const StepFacts& window,
                                  TrackId window_thread);
// Attention written as matmul → softmax → matmul (eager_attention.cpp); needs the roofline's GPUs.
std::vector<EagerAttention> eager_attention(const Trace& trace, const RooflineFacts& roofline);
// roofline() is declared in roofline.hpp: kernels' FLOPs, bytes and bounds (needs the kernel table).

}  // namespace whyslow
