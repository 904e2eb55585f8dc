// What a WHYSLOW_SCOPE costs: with no profiler, with a profiler in a wait step (running, not
// recording), and while recording. Each figure is the best of several runs of many
// open+close pairs, in ns per scope.
//
//   build/release/bench/profiler_scope_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "profiler/clock.hpp"
#include "whyslow/profiler.hpp"

namespace {

constexpr int kScopes = 2'000'000;
constexpr int kRuns = 7;

// Keeps the compiler from merging or dropping loop iterations.
inline void barrier() { asm volatile("" ::: "memory"); }

template <typename Body>
double best_ns_per_scope(Body&& body, const std::function<void()>& between_runs = [] {}) {
  double best = 1e30;
  for (int run = 0; run < kRuns; ++run) {
    between_runs();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kScopes; ++i) {
      body();
      barrier();
    }
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / kScopes);
  }
  return best;
}

void literal_scope() { WHYSLOW_SCOPE("bench"); }
void copied_scope() { const whyslow::Scope s{std::string_view("bench_copied")}; }
void empty_body() {}

void read_clock() {
  const volatile uint64_t t = whyslow::profiler_detail::Clock::ticks();
  (void)t;
}

}  // namespace

int main() {
  whyslow::profiler_detail::Clock::get();  // choose and calibrate the clock, as a Profiler does
  const double loop = best_ns_per_scope(empty_body);
  const double clock_read = best_ns_per_scope(read_clock);
  const double idle = best_ns_per_scope(literal_scope);

  double waiting = 0, recording = 0, recording_copied = 0;
  {
    // A schedule that never leaves its wait: the profiler runs, scopes do not record.
    whyslow::Profiler profiler({.schedule = whyslow::schedule({.wait = 1'000'000, .warmup = 1, .active = 1}),
                                .gpu = false});
    profiler.start();
    waiting = best_ns_per_scope(literal_scope);
    profiler.stop();
  }
  {
    whyslow::Profiler profiler({.gpu = false});
    // A fresh window per run, so each run appends to an emptied buffer (as one window would).
    auto restart = [&] {
      if (profiler.running()) profiler.stop();
      profiler.start();
    };
    recording = best_ns_per_scope(literal_scope, restart);
    recording_copied = best_ns_per_scope(copied_scope, restart);
    profiler.stop();
  }
  std::printf("whyslow scope cost (ns per open+close, best of %d x %d; loop overhead %.2f ns subtracted)\n",
              kRuns, kScopes, loop);
  std::printf("  one clock read (%s): %.2f ns; a recorded scope reads it twice\n",
              whyslow::profiler_detail::Clock::get().uses_tsc() ? "rdtsc" : "steady_clock", clock_read - loop);
  std::printf("  no profiler:                  %6.2f ns\n", idle - loop);
  std::printf("  profiler in a wait step:      %6.2f ns\n", waiting - loop);
  std::printf("  recording (literal name):     %6.2f ns\n", recording - loop);
  std::printf("  recording (copied name):      %6.2f ns\n", recording_copied - loop);
  return 0;
}
