// The dependency graph's two tables: what sets the pace of a steady step, and what each fix would
// make of it (analysis/graph/).
#include <fmt/core.h>

#include "common/units.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_table.hpp"

namespace whyslow::report {

std::string pace_table(const Facts& facts, size_t max_rows, size_t line_width) {
  const GraphFacts& g = facts.graph;
  if (!g.built || g.steady_path.empty()) return "";
  int64_t total = 0;
  for (const PathPart& p : g.steady_path) total += p.ns;
  TextTable t({{"on the critical path"}, {"share"}, {"kind", Align::Left}, {"what", Align::Left}});
  for (const PathPart& p : g.steady_path)
    t.add_row({human_duration(p.ns), human_percent(total > 0 ? static_cast<double>(p.ns) / static_cast<double>(total) : 0),
               std::string(to_string(p.kind)), p.what});
  return table_title(fmt::format("What sets the pace: the chain of work and waits that ends a steady step ({} per step), "
                                 "walked back through the trace's dependency graph (latency: an edge's usual cost; "
                                 "wait: its lag beyond it)",
                                 human_duration(total)),
                     line_width) +
         t.render(max_rows);
}

std::string what_if_table(const Facts& facts, size_t line_width) {
  const GraphFacts& g = facts.graph;
  if (!g.built || g.what_if.empty()) return "";
  TextTable t({{"fix", Align::Left}, {"step"}, {"predicted"}, {"change"}, {"what it changes", Align::Left}});
  auto row = [&](const WhatIf& w) {
    const double change = w.step_ns > 0 ? static_cast<double>(w.predicted_step_ns - w.step_ns) / static_cast<double>(w.step_ns) : 0;
    const std::string name = w.param.empty() ? w.edit : w.edit + "=" + w.param;
    t.add_row({name + (w.per_step ? "" : " (" + w.scope + ")"), human_duration(w.step_ns),
               human_duration(w.predicted_step_ns), fmt::format("{:+.0f} %", change * 100), w.change});
  };
  for (const WhatIf& w : g.what_if) row(w);
  if (!g.all_together.edit.empty()) row(g.all_together);
  return table_title("What would it take: each fix applied to the trace's dependency graph and replayed (whyslow "
                     "what-if TRACE --edit NAME; docs/GRAPH.md has each edit's model)",
                     line_width) +
         t.render(0);
}

}  // namespace whyslow::report
