// whyslow profiler: torch.profiler's experience for C++ and CUDA programs.
//
//   whyslow::Profiler prof({.schedule = whyslow::schedule({.wait = 1, .warmup = 1, .active = 3}),
//                           .on_trace_ready = whyslow::trace_handler("traces")});
//   prof.start();
//   for (int i = 0; i < 6; ++i) {
//     { WHYSLOW_SCOPE("matmul"); matmul(); }
//     prof.step();
//   }
//   prof.stop();
//
// Scopes are record_function blocks: a relaxed load and a branch when nothing records, two
// timestamp reads and one write into a per-thread buffer (no lock) when a profiler records.
// GPU work (kernels, copies, memsets, runtime/driver calls, synchronization, graph launches) comes
// from CUPTI's Activity API when the library was built with the CUDA toolkit and a GPU is there;
// every GPU activity carries the "External id" of the innermost scope that launched it. The
// output is Kineto's Chrome-trace JSON: Perfetto, HTA and `whyslow explain` open it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace whyslow {

// Misuse that the caller must handle: a second profiler started while one runs, a trace that
// cannot be written (the message names the path and the reason).
class ProfilerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the profiler does during a step, as torch.profiler.ProfilerAction.
enum class ProfilerAction : uint8_t { None, Warmup, Record, RecordAndSave };
std::string_view to_string(ProfilerAction action);

// torch.profiler.schedule(): skip `skip_first` steps, then cycle through `wait` idle steps,
// `warmup` steps (GPU collection on, results discarded) and `active` recorded steps; the last
// active step of each cycle hands the trace to on_trace_ready. `repeat` cycles (0: forever).
// `skip_first_wait` skips the first cycle's wait.
struct Schedule {
  int64_t wait = 0;
  int64_t warmup = 0;
  int64_t active = 1;
  int64_t repeat = 0;
  int64_t skip_first = 0;
  bool skip_first_wait = false;
};

using ScheduleFunction = std::function<ProfilerAction(int64_t step)>;

// The schedule as a function of the step number, with torch's arithmetic. Throws
// std::invalid_argument for negative numbers or active < 1.
ScheduleFunction schedule(const Schedule& schedule);

class Profiler;
using TraceReadyCallback = std::function<void(Profiler& profiler)>;
using WarningHandler = std::function<void(std::string_view message)>;

struct ProfilerOptions {
  // Empty: record everything between start() and stop(), without ProfilerStep#N annotations
  // (torch's default). Otherwise steps are annotated and recorded as the schedule says.
  ScheduleFunction schedule = {};
  // Called each time a trace is complete (the end of each active cycle, and at stop());
  // call profiler.export_chrome_trace(path) in it, or use trace_handler().
  TraceReadyCallback on_trace_ready = {};
  // Collect GPU activity through CUPTI when the library has it and a GPU is present.
  bool gpu = true;
  // Also open an NVTX range per recorded scope, so Nsight Systems shows the same names.
  bool nvtx = false;
  // Where warnings go (misuse, GPU activity off, dropped records). Default: stderr.
  WarningHandler on_warning = {};
};

class Profiler {
 public:
  explicit Profiler(ProfilerOptions options = {});
  // Stops a running profiler (handing the last trace to on_trace_ready).
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Throws ProfilerError if this or another profiler is already running: one per process.
  void start();
  // Ends step N and begins step N+1. On a profiler that is not running: a warning, nothing else.
  void step();
  void stop();

  int64_t step_num() const;
  ProfilerAction current_action() const;
  bool running() const;
  // Whether the last recording window collected GPU activity (false: CPU scopes and steps only).
  bool gpu_activity() const;

  // Writes the last complete trace as Kineto JSON; gzip when `path` ends in ".gz". The file
  // appears whole or not at all (written beside it, then renamed); a FIFO or device at `path` is
  // written in place, never replaced. Throws ProfilerError when there is no trace yet or the path
  // cannot be written (a directory, a symbolic link to a file, a failed write: the message says).
  void export_chrome_trace(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// torch.profiler.tensorboard_trace_handler(): writes each trace to
// `dir/<worker>.<ns>.pt.trace.json[.gz]`; worker defaults to "<hostname>_<pid>".
TraceReadyCallback trace_handler(std::string dir, std::string worker_name = {}, bool use_gzip = false);

namespace detail {
// 0 while nothing records; otherwise the id of the recording window. The only thing an idle
// scope reads.
extern std::atomic<uint32_t> recording_window;

struct ScopeState {
  const char* name;
  void* thread;     // the buffer of the thread that opened the scope
  uint64_t start;   // clock ticks
  uint32_t window;  // recording_window when opened; 0: the scope records nothing
  bool nvtx;        // an NVTX range was pushed
};
void open_scope(ScopeState& scope) noexcept;
void open_scope_copying_name(ScopeState& scope, std::string_view name) noexcept;
void close_scope(ScopeState& scope) noexcept;
}  // namespace detail

// record_function for C++: the block between construction and destruction becomes a
// user_annotation on this thread's lane (and a gpu_user_annotation over the GPU work it launched).
// Open and close it on the same thread.
class Scope {
 public:
  // A string literal: kept by address, never copied.
  template <std::size_t N>
  explicit Scope(const char (&name)[N]) noexcept {
    state_.window = detail::recording_window.load(std::memory_order_relaxed);
    if (state_.window != 0) [[unlikely]] {
      state_.name = name;
      detail::open_scope(state_);
    }
  }
  // Any other name: copied, only when a profiler records.
  explicit Scope(std::string_view name) noexcept {
    state_.window = detail::recording_window.load(std::memory_order_relaxed);
    if (state_.window != 0) [[unlikely]] detail::open_scope_copying_name(state_, name);
  }
  ~Scope() {
    if (state_.window != 0) [[unlikely]] detail::close_scope(state_);
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  detail::ScopeState state_;
};

}  // namespace whyslow

#define WHYSLOW_CONCAT_INNER(a, b) a##b
#define WHYSLOW_CONCAT(a, b) WHYSLOW_CONCAT_INNER(a, b)
// A scope named `name` from here to the end of the enclosing block.
#define WHYSLOW_SCOPE(name) const ::whyslow::Scope WHYSLOW_CONCAT(whyslow_scope_, __COUNTER__)(name)
