// Large synthetic traces for the scaling tests, built as JSON text in memory: shapes that made a
// pass quadratic (many steps, deep nesting, many threads), at sizes where quadratic would take
// minutes and linear takes a second.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace whyslow::testing {

class GeneratedTrace {
 public:
  GeneratedTrace() { text_ = "{\"traceEvents\": [\n"; }

  // One complete ("X") event; times in whole microseconds; `args` a JSON object or empty.
  GeneratedTrace& event(std::string_view cat, std::string_view name, int64_t pid, int64_t tid, int64_t ts_us,
                        int64_t dur_us, std::string_view args = {}) {
    if (!first_) text_ += ",\n";
    first_ = false;
    text_.append("{\"ph\":\"X\",\"cat\":\"").append(cat).append("\",\"name\":\"").append(name);
    text_.append("\",\"pid\":").append(std::to_string(pid)).append(",\"tid\":").append(std::to_string(tid));
    text_.append(",\"ts\":").append(std::to_string(ts_us)).append(",\"dur\":").append(std::to_string(dur_us));
    if (!args.empty()) text_.append(",\"args\":").append(args);
    text_ += '}';
    return *this;
  }
  // A kernel launch on CPU thread (1, 1) at `ts_us` and its kernel on GPU 0 stream 7 at `kernel_ts_us`.
  GeneratedTrace& launch(int64_t correlation, int64_t ts_us, int64_t kernel_ts_us, int64_t kernel_dur_us) {
    const std::string c = std::to_string(correlation);
    event("cuda_runtime", "cudaLaunchKernel", 1, 1, ts_us, 1, "{\"correlation\":" + c + "}");
    return event("kernel", "kernel", 0, 7, kernel_ts_us, kernel_dur_us,
                 "{\"correlation\":" + c + ",\"device\":0,\"stream\":7}");
  }

  std::string take() { return std::move(text_.append("\n]}\n")); }

 private:
  std::string text_;
  bool first_ = true;
};

// `steps` ProfilerSteps of 100 µs on thread (1, 1), each with `syncs` cudaDeviceSynchronize calls.
inline std::string steps_with_syncs(int64_t steps, int64_t syncs) {
  GeneratedTrace t;
  for (int64_t i = 0; i < steps; ++i) {
    t.event("user_annotation", "ProfilerStep#" + std::to_string(i), 1, 1, 100 * i, 100);
    t.launch(i + 1, 100 * i + 5, 100 * i + 6, 1);  // a GPU program: its work is recorded
    for (int64_t j = 0; j < syncs; ++j) t.event("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 100 * i + 10 + j, 1);
  }
  return t.take();
}

// `depth` ops nested one in the next ("aten::outer" around `depth` - 1 "aten::inner"), each with
// a cudaDeviceSynchronize of its own before the next op opens.
inline std::string syncs_in_nested_ops(int64_t depth) {
  GeneratedTrace t;
  for (int64_t i = 0; i < depth; ++i) {
    t.event("cpu_op", i == 0 ? "aten::outer" : "aten::inner", 1, 1, 2 * i, 4 * depth - 4 * i);
    t.event("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 2 * i + 1, 1);
  }
  t.launch(1, 4 * depth + 1, 4 * depth + 2, 1);  // a GPU program: its work is recorded
  return t.take();
}

// `depth` record_function blocks nested one in the next, named block_0 … block_{names-1} in
// turn, each launching one 1 µs kernel before the next block opens.
inline std::string kernels_in_nested_annotations(int64_t depth, int64_t names) {
  GeneratedTrace t;
  for (int64_t i = 0; i < depth; ++i) {
    t.event("user_annotation", "block_" + std::to_string(i % names), 1, 1, 2 * i, 4 * depth - 4 * i);
    t.launch(i + 1, 2 * i + 1, 4 * depth + 2 * i, 1);
  }
  return t.take();
}

// One op ("aten::outer", External id 1) around `depth` python frames nested one in the next,
// each launching one kernel before the next frame opens. Every launch and kernel carries External
// id 2, the id of an unrelated op ("aten::result_type") after the others: each link is broken,
// and the op that encloses each launch is `depth` - i frames up.
inline std::string broken_links_under_deep_frames(int64_t depth) {
  GeneratedTrace t;
  t.event("cpu_op", "aten::outer", 1, 1, 0, 4 * depth, "{\"External id\":1}");
  for (int64_t i = 0; i < depth; ++i) {
    const std::string ids = "{\"correlation\":" + std::to_string(i + 10) + ",\"External id\":2";
    t.event("python_function", "model.py(1): f", 1, 1, 2 * i + 1, 4 * depth - 4 * i - 2);
    t.event("cuda_runtime", "cudaLaunchKernel", 1, 1, 2 * i + 2, 1, ids + "}");
    t.event("kernel", "kernel", 0, 7, 4 * depth + 2 * i, 1, ids + ",\"device\":0,\"stream\":7}");
  }
  t.event("cpu_op", "aten::result_type", 1, 1, 8 * depth, 1, "{\"External id\":2}");
  return t.take();
}

// One 1 µs op on each of `threads` threads of process 1.
inline std::string one_op_per_thread(int64_t threads) {
  GeneratedTrace t;
  for (int64_t i = 0; i < threads; ++i) t.event("cpu_op", "aten::op", 1, i + 1, i, 1);
  return t.take();
}

}  // namespace whyslow::testing
