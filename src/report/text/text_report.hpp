// Terminal text: what `whyslow explain`, `ops`, `kernels` and `diff` print.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/diff_words.hpp"
#include "report/format.hpp"

namespace whyslow {

struct TextOptions {
  size_t max_rows = 15;  // rows per table; 0 = all
  size_t line_width = report::kDefaultLineWidth;  // columns prose wraps at (a terminal's, when narrower)
  // `explain --brief`: each finding's title, the fix replayed and what to try, then the what-if
  // table; no detail, evidence, events, code or long tables (a screenful instead of 200 lines).
  bool brief = false;
};

// `whyslow explain`: findings first, then the steps, kernels, ops and annotation tables
// (options.brief: the findings' headlines and the what-if table only).
std::string render_explain_text(const Trace& trace, const Facts& facts,
                                const std::vector<Finding>& findings, const TextOptions& options);
// `whyslow ops`: the key_averages() table.
std::string render_ops_text(const Facts& facts, const TextOptions& options);
// `whyslow kernels`: the kernel table.
std::string render_kernels_text(const Trace& trace, const Facts& facts, const TextOptions& options);
// `whyslow diff`: the verdict, the per-step comparison, kernels and replacements; with `gate`
// (--fail-if-slower), the gate's line under the verdict.
std::string render_diff_text(const Diff& diff, const TextOptions& options, const report::DiffGate* gate = nullptr);

}  // namespace whyslow
