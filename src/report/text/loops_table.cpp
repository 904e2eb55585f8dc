// The loops found inside steps (analysis/steps/loops.cpp): one row per step whose top-level work repeats,
// iteration 1 (a generate()'s prefill) apart from the median of the others (its decode passes).
#include <fmt/core.h>

#include <string>
#include <vector>

#include "common/units.hpp"
#include "report/format.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_table.hpp"

namespace whyslow::report {

std::string loops_table(const Trace& trace, const Facts& facts, size_t line_width) {
  if (facts.loops.empty()) return "";
  // Without the GPU's records a GPU busy column would read as an idle GPU: it is left out.
  const bool gpu = facts.recording.what == Recorded::Gpu;
  std::vector<Column> columns = {{"step", Align::Left}, {"iterations"}, {"first"}, {"median of the rest"}, {"CPU"}};
  if (gpu) columns.push_back({"GPU busy"});
  columns.insert(columns.end(), {{"tokens/iteration"}, {"tokens/s"}});
  TextTable t(columns);
  for (const LoopFacts& l : facts.loops) {
    const std::string first_tokens = l.first_tokens > 0 ? fmt::format(" ({} tokens)", l.first_tokens) : "";
    std::vector<std::string> row = {std::string(loop_scope(facts.steps, l)), format_count(l.iteration_count),
                                    human_duration(l.iterations.front().duration_ns) + first_tokens,
                                    human_duration(l.median_ns), human_duration(l.cpu_median_ns)};
    if (gpu) row.push_back(human_duration(l.gpu_median_ns));
    row.push_back(l.tokens_per_iteration > 0 ? format_count(static_cast<uint64_t>(l.tokens_per_iteration)) : "-");
    row.push_back(tokens_per_s(l) > 0 ? fmt::format("{:.0f}", tokens_per_s(l)) : "-");
    t.add_row(row);
  }
  const LoopFacts& l = facts.loops.front();
  return table_title(fmt::format("Loops inside steps: the step's top-level work repeats; each iteration opens with '{}' "
                                 "(under {}). 'first' is iteration 1 (a generate()'s prefill where its tokens say so), "
                                 "the rest are medians of iterations 2..N (CPU = minus the time blocked waiting for the "
                                 "GPU)",
                                 trace.names.view(l.marker), loop_block_name(trace, l)),
                     line_width) +
         t.render(0);
}

}  // namespace whyslow::report
