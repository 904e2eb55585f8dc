#include "profiler/clock.hpp"

#include <chrono>
#include <fstream>
#include <string>

#ifdef WHYSLOW_HAS_TSC
#include <cpuid.h>
#endif

namespace whyslow::profiler_detail {
namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#ifdef WHYSLOW_HAS_TSC
// The counter must tick at a constant rate in every power state (invariant TSC), or the kernel
// must still offer it as a clock source: virtual machines often hide the CPUID bit while their
// TSC is stable, and the kernel withdraws a TSC it has caught drifting. (torch.profiler uses
// rdtsc on x86 unconditionally.)
bool tsc_is_trustworthy() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8))) return true;
  std::ifstream sources("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  for (std::string name; sources >> name;)
    if (name == "tsc") return true;
  return false;
}
#endif

}  // namespace

const Clock& Clock::get() {
  static const Clock clock;
  return clock;
}

Clock::Clock() {
#ifdef WHYSLOW_HAS_TSC
  tsc_ = tsc_is_trustworthy();
  if (!tsc_) return;
  // Two (steady, tsc) pairs ~2 ms apart; each pair keeps the reading with the tightest bracket,
  // so the rate is good to a few ppm.
  auto pair = [](int64_t& ns, uint64_t& tsc) {
    int64_t best = INT64_MAX;
    for (int i = 0; i < 5; ++i) {
      const int64_t before = steady_ns();
      const uint64_t t = __rdtsc();
      const int64_t after = steady_ns();
      if (after - before < best) {
        best = after - before;
        ns = before + (after - before) / 2;
        tsc = t;
      }
    }
  };
  int64_t ns_a = 0, ns_b = 0;
  uint64_t tsc_a = 0, tsc_b = 0;
  pair(ns_a, tsc_a);
  while (steady_ns() - ns_a < 2'000'000) {
  }
  pair(ns_b, tsc_b);
  if (tsc_b <= tsc_a || ns_b <= ns_a) {
    tsc_ = false;
    return;
  }
  tick0_ = tsc_a;
  ns0_ = ns_a;
  ns_per_tick_ = static_cast<double>(ns_b - ns_a) / static_cast<double>(tsc_b - tsc_a);
#endif
}

int64_t Clock::to_ns(uint64_t ticks) const noexcept {
  if (!tsc_) return static_cast<int64_t>(ticks);
  // Signed: a core's counter may read a few ticks behind the calibration point.
  const double delta = static_cast<double>(static_cast<int64_t>(ticks - tick0_));
  return ns0_ + static_cast<int64_t>(delta * ns_per_tick_);
}

int64_t Clock::unix_offset_ns() const {
  const int64_t unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  return unix_ns - now_ns();
}

}  // namespace whyslow::profiler_detail
