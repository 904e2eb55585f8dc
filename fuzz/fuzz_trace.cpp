// libFuzzer target: the whole pipeline on arbitrary bytes. Load (plain or gzip: the input's
// first bytes decide) → analyze → explain → render text, JSON, HTML and a self-diff. A LoadError
// is the expected answer to bad input; anything else — a sanitizer report, an uncaught
// exception, a timeout — is a defect. Build: cmake --preset fuzz (clang, WHYSLOW_FUZZ=ON).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/json/json_report.hpp"
#include "report/html/report.hpp"
#include "report/text/text_report.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace {

// The loader reads files: the input goes into one in-memory file, reopened by its /proc path.
int memory_file() {
  static const int fd = [] {
    const int f = memfd_create("whyslow_fuzz", MFD_CLOEXEC);
    if (f < 0) std::abort();
    return f;
  }();
  return fd;
}

void write_input(const uint8_t* data, size_t size) {
  const int fd = memory_file();
  if (ftruncate(fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
}

// 1 MiB: inputs are small, and the limit's error path gets exercised by the mutator's repeats.
constexpr size_t kFuzzMaxValueBytes = size_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  write_input(data, size);
  const std::string path = "/proc/self/fd/" + std::to_string(memory_file());
  whyslow::LoadOptions options;
  options.max_value_bytes = kFuzzMaxValueBytes;
  options.allow_truncated = size % 2 == 1;  // both paths, decided by something the mutator changes
  whyslow::Trace trace;
  try {
    trace = whyslow::load_trace(path, options);
  } catch (const whyslow::LoadError& e) {
    if (std::string(e.what()).empty()) std::abort();  // every error says what went wrong
    return 0;
  }
  const whyslow::Facts facts = whyslow::analyze(trace);
  const std::vector<whyslow::Finding> findings = whyslow::explain(trace, facts);
  const whyslow::TextOptions text{.max_rows = 0};
  volatile size_t out = 0;  // keeps the renderers from being optimised away
  out = out + whyslow::render_explain_text(trace, facts, findings, text).size();
  out = out + whyslow::render_ops_text(facts, text).size();
  out = out + whyslow::render_kernels_text(trace, facts, text).size();
  out = out + whyslow::render_json(trace, facts, findings).size();
  out = out + whyslow::render_html(trace, facts, findings).size();
  out = out + whyslow::render_diff_text(whyslow::diff_traces(trace, facts, trace, facts), text).size();
  return 0;
}
