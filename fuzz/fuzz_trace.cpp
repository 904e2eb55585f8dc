// libFuzzer target: the whole pipeline on arbitrary bytes. Load (plain or gzip: the input's
// first bytes decide) → analyze → explain → render text, JSON, HTML and a self-diff. A LoadError
// is the expected answer to bad input; anything else — a sanitizer report, an uncaught
// exception, a timeout — is a defect. Build: cmake --preset fuzz (clang, WHYSLOW_FUZZ=ON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_input.hpp"
#include "fuzz_pipeline.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = whyslow::fuzz::input_file(data, size);
  whyslow::LoadOptions options;
  options.max_value_bytes = whyslow::fuzz::kFuzzMaxValueBytes;
  options.allow_truncated = size % 2 == 1;  // both paths, decided by something the mutator changes
  whyslow::Trace trace;
  try {
    trace = whyslow::load_trace(path, options);
  } catch (const whyslow::LoadError& e) {
    if (std::string(e.what()).empty()) std::abort();  // every error says what went wrong
    return 0;
  }
  whyslow::fuzz::analyze_and_render(trace);
  return 0;
}
