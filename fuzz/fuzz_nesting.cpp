// libFuzzer target: the nesting passes. Events on a coarse time grid, so that equal starts, chains
// of identical events, zero durations, children overrunning their parents and ProfilerSteps
// inside ProfilerSteps are the common case, with the names that make each pass walk ancestors or
// children (steps, loops, blocks, DataLoader, compile, backward, cold start, eager attention,
// syncs and launches with their kernels), written as "X" or as "B"/"E" pairs, and runs of one event
// repeated (issue 45 item 2's chains). Whether every pass stays linear is timed by
// tests/hostile_nesting_scaling_test.cpp; here the deep chains exercise the memoized walks.
#include <string>
#include <vector>

#include "fuzz_structured.hpp"

namespace {

using whyslow::fuzz::Choices;
using whyslow::fuzz::quoted;

// A chain deeper than any real nesting (a few hundred), short enough that an input still runs in
// well under a second under ASan, so a 60 s smoke run tries many.
constexpr size_t kMaxRepeat = 1000;

struct Name {
  const char* cat;
  const char* name;
};
const std::vector<Name> kNames = {
    {"user_annotation", "ProfilerStep#1"}, {"user_annotation", "ProfilerStep#2"}, {"cpu_op", "aten::mm"},
    {"cpu_op", "aten::add"}, {"user_annotation", "## forward ##"}, {"python_function", "nn.Module: Linear_0"},
    {"cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"},
    {"cpu_op", "Torch-Compiled Region: 0/0"}, {"cpu_op", "TorchDynamo Cache Lookup"},
    {"cpu_op", "entire_frame_compile"}, {"cpu_op", "autograd::engine::evaluate_function: MmBackward0"},
    {"cpu_op", "MmBackward0"}, {"cpu_op", "aten::softmax"}, {"cpu_op", "aten::bmm"}, {"cpu_op", "aten::embedding"},
    {"cuda_runtime", "cudaMalloc"}, {"cuda_runtime", "cudaDeviceSynchronize"}, {"cuda_runtime", "cudaStreamSynchronize"},
    {"cpu_op", "Runtime Triggered Module Loading"}, {"cpu_op", "Optimizer.step#SGD.step"},
    {"cuda_runtime", "cudaGraphLaunch"}, {"cpu_op", "aten::copy_"}};

int64_t grid_time(Choices& c) { return c.below(20) == 0 ? c.hostile_int() % 1000000 : 10 * static_cast<int64_t>(c.below(16)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices c(data, size);
  std::vector<std::string> events;
  int64_t correlation = 0;
  while (!c.done() && events.size() < 4 * kMaxRepeat) {
    const Name& n = c.pick(kNames);
    const std::string tid = std::to_string(1 + c.below(3));
    const int64_t ts = grid_time(c), dur = c.below(8) == 0 ? 0 : grid_time(c);
    const size_t repeat = c.below(16) == 0 ? 1 + c.below(256) * (kMaxRepeat / 256) : 1;
    const bool as_pair = c.below(4) == 0;
    const bool launches = c.below(3) == 0;
    for (size_t r = 0; r < repeat && events.size() < 4 * kMaxRepeat; ++r) {
      const std::string head = R"({"cat":)" + quoted(n.cat) + R"(,"name":)" + quoted(n.name) + R"(,"pid":1,"tid":)" + tid;
      if (as_pair) {
        events.push_back(head + R"(,"ph":"B","ts":)" + std::to_string(ts) + "}");
      } else {
        events.push_back(head + R"(,"ph":"X","ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
                         R"(,"args":{"External id":)" + std::to_string(correlation + 1) + "}}");
      }
      if (launches) {
        const std::string id = std::to_string(++correlation);
        events.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":)" + tid +
                         R"(,"ts":)" + std::to_string(ts) + R"(,"dur":1,"args":{"correlation":)" + id + R"(,"External id":)" +
                         id + "}}");
        events.push_back(R"({"ph":"X","cat":"kernel","name":"void at::native::vectorized_elementwise_kernel","pid":0,"tid":7,"ts":)" +
                         std::to_string(ts + static_cast<int64_t>(c.below(4))) + R"(,"dur":)" + std::to_string(c.below(30)) +
                         R"(,"args":{"correlation":)" + id + R"(,"External id":)" + id +
                         R"(,"device":0,"stream":7,"grid":[1,1,1],"block":[128,1,1]}})");
      }
    }
    if (as_pair)  // the pairs' ends, innermost first, some left open
      for (size_t r = 0; r < repeat && c.below(8) != 0; ++r)
        events.push_back(R"({"ph":"E","pid":1,"tid":)" + tid + R"(,"ts":)" + std::to_string(ts + dur) + "}");
  }
  whyslow::fuzz::run_pipeline(whyslow::fuzz::trace_of(events));
  return 0;
}
