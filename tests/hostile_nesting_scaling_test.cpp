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
#include "diff/diff.hpp"
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

std::string x_event(const std::string& cat, const std::string& name, int64_t ts, int64_t dur) {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + "}";
}

// N identical ops at one start, nesting in a chain, in a trace without steps: the loop search
// descends the chain, each event filling its parent.
std::string identical_chain(int n) {
  std::vector<std::string> events;
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

// Two chains N deep in a slow first step: on thread 1 record_function blocks, on thread 2 ops
// (aten::add). Each level holds a leaf whose pass walked every ancestor up to the root: on thread 1
// an op (cold start's top-level test), a DataLoader span, a compiled region, a kernel launch (and an
// allocation at every level: memory's record contexts); on thread 2 a softmax (eager attention).
// Two short steps follow, for the cold start to compare with.
std::string deep_chains(int n) {
  static const std::vector<std::string> leaves = {
      "aten::mul", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "Torch-Compiled Region: 0/0",
      "cudaLaunchKernel"};
  const auto event = [](const std::string& cat, const std::string& name, int tid, double ts, double dur,
                        const std::string& args = "") {
    return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":)" + std::to_string(tid) +
           R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
           (args.empty() ? "" : R"(,"args":{)" + args + "}") + "}";
  };
  std::vector<std::string> events;
  const double depth_us = 4.0 * n;
  events.push_back(event("user_annotation", "ProfilerStep#0", 1, 0, depth_us + 200));
  for (int s = 1; s <= 2; ++s) {
    const double at = depth_us + 300 + 100 * s;
    events.push_back(event("user_annotation", "ProfilerStep#" + std::to_string(s), 1, at, 50));
    events.push_back(event("cpu_op", "aten::mul", 1, at + 1, 10));
  }
  for (int i = 0; i < n; ++i) {
    // Level i spans [100 + 2i, 100 + 4n − 2i]; its leaf sits before level i + 1 starts.
    const double at = 100 + 2.0 * i, dur = depth_us - 4.0 * i, leaf = at + 1;
    events.push_back(event("user_annotation", "layer", 1, at, dur));
    events.push_back(event("cpu_op", "aten::add", 2, at, dur));
    events.push_back(event("cpu_op", "aten::softmax", 2, leaf, 0.5));
    const std::string& name = leaves[i % leaves.size()];
    if (name == "cudaLaunchKernel") {
      events.push_back(event("cuda_runtime", name, 1, leaf, 0.5, R"("correlation":)" + std::to_string(i + 1)));
      events.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(leaf + 3) +
                       R"(,"dur":1,"args":{"correlation":)" + std::to_string(i + 1) + R"(,"device":0,"stream":7}})");
    } else {
      events.push_back(event("cpu_op", name, 1, leaf, 0.5));
    }
    events.push_back(R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"s":"t","ts":)" +
                     std::to_string(leaf + 0.2) + R"(,"args":{"Addr":)" + std::to_string(4096 + i) +
                     R"(,"Bytes":1024,"Device Id":0,"Device Type":1}})");
  }
  return trace_json(events);
}

// Four steps, each holding a chain of N/4 nested ops (aten::add, compiled regions between) with a
// kernel launched at every level: what `diff` walks up from in the steps it compares (the ATen
// ops around each launch, whether a compiled region encloses a call).
std::string steps_of_deep_chains(int n) {
  std::vector<std::string> events;
  const int depth = n / 4;
  int correlation = 0;
  for (int s = 0; s < 4; ++s) {
    const double step_at = s * (4.0 * depth + 1000);
    const auto event = [&](const std::string& cat, const std::string& name, double ts, double dur, const std::string& args) {
      return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
             std::to_string(step_at + ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
    };
    events.push_back(event("user_annotation", "ProfilerStep#" + std::to_string(s), 0, 4.0 * depth + 500, ""));
    for (int i = 0; i < depth; ++i) {
      const double at = 100 + 2.0 * i;
      events.push_back(event("cpu_op", i % 7 == 3 ? "Torch-Compiled Region: 0/0" : "aten::add", at, 4.0 * depth - 4.0 * i, ""));
      ++correlation;
      events.push_back(event("cuda_runtime", "cudaLaunchKernel", at + 1, 0.5, R"("correlation":)" + std::to_string(correlation)));
      events.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(step_at + at + 1.2) +
                       R"(,"dur":0.1,"args":{"correlation":)" + std::to_string(correlation) + R"(,"device":0,"stream":7}})");
    }
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

// The fastest of three diffs of the trace `make(n)` writes against itself, in seconds.
double diff_seconds(const std::function<std::string(int)>& make, int n) {
  TempDir dir;
  const Trace t = load_trace(dir.write("t.json", make(n)));
  const Facts f = analyze(t);
  double best = 1e300;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const Diff d = diff_traces(t, f, t, f);
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

TEST(HostileNestingScaling, DiffOfStepsHoldingDeepChains) {
  const double small = diff_seconds(steps_of_deep_chains, kSmall), large = diff_seconds(steps_of_deep_chains, kLarge);
  std::printf("diff of deep chains: n = %d %.4f s, n = %d %.4f s, ratio %.1f\n", kSmall, small, kLarge, large, large / small);
  EXPECT_LT(large / small, kMaxTimeRatio);
}

TEST(HostileNestingScaling, DeepChainsUnderTheLeavesTheAncestorWalkingPassesLookFor) {
  expect_linear("deep chains", deep_chains);
}

}  // namespace
}  // namespace whyslow
