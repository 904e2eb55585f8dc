// `whyslow diff --summary-md FILE`: short enough to read on a CI run's page; the text output (the
// job's log) has every table. Paths and names are escaped: a trace may be named anything.
#include "report/markdown/diff_markdown.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "common/units.hpp"

namespace whyslow {
namespace {

using namespace report;

// The table's rows (Diff::components keys): the step, where its time went and how much GPU work it
// launched. The text output has the other parts (sync wait, GPU idle, copies, CPU categories).
constexpr std::array<std::string_view, 5> kSummaryRows = {"step_us", "cpu_us", "gpu_busy_us", "kernels", "launches"};

// Characters with a meaning in GitHub's Markdown anywhere in a line: emphasis, code spans, links,
// raw HTML, entities, strikethrough, math, table cells, and the escape itself.
constexpr std::string_view kMarkdownSpecials = "\\`*_[]<>|~&$";

std::string side_line(const char* side, const char* role, const StepProfile& p) {
  return fmt::format("- **{}** ({}): {}{}\n", side, role, markdown_text(p.path),
                     p.device.empty() ? "" : " (" + markdown_text(p.device) + ")");
}

std::string cell_value(const Component& c, int64_t v) { return c.unit == Quantity::Time ? human_duration(v) : count_text(v); }

void two_answers_table(std::string& out, const Diff& d) {
  const std::vector<TwoAnswersRow> rows = two_answers_rows(d);
  if (rows.empty()) return;
  out += "\n| | A | B |\n|---|--:|--:|\n";
  for (const TwoAnswersRow& r : rows)
    out += fmt::format("| {} | {} | {} |\n", markdown_text(r.label), markdown_text(r.a), markdown_text(r.b));
  if (const std::string b = break_even_words(d.verdict); !b.empty()) out += "\n" + markdown_text(b) + "\n";
}

void components_table(std::string& out, const Diff& d) {
  out += fmt::format("\nPer steady step, median over {} step{} of A and {} of B:\n\n", d.a.steps,
                     d.a.steps == 1 ? "" : "s", d.b.steps);
  out += "| | A | B | B − A |\n|---|--:|--:|--:|\n";
  for (const std::string_view key : kSummaryRows) {
    const auto c = std::find_if(d.components.begin(), d.components.end(), [&](const Component& x) { return x.key == key; });
    if (c == d.components.end() || !shows_component(d, key)) continue;
    const std::string delta = c->unit == Quantity::Time ? signed_time(c->delta()) : signed_count(c->delta());
    out += fmt::format("| {} | {} | {} | {} |\n", markdown_text(c->label), markdown_text(cell_value(*c, c->a.median)),
                       markdown_text(cell_value(*c, c->b.median)), markdown_text(delta));
  }
}

}  // namespace

namespace report {

std::string markdown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) {
      out += ' ';
      continue;
    }
    if (kMarkdownSpecials.find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace report

std::string render_diff_markdown(const Diff& d, const DiffGate* gate) {
  const Verdict& v = d.verdict;
  std::string out = "## whyslow diff: " + markdown_text(verdict_headline(v)) + "\n\n";
  if (gate) out += "**" + markdown_text(gate_line(*gate)) + "**\n\n";
  out += side_line("A", "baseline", d.a) + side_line("B", "change", d.b);
  if (!d.mismatches.empty()) {
    out += "\nBefore comparing:\n\n";
    for (const std::string& m : d.mismatches) out += "- " + markdown_text(m) + "\n";
  }
  out += "\n" + markdown_text(v.summary) + "\n";
  two_answers_table(out, d);
  components_table(out, d);
  if (!v.try_next.empty()) {
    out += "\nTry:\n\n";
    for (const std::string& t : v.try_next) out += "- " + markdown_text(t) + "\n";
  }
  return out;
}

}  // namespace whyslow
