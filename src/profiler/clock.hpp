// The profiler's clock. Scopes stamp raw ticks, the cheapest monotonic reading there is: the x86
// time-stamp counter where the kernel itself trusts it (rdtsc costs ~9 ns, clock_gettime ~28 ns on
// the 2-core CI machine), else steady_clock nanoseconds. One fixed linear map turns ticks into
// nanoseconds, and CUPTI reads its timestamps through the same map, so a scope and the CUDA calls
// made inside it are ordered exactly, never by two clocks that drift apart.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define WHYSLOW_HAS_TSC 1
#endif

namespace whyslow::profiler_detail {

class Clock {
 public:
  // Chooses the tick source and measures its rate once per process (a ~2 ms busy wait).
  static const Clock& get();

  // Needs no instance: the hot path reads a flag, not a function-local static's guard. Valid
  // once get() has run (every Profiler calls it before its first window).
  static uint64_t ticks() noexcept {
#ifdef WHYSLOW_HAS_TSC
    if (tsc_) return __rdtsc();
#endif
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  int64_t to_ns(uint64_t ticks) const noexcept;
  int64_t now_ns() const noexcept { return to_ns(ticks()); }
  // Unix time in ns minus now_ns(), read now: the trace's clock is the Unix clock.
  int64_t unix_offset_ns() const;
  bool uses_tsc() const noexcept { return tsc_; }

 private:
  Clock();
  static inline bool tsc_ = false;
  uint64_t tick0_ = 0;
  int64_t ns0_ = 0;
  double ns_per_tick_ = 1.0;
};

}  // namespace whyslow::profiler_detail
