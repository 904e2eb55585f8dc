// The scope hot path beyond the inline check in profiler.hpp: only scopes opened while a window
// records get here.
#include <string>

#include "profiler/clock.hpp"
#include "profiler/scopes.hpp"
#include "profiler/thread_buffer.hpp"
#include "profiler/warnings.hpp"
#include "whyslow/profiler.hpp"

#ifdef WHYSLOW_WITH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace whyslow {
namespace detail {
std::atomic<uint32_t> recording_window{0};
}  // namespace detail

namespace profiler_detail {
namespace {

std::atomic<bool> nvtx_ranges{false};

bool push_nvtx_range([[maybe_unused]] const char* name) {
#ifdef WHYSLOW_WITH_NVTX
  if (nvtx_ranges.load(std::memory_order_relaxed)) {
    nvtxRangePushA(name);
    return true;
  }
#endif
  return false;
}

void pop_nvtx_range() {
#ifdef WHYSLOW_WITH_NVTX
  nvtxRangePop();
#endif
}

// The rare paths, kept out of line so the common one stays a few instructions.
[[gnu::cold, gnu::noinline]] void warn_closed_on_another_thread() {
  // The opening thread's buffer is not ours to write, and its copied names may be gone: the
  // message cannot even name the scope safely.
  warn_once("scope-closed-on-another-thread",
            "a scope was closed on a different thread than the one that opened it; it is dropped "
            "from the trace (open and close each Scope on one thread; this warning shows once)");
}

[[gnu::cold, gnu::noinline]] void warn_buffer_full(const ThreadBuffer& buffer) noexcept {
  try {
    warn_once("thread-buffer-full",
              "thread " + std::to_string(buffer.tid()) +
                  " recorded more scopes in one window than its buffer holds (67 M) or ran out of "
                  "memory; later scopes are dropped (this warning shows once)");
  } catch (...) {  // no memory even for the message: the record is dropped all the same
  }
}

// Begins a scope on this thread; false when it cannot record (no buffer, no memory).
bool begin(detail::ScopeState& s) {
  // Acquire pairs with the release that published the window: what the profiler did before it
  // (calibrating the clock, reading this buffer's previous window) happens before this thread
  // writes. A window that closed meanwhile records nothing.
  if (detail::recording_window.load(std::memory_order_acquire) != s.window) return false;
  ThreadBuffer* buffer = this_thread_buffer();
  if (buffer == nullptr) return false;
  buffer->begin_window(s.window);
  s.thread = buffer;
  return true;
}

}  // namespace

bool nvtx_available() {
#ifdef WHYSLOW_WITH_NVTX
  return true;
#else
  return false;
#endif
}

void set_nvtx_ranges(bool on) { nvtx_ranges.store(on, std::memory_order_relaxed); }

}  // namespace profiler_detail

namespace detail {
using profiler_detail::Clock;

void open_scope(ScopeState& s) noexcept {
  if (!profiler_detail::begin(s)) {
    s.window = 0;
    return;
  }
  s.nvtx = profiler_detail::push_nvtx_range(s.name);
  s.start = Clock::ticks();
}

void open_scope_copying_name(ScopeState& s, std::string_view name) noexcept {
  if (!profiler_detail::begin(s)) {
    s.window = 0;
    return;
  }
  s.name = static_cast<profiler_detail::ThreadBuffer*>(s.thread)->copy_name(name);
  if (s.name == nullptr) {
    s.window = 0;
    return;
  }
  s.nvtx = profiler_detail::push_nvtx_range(s.name);
  s.start = Clock::ticks();
}

void close_scope(ScopeState& s) noexcept {
  const uint64_t end = Clock::ticks();
  auto* buffer = profiler_detail::t_thread_buffer;
  if (buffer != s.thread) [[unlikely]] {
    profiler_detail::warn_closed_on_another_thread();
    return;
  }
  if (s.nvtx) profiler_detail::pop_nvtx_range();
  if (recording_window.load(std::memory_order_relaxed) != s.window) return;
  if (!buffer->append({s.start, end, s.name})) [[unlikely]] profiler_detail::warn_buffer_full(*buffer);
}

}  // namespace detail
}  // namespace whyslow
