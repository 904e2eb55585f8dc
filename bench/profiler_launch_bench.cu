// What the profiler adds to a kernel launch: host time per launch of an empty kernel with no
// profiler, with a profiler in a wait step, warming up (CUPTI on, nothing kept) and recording
// (CUPTI on, records kept; once bare, once inside a scope per launch). Launches go in batches
// that are synchronized outside the timed region, so the queue never fills and the figure is
// the CPU cost of issuing a launch.
//
// Launch times on a shared machine drift by a microsecond between runs, more than the effect
// measured, so each round measures every mode back to back and the report gives the median over
// rounds of each mode and of its difference to the bare launch of the same round.
//
//   build/release/bench/profiler_launch_bench
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "whyslow/profiler.hpp"

namespace {

__global__ void empty_kernel() {}

constexpr int kBatch = 256;
constexpr int kBatches = 40;
constexpr int kRounds = 9;

template <bool kScoped>
double us_per_launch() {
  double total = 0;
  for (int b = 0; b < kBatches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) {
      if constexpr (kScoped) {
        WHYSLOW_SCOPE("launch");
        empty_kernel<<<1, 32>>>();
      } else {
        empty_kernel<<<1, 32>>>();
      }
    }
    total += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    cudaDeviceSynchronize();
  }
  return total / (kBatch * kBatches);
}

whyslow::ScheduleFunction always(whyslow::ProfilerAction action) {
  return [action](int64_t) { return action; };
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Mode {
  const char* label;
  std::vector<double> us, added;
};

}  // namespace

int main() {
  empty_kernel<<<1, 32>>>();
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "profiler_launch_bench: no usable GPU\n");
    return 1;
  }
  us_per_launch<false>();  // warm the driver's launch path

  whyslow::Profiler waiting({.schedule = always(whyslow::ProfilerAction::None)});
  whyslow::Profiler warming({.schedule = always(whyslow::ProfilerAction::Warmup)});
  whyslow::Profiler recording;
  Mode bare{"no profiler:"}, wait{"profiler in a wait step:"}, warm{"warm-up (CUPTI on, discarded):"},
      record{"recording:"}, scoped{"recording, a scope per launch:"};
  bool gpu = true;
  for (int round = 0; round < kRounds; ++round) {
    const double base = us_per_launch<false>();
    bare.us.push_back(base);
    auto measure = [&](whyslow::Profiler& p, Mode& mode, auto launches) {
      p.start();
      const double us = launches();
      p.stop();
      mode.us.push_back(us);
      mode.added.push_back(us - base);
    };
    measure(waiting, wait, us_per_launch<false>);
    measure(warming, warm, us_per_launch<false>);
    measure(recording, record, us_per_launch<false>);
    gpu = gpu && recording.gpu_activity();
    measure(recording, scoped, us_per_launch<true>);
  }
  if (!gpu) std::printf("  (GPU activity was off: the figures below measure nothing)\n");
  std::printf("kernel launch cost (us per launch of an empty kernel, host side; median of %d rounds of %d)\n",
              kRounds, kBatch * kBatches);
  std::printf("  %-32s %6.3f us\n", bare.label, median(bare.us));
  for (const Mode* m : {&wait, &warm, &record, &scoped})
    std::printf("  %-32s %6.3f us  (%+.3f us against the same round's bare launches)\n", m->label,
                median(m->us), median(m->added));
  return 0;
}
