// Shared helpers for the tests: fixture paths and the pipeline in one call.
#pragma once

#include <string>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "trace/load_trace.hpp"

namespace whyslow::testing {

inline std::string fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/torch/" + name; }

struct Explained {
  Trace trace;
  Facts facts;
  std::vector<Finding> findings;
};

inline Explained explain_file(const std::string& path) {
  Explained e{load_trace(path), {}, {}};
  e.facts = analyze(e.trace);
  e.findings = explain(e.trace, e.facts);
  return e;
}

}  // namespace whyslow::testing
