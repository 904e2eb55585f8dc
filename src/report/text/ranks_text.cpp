// The text of a job's ranks: one row per rank, the cross-rank findings, each rank's own findings.
#include <fmt/core.h>

#include <algorithm>

#include "common/terminal_text.hpp"
#include "common/units.hpp"
#include "report/format.hpp"
#include "report/ranks_report.hpp"
#include "report/text/severity_marker.hpp"
#include "report/text/text_table.hpp"

namespace whyslow {
namespace {

// The CPU category that holds the most of a rank's median step.
std::string top_cpu(const RankDigest& d) {
  size_t best = 0;
  for (size_t c = 1; c < kCpuCategories; ++c)
    if (d.cpu[c] > d.cpu[best]) best = c;
  return d.cpu[best] > 0 ? fmt::format("{} {}", to_string(static_cast<CpuCategory>(best)), human_duration(d.cpu[best])) : "-";
}

}  // namespace

std::string render_ranks_text(const RanksReport& rep, size_t line_width) {
  const CrossRankFacts& f = rep.facts;
  std::string summary = fmt::format("whyslow explain: {} ranks · {} collectives on every rank (matched by {})",
                                    f.ranks.size(), f.collectives.size(),
                                    f.matched_by_seq ? "group + seq" : "order within group");
  if (!f.collectives.empty())
    summary += fmt::format(" · arrival skew median {}, max {}", human_duration(f.median_skew_ns), human_duration(f.max_skew_ns));
  std::string out = report::table_title(summary, line_width) + "\n";
  if (!rep.findings.empty()) out += fmt::format("Findings across ranks: {}\n\n", kSeverityLegend);
  for (const RankFinding& rf : rep.findings) {
    const Finding& x = rf.finding;
    report::append_wrapped(out, fmt::format("{} [{}] {}", severity_marker(x.severity), to_string(x.id), x.title), "", kFindingIndent, line_width);
    report::append_wrapped(out, x.detail, kFindingIndent, kFindingIndent, line_width);
    out += std::string(kFindingIndent) + "try:\n";
    for (const std::string& t : x.try_next) report::append_wrapped(out, t, std::string(kFindingIndent) + "  - ", std::string(kFindingIndent) + "    ", line_width);
    out += '\n';
  }
  if (rep.findings.empty()) out += "No straggler: no rank arrives last often and late enough to hold the others back.\n\n";

  using report::Align;
  report::TextTable table({{"rank", Align::Right}, {"step", Align::Right}, {"compute", Align::Right},
                           {"comm", Align::Right}, {"exposed comm", Align::Right}, {"top CPU category", Align::Left},
                           {"clock offset", Align::Right}, {"last at", Align::Right}, {"late/step", Align::Right},
                           {"findings", Align::Left}});
  for (size_t i = 0; i < f.ranks.size(); ++i) {
    const RankDigest& d = f.ranks[i];
    std::string ids;
    for (const RankFindingLine& l : rep.rank_findings[i])
      if (l.severity != Severity::Info) ids += (ids.empty() ? "" : ", ") + std::string(to_string(l.id));
    table.add_row({std::to_string(d.rank), human_duration(d.step_ns), human_duration(d.compute_ns),
                   human_duration(d.comm_ns), human_duration(d.exposed_comm_ns), top_cpu(d),
                   human_duration(f.clock_offset_ns[i]), std::to_string(f.times_last[i]),
                   human_duration(f.late_per_step_ns[i]), ids.empty() ? "-" : ids});
  }
  out += report::table_title("Ranks (medians of steady steps; late/step: how long the first arrivals waited for it, per step):",
                             line_width);
  out += table.render(0);
  return printable_text(out);
}

}  // namespace whyslow
