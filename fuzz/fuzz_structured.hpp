// Structured generators for the fuzz targets that aim at one part of the analysis (op models,
// memory records, nesting): the fuzzer's bytes choose the events and their values, the generator
// always writes a valid trace around them, so every input reaches the passes behind the loader
// with hostile values instead of stopping at a syntax error (fuzz_trace's inputs mostly do).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_pipeline.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow::fuzz {

// The fuzzer's bytes as choices; past the end every choice is 0 (the input's length is a choice too).
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return at_ >= size_; }
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  bool flag() { return byte() & 1; }
  size_t below(size_t n) { return n == 0 ? 0 : byte() % n; }
  template <class T>
  const T& pick(const std::vector<T>& options) { return options[below(options.size())]; }
  uint64_t word() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  // An integer where the arithmetic breaks: zero, one, small, powers of two near the limits of
  // int32, int64 and the analyses' own bounds (2^40 elements, 2^62 ns), their negatives, or any.
  int64_t hostile_int() {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    static const std::vector<int64_t> edges = {0, 1, 2, 3, 7, 64, 4096, -1, -2, int64_t{1} << 31, (int64_t{1} << 31) - 1,
                                               int64_t{1} << 32, int64_t{1} << 40, (int64_t{1} << 40) + 1,
                                               int64_t{1} << 50, int64_t{1} << 62, -(int64_t{1} << 62), kMax, kMin,
                                               kMax / 2, kMax / 3, -(int64_t{1} << 40)};
    switch (below(4)) {
      case 0: return pick(edges);
      case 1: return static_cast<int64_t>(byte());
      case 2: return static_cast<int64_t>(word());
      default: return static_cast<int64_t>(byte()) - 128;
    }
  }
  // A number as JSON text: an integer, or the forms a hostile writer uses (exponents, fractions,
  // more digits than any integer holds). Always valid JSON.
  std::string number_text() {
    static const std::vector<std::string> odd = {"1e300", "-1e300", "1.5", "0.0", "-0.0", "2.0", "1e1", "99999999999999999999999999999",
                                                 "-99999999999999999999999999999", "4611686018427387904", "9.223372036854776e18"};
    return below(5) == 0 ? pick(odd) : std::to_string(hostile_int());
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// A JSON string literal of `s` (the generators' texts are printable ASCII; escaping is for quotes).
inline std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Loads the trace text, then analyzes, explains and renders it (fuzz_pipeline.hpp). A
// LoadError is an answer (the generator may write values the loader refuses, such as times out of
// range); a sanitizer report, an uncaught exception or a timeout is a defect.
inline void run_pipeline(const std::string& json) {
  const std::string path = input_file(reinterpret_cast<const uint8_t*>(json.data()), json.size());
  LoadOptions options;
  options.max_value_bytes = kFuzzMaxValueBytes;
  Trace trace;
  try {
    trace = load_trace(path, options);
  } catch (const LoadError& e) {
    if (std::string(e.what()).empty()) std::abort();  // every error says what went wrong
    return;
  }
  analyze_and_render(trace);
}

// {"traceEvents": [events…]} with a GPU's deviceProperties, so kernels have a device to be held against.
inline std::string trace_of(const std::vector<std::string>& events) {
  std::string json =
      R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, )"
      R"("computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "regsPerBlock": 65536, "warpSize": 32, )"
      R"("sharedMemPerBlock": 49152, "numSms": 132}], "traceEvents": [)";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
  return json + "\n]}\n";
}

}  // namespace whyslow::fuzz
