// The Profiler: torch.profiler.profile's state machine (torch/profiler/profiler.py).
//
// Each step() moves from the previous step's action to the next one's and runs what that
// transition needs, exactly as torch's action map does:
//   prepare  = turn GPU collection on (the warm-up: CUPTI's start-up cost lands here);
//   start    = open a recording window (scopes begin to record, warm-up GPU records dropped);
//   stop     = close the window and collect it (scopes, steps, GPU activity);
//   ready    = hand the trace to on_trace_ready.
// ProfilerStep#N annotations are opened after each transition and closed before the next,
// so a step is in a trace exactly when it was recorded.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <unordered_map>

#include "profiler/chrome_trace_writer.hpp"
#include "profiler/clock.hpp"
#include "profiler/gpu_collector.hpp"
#include "profiler/recorded_trace.hpp"
#include "profiler/scopes.hpp"
#include "profiler/thread_buffer.hpp"
#include "profiler/warnings.hpp"
#include "whyslow/profiler.hpp"

namespace whyslow {

using profiler_detail::Clock;
using profiler_detail::RecordedTrace;

namespace {

// The running profiler: one per process, as CUPTI and the scopes' window are process-wide.
std::atomic<const void*> running_profiler{nullptr};
std::atomic<uint32_t> last_window{0};

uint32_t next_window_id() {
  uint32_t id = ++last_window;
  return id != 0 ? id : ++last_window;  // 0 means "not recording"
}

int32_t current_tid() { return static_cast<int32_t>(syscall(SYS_gettid)); }

std::string current_thread_name() {
  char name[16] = {};
  return pthread_getname_np(pthread_self(), name, sizeof name) == 0 ? name : "";
}

std::string process_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

struct Profiler::Impl {
  Profiler& self;
  ProfilerOptions options;
  bool record_steps = false;
  int64_t step_num = 0;
  ProfilerAction action = ProfilerAction::None;
  bool running = false;

  bool gpu_on = false;   // CUPTI collects (warm-up or recording)
  uint32_t window = 0;   // the recording window; 0 while not recording
  int64_t window_start_ns = 0;

  struct Step {
    int64_t number = 0;
    uint64_t start = 0, end = 0;  // clock ticks
    int32_t tid = 0;
    std::string thread_name;
  };
  std::optional<Step> open_step;        // the ProfilerStep#N being recorded
  std::vector<Step> recorded_steps;     // closed steps of the current window
  std::shared_ptr<const RecordedTrace> last_trace;
  std::exception_ptr callback_error;    // from on_trace_ready, rethrown once the transition is done

  Impl(Profiler& owner, ProfilerOptions o) : self(owner), options(std::move(o)) {
    record_steps = static_cast<bool>(options.schedule);
    if (!record_steps) options.schedule = [](int64_t) { return ProfilerAction::Record; };
    action = options.schedule(0);
    Clock::get();  // calibrate now, not inside the first recorded step
  }

  void warn(std::string_view message) const { profiler_detail::emit_warning(options.on_warning, message); }

  // ---- torch's actions ----
  void prepare() {
    if (gpu_on || !options.gpu) return;
    const std::string why_not = profiler_detail::enable_gpu_collection();
    gpu_on = why_not.empty();
    if (!gpu_on)
      profiler_detail::warn_once("gpu-activity-off",
                                 "GPU activity is off: " + why_not + "; recording CPU scopes and steps only");
  }

  void start_window() {
    if (gpu_on) profiler_detail::discard_gpu_records();
    // The controlling thread surely records (its steps at least): register it here rather than
    // inside its first scope.
    profiler_detail::this_thread_buffer();
    recorded_steps.clear();
    if (options.nvtx && !profiler_detail::nvtx_available())
      profiler_detail::warn_once("nvtx-unavailable",
                                 "NVTX ranges need a build of whyslow with the CUDA toolkit; scopes "
                                 "are recorded without them");
    profiler_detail::set_nvtx_ranges(options.nvtx);
    window = next_window_id();
    window_start_ns = Clock::get().now_ns();
    detail::recording_window.store(window, std::memory_order_release);
  }

  void stop_window() {
    detail::recording_window.store(0, std::memory_order_release);
    const int64_t end_ns = Clock::get().now_ns();
    auto trace = std::make_shared<RecordedTrace>();
    trace->start_ns = window_start_ns;
    trace->pid = static_cast<int32_t>(getpid());
    trace->process_name = process_name();
    collect_scopes(*trace);
    collect_steps(*trace);
    // A scope on another core at the window's edge can read a few ns outside it (the cores'
    // counters are not perfectly in step): the window covers what it holds.
    trace->end_ns = end_ns;
    for (const auto& r : trace->ranges) {
      trace->start_ns = std::min(trace->start_ns, r.start_ns);
      trace->end_ns = std::max(trace->end_ns, r.end_ns);
    }
    if (gpu_on) {
      trace->gpu = profiler_detail::finish_gpu_collection(window_start_ns, end_ns);
      trace->gpu_collected = true;
      gpu_on = false;
      // After the window's GPU work has finished: the span covers it.
      trace->end_ns = Clock::get().now_ns();
    }
    trace->unix_offset_ns = Clock::get().unix_offset_ns();
    last_trace = std::move(trace);
    window = 0;
  }

  void trace_ready() {
    if (!options.on_trace_ready) return;
    try {
      options.on_trace_ready(self);
    } catch (...) {
      if (!callback_error) callback_error = std::current_exception();
    }
  }

  // torch's action map, (previous, next) → actions; `next` empty: the profiler stops.
  void transit(ProfilerAction prev, std::optional<ProfilerAction> next) {
    using A = ProfilerAction;
    const bool records_next = next == A::Record || next == A::RecordAndSave;
    switch (prev) {
      case A::None:
        if (next == A::Warmup || records_next) prepare();
        if (records_next) start_window();
        break;
      case A::Warmup:
        if (next == A::None) warn("incorrect schedule: WARMUP followed by NONE");
        // Warm-up that never records still opens and closes a window, as torch does.
        if (next == A::None || !next || records_next) start_window();
        if (next == A::None || !next) stop_window();
        break;
      case A::Record:
        if (next == A::None) warn("incorrect schedule: RECORD followed by NONE");
        if (next == A::Warmup) warn("incorrect schedule: RECORD followed by WARMUP");
        if (next == A::None || next == A::Warmup || !next) stop_window();
        if (!next) trace_ready();  // a RECORD cut short by stop() still saves
        break;
      case A::RecordAndSave:
        stop_window();
        trace_ready();
        if (next == A::Warmup || records_next) prepare();
        if (records_next) start_window();
        break;
    }
  }

  // ---- ProfilerStep#N ----
  void begin_step() {
    if (!record_steps || window == 0) return;
    open_step = Step{step_num, Clock::ticks(), 0, current_tid(), current_thread_name()};
  }
  void end_step() {
    if (!open_step) return;
    open_step->end = Clock::ticks();
    if (window != 0) recorded_steps.push_back(std::move(*open_step));
    open_step.reset();
  }

  // ---- collection ----
  void collect_scopes(RecordedTrace& trace) const {
    const Clock& clock = Clock::get();
    // Literal names repeat by address; copied names are distinct addresses in one window.
    std::unordered_map<const char*, uint32_t> name_ids;
    profiler_detail::for_each_thread_buffer([&](const profiler_detail::ThreadBuffer& buffer) {
      bool any = false;
      buffer.for_each_record(window, [&](const profiler_detail::ScopeRecord& r) {
        auto [it, inserted] = name_ids.try_emplace(r.name, 0);
        if (inserted) it->second = trace.names.intern(r.name);
        trace.ranges.push_back({clock.to_ns(r.start), clock.to_ns(r.end), r.start, r.end, it->second, buffer.tid()});
        any = true;
      });
      if (any) trace.threads.push_back({buffer.tid(), buffer.thread_name()});
    });
  }

  void collect_steps(RecordedTrace& trace) const {
    const Clock& clock = Clock::get();
    for (const Step& s : recorded_steps) {
      const uint32_t name = trace.names.intern("ProfilerStep#" + std::to_string(s.number));
      trace.ranges.push_back({clock.to_ns(s.start), clock.to_ns(s.end), s.start, s.end, name, s.tid});
      bool known = false;
      for (const auto& t : trace.threads) known |= t.tid == s.tid;
      if (!known) trace.threads.push_back({s.tid, s.thread_name});
    }
  }

  void rethrow_callback_error() {
    if (!callback_error) return;
    std::exception_ptr e = callback_error;
    callback_error = nullptr;
    std::rethrow_exception(e);
  }
};

Profiler::Profiler(ProfilerOptions options) : impl_(std::make_unique<Impl>(*this, std::move(options))) {}

Profiler::~Profiler() {
  if (!impl_->running) return;
  try {
    stop();
  } catch (const std::exception& e) {
    impl_->warn(std::string("stopping the profiler at its destruction failed: ") + e.what());
  } catch (...) {
    impl_->warn("stopping the profiler at its destruction failed");
  }
}

void Profiler::start() {
  Impl& p = *impl_;
  if (p.running) throw ProfilerError("whyslow::Profiler::start(): this profiler is already running");
  const void* none = nullptr;
  if (!running_profiler.compare_exchange_strong(none, this))
    throw ProfilerError(
        "whyslow::Profiler::start(): another whyslow::Profiler is already running in this "
        "process; stop() it first (one profiler at a time, as with torch.profiler)");
  p.running = true;
  profiler_detail::set_running_warning_handler(p.options.on_warning);
  p.transit(ProfilerAction::None, p.action);
  p.begin_step();
  p.rethrow_callback_error();
}

void Profiler::step() {
  Impl& p = *impl_;
  if (!p.running) {
    p.warn("step() called on a profiler that is not running (call start() first); ignored");
    return;
  }
  p.end_step();
  const ProfilerAction prev = p.action;
  ++p.step_num;
  p.action = p.options.schedule(p.step_num);
  p.transit(prev, p.action);
  p.begin_step();
  p.rethrow_callback_error();
}

void Profiler::stop() {
  Impl& p = *impl_;
  if (!p.running) {
    p.warn("stop() called on a profiler that is not running; ignored");
    return;
  }
  p.end_step();
  // Whatever the last transition throws, this profiler stops running: another may start.
  auto release = [&] {
    p.running = false;
    profiler_detail::set_running_warning_handler({});
    running_profiler.store(nullptr);
  };
  try {
    p.transit(p.action, std::nullopt);
  } catch (...) {
    release();
    throw;
  }
  release();
  p.rethrow_callback_error();
}

int64_t Profiler::step_num() const { return impl_->step_num; }
ProfilerAction Profiler::current_action() const { return impl_->action; }
bool Profiler::running() const { return impl_->running; }
bool Profiler::gpu_activity() const { return impl_->last_trace && impl_->last_trace->gpu_collected; }

void Profiler::export_chrome_trace(const std::string& path) const {
  if (!impl_->last_trace)
    throw ProfilerError("whyslow::Profiler::export_chrome_trace('" + path +
                        "'): no trace recorded yet (a trace is complete after the last active "
                        "step of a cycle, or after stop())");
  profiler_detail::write_chrome_trace(*impl_->last_trace, path);
}

}  // namespace whyslow
