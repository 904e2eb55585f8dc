// What the fuzz targets run on a trace that loaded: analyze, explain and every renderer the CLI
// has (text, the op and kernel tables, JSON, HTML) and a self-diff, as `whyslow explain`,
// `report` and `diff` do.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/html/report.hpp"
#include "report/json/json_report.hpp"
#include "report/text/text_report.hpp"
#include "trace/trace.hpp"

namespace whyslow::fuzz {

inline void analyze_and_render(const Trace& trace) {
  const Facts facts = analyze(trace);
  const std::vector<Finding> findings = explain(trace, facts);
  const TextOptions text{.max_rows = 0};
  volatile size_t out = 0;  // keeps the renderers from being optimised away
  out = out + render_explain_text(trace, facts, findings, text).size();
  out = out + render_ops_text(facts, text).size();
  out = out + render_kernels_text(trace, facts, text).size();
  out = out + render_json(trace, facts, findings).size();
  out = out + render_html(trace, facts, findings).size();
  out = out + render_diff_text(diff_traces(trace, facts, trace, facts), text).size();
}

}  // namespace whyslow::fuzz
