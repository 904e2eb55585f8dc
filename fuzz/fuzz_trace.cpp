// libFuzzer target: the whole pipeline on arbitrary bytes. Load (plain or gzip: the input's
// first bytes decide) → analyze → explain → render text, JSON, HTML and a self-diff. A LoadError
// is the expected answer to bad input; anything else — a sanitizer report, an uncaught
// exception, a timeout — is a defect. Build: cmake --preset fuzz (clang, WHYSLOW_FUZZ=ON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "fuzz_input.hpp"
#include "report/json/json_report.hpp"
#include "report/html/report.hpp"
#include "report/text/text_report.hpp"
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
