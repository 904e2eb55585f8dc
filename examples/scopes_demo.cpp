// The profiler without a GPU: six steps of a small matmul + bias add on the CPU, recorded with
// torch's classic schedule (wait 1, warm up 1, record 3), written to the path given.
//
//   examples/scopes_demo trace.json && whyslow explain trace.json
#include <cstdio>
#include <vector>

#include "whyslow/profiler.hpp"

namespace {

constexpr int kN = 96;

void matmul(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) {
  WHYSLOW_SCOPE("matmul");
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      float sum = 0;
      for (int k = 0; k < kN; ++k) sum += a[i * kN + k] * b[k * kN + j];
      c[i * kN + j] = sum;
    }
}

void bias_add(std::vector<float>& c, const std::vector<float>& bias) {
  WHYSLOW_SCOPE("bias_add");
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) c[i * kN + j] += bias[j];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.json[.gz]\n", argv[0]);
    return 1;
  }
  const std::string out = argv[1];
  std::vector<float> a(kN * kN, 1.0f), b(kN * kN, 0.5f), c(kN * kN), bias(kN, 2.0f);

  whyslow::Profiler profiler({
      .schedule = whyslow::schedule({.wait = 1, .warmup = 1, .active = 3}),
      .on_trace_ready = [&](whyslow::Profiler& p) { p.export_chrome_trace(out); },
  });
  profiler.start();
  for (int step = 0; step < 6; ++step) {
    matmul(a, b, c);
    bias_add(c, bias);
    profiler.step();
  }
  profiler.stop();
  std::printf("scopes_demo: wrote %s (ProfilerStep#2 to #4, c[0] = %g)\n", out.c_str(), c[0]);
  return 0;
}
