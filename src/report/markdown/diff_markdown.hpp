// `whyslow diff --summary-md FILE`: the verdict as Markdown for a CI job's summary page
// ($GITHUB_STEP_SUMMARY): a heading, the gate's line, the summary, the step's main parts side by
// side and what to try.
#pragma once

#include <string>
#include <string_view>

#include "diff/diff.hpp"
#include "report/diff_words.hpp"

namespace whyslow {

// `gate`: --fail-if-slower's outcome, or nullptr without it.
std::string render_diff_markdown(const Diff& diff, const report::DiffGate* gate);

namespace report {
// `text` as literal Markdown: every character Markdown or a table gives a meaning to (`|`,
// backticks, `*`, `_`, `<`, …) is backslash-escaped, and line breaks and other control characters
// become spaces, so a trace path cannot end a table cell, open a code span or start a new block.
std::string markdown_text(std::string_view text);
}  // namespace report

}  // namespace whyslow
