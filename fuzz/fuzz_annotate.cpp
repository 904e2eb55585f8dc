// libFuzzer target: `whyslow annotate` on arbitrary bytes. Load → analyze → explain → splice the
// findings track into a copy of the input. An output written must load back in whyslow, and when
// the input is JSON (the loader lets some invalid JSON through, which the copy keeps) it must
// parse as JSON too: annotate writes whole traces, never half ones. A LoadError is the expected
// answer to a bad input, std::runtime_error to an input whose splice is refused.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "fuzz_input.hpp"
#include "report/annotate/annotate_trace.hpp"
#include "trace/input_source.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace {

// The annotated copy: a plain file beside the fuzzer (the in-memory input stays the input).
const std::string& output_path() {
  static const std::string path = "/tmp/whyslow_fuzz_annotate_" + std::to_string(::getpid()) + ".json";
  return path;
}

// The input's JSON text (gunzipped when it is gzip), as the loader and the splice read it.
std::string json_text(const std::string& path) {
  whyslow::InputSource in(path);
  std::string text;
  char buffer[1 << 16];
  for (size_t n; (n = in.read(buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = whyslow::fuzz::input_file(data, size);
  whyslow::LoadOptions options;
  options.max_value_bytes = whyslow::fuzz::kFuzzMaxValueBytes;
  options.allow_truncated = size % 2 == 1;
  try {
    const whyslow::RereadableInput input(path);
    const whyslow::Trace trace = input.load(options);
    const whyslow::Facts facts = whyslow::analyze(trace);
    const std::vector<whyslow::Finding> findings = whyslow::explain(trace, facts);
    whyslow::write_annotated_trace(input, output_path(), trace, facts, findings);
  } catch (const whyslow::LoadError&) {
    return 0;
  } catch (const std::runtime_error&) {  // OutputError, or a splice refused with its reason
    return 0;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const bool json_input = !parser.parse(simdjson::padded_string(json_text(path))).get(doc);
  if (json_input && parser.load(output_path()).get(doc)) std::abort();  // JSON in, not JSON out
  try {
    whyslow::load_trace(output_path(), options);
  } catch (const whyslow::LoadError&) {
    std::abort();  // an output whyslow cannot read back
  }
  return 0;
}
