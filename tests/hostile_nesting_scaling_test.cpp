// Hostile input, third round (issue 45, item 2): nesting that made passes superlinear — identical
// events sharing one start nested in a chain (loops' children()), ProfilerSteps nested inside
// ProfilerSteps, and passes that walked every ancestor of every event (eager attention, memory,
// cold start, backward, compile, DataLoader). Each shape is analyzed at two sizes 10× apart; the
// time ratio must stay far below the 100 a quadratic pass gives. Ratios, not absolute times: the
// machine's speed cancels out.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

// Linear is 10, n·log n about 12; a quadratic pass 100. 30 leaves room for a noisy machine.
constexpr double kMaxTimeRatio = 30;
// Large enough that the quadratic passes' time dwarfs the fixed cost of a run (~15 ms: threads,
// tables): before the fix 200,000 identical events took 10-14 s and a 90,000-deep chain 20-55 s.
constexpr int kSmall = 10'000, kLarge = 100'000;
// Nested steps were quadratic in time and memory (4,000: 105 s, 12 GB): tested 10× smaller, so a
// regression fails by its ratio (3,000: about a minute) rather than by exhausting the machine.
constexpr int kSmallSteps = 300, kLargeSteps = 3'000;

std::string x_event(const std::string& cat, const std::string& name, int64_t ts, int64_t dur, const std::string& args = "") {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + (args.empty() ? "" : R"(,"args":{)" + args + "}") + "}";
}

// N identical ops at one start, nesting in a chain inside one step (and two steps after it, so
// the trace has steps to compare).
std::string identical_chain(int n) {
  std::vector<std::string> events;
  for (int s = 0; s < 3; ++s)
    events.push_back(x_event("user_annotation", "ProfilerStep#" + std::to_string(s), 1'000'000 * s, 900'000));
  for (int i = 0; i < n; ++i) events.push_back(x_event("cpu_op", "aten::matmul", 10, 1000));
  return trace_json(events);
}

// N ProfilerSteps, each inside the one before.
std::string nested_steps(int n) {
  std::vector<std::string> events;
  for (int i = 0; i < n; ++i)
    events.push_back(x_event("user_annotation", "ProfilerStep#" + std::to_string(i), i, 10 * static_cast<int64_t>(n) - 2 * i));
  return trace_json(events);
}

// A chain N deep of distinct events (each 1 µs inside the last) whose names the ancestor-walking
// passes look for: matmul-family ops, autograd's backward frames, record_function blocks,
// DataLoader spans, compiled regions; an allocation at every level and a launch at the bottom.
std::string deep_chain(int n) {
  static const std::vector<std::string> names = {
      "aten::bmm", "autograd::engine::evaluate_function: MmBackward0", "block",
      "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "Torch-Compiled Region: 0/0"};
  std::vector<std::string> events;
  const int64_t span = 2 * static_cast<int64_t>(n) + 100;
  for (int s = 0; s < 3; ++s) events.push_back(x_event("user_annotation", "ProfilerStep#" + std::to_string(s), s * span, span - 1));
  for (int i = 0; i < n; ++i) {
    const std::string& name = names[i % names.size()];
    const std::string cat = name == "block" ? "user_annotation" : "cpu_op";
    events.push_back(x_event(cat, name, 1 + i, span - 3 - 2 * static_cast<int64_t>(i), R"("Fwd thread id":1,"Sequence number":)" + std::to_string(i)));
    events.push_back(R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"s":"t","ts":)" +
                     std::to_string(1 + i) + R"(,"args":{"Addr":)" + std::to_string(4096 + i) +
                     R"(,"Bytes":1024,"Device Id":0,"Device Type":1}})");
  }
  for (int k = 0; k < 50; ++k) {
    events.push_back(x_event("cuda_runtime", "cudaLaunchKernel", n + 1, 1, R"("correlation":)" + std::to_string(k + 1)));
    events.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(n + 5 + k) +
                     R"(,"dur":1,"args":{"correlation":)" + std::to_string(k + 1) + R"(,"device":0,"stream":7}})");
  }
  return trace_json(events);
}

// The fastest of three loads and analyses of the trace `make(n)` writes, in seconds.
double seconds(const std::function<std::string(int)>& make, int n) {
  TempDir dir;
  const std::string path = dir.write("t.json", make(n));
  double best = 1e300;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const Trace t = load_trace(path);
    const Facts f = analyze(t);
    const std::vector<Finding> findings = explain(t, f);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void expect_linear(const char* what, const std::function<std::string(int)>& make, int n_small = kSmall,
                   int n_large = kLarge) {
  const double small = seconds(make, n_small), large = seconds(make, n_large);
  const double ratio = large / small;
  std::printf("%s: n = %d %.4f s, n = %d %.4f s, ratio %.1f\n", what, n_small, small, n_large, large, ratio);
  EXPECT_LT(ratio, kMaxTimeRatio) << what << ": " << small << " s at " << n_small << ", " << large << " s at " << n_large;
}

TEST(HostileNestingScaling, IdenticalEventsNestedInAChain) { expect_linear("identical chain", identical_chain); }

TEST(HostileNestingScaling, ProfilerStepsNestedInsideEachOther) {
  expect_linear("nested steps", nested_steps, kSmallSteps, kLargeSteps);
  // A step inside a step is part of its window: one step.
  TempDir dir;
  const Trace t = load_trace(dir.write("steps.json", nested_steps(100)));
  EXPECT_EQ(analyze(t).steps.size(), 1u);
}

TEST(HostileNestingScaling, DeepChainOfNamesTheAncestorWalkingPassesLookFor) { expect_linear("deep chain", deep_chain); }

}  // namespace
}  // namespace whyslow
