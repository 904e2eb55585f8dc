// Each step's memory on the trace's main allocator (the first GPU, else the CPU), from the
// allocators' records (analysis/memory/memory.cpp): the peaks, and what was allocated at the step's
// start and end — growth from step to step shows there.
#include <fmt/core.h>

#include "common/units.hpp"
#include "report/format.hpp"
#include "report/memory_words.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_table.hpp"

namespace whyslow::report {
namespace {

std::string bytes_cell(int64_t b) { return b < 0 ? "-" : human_bytes(b); }

}  // namespace

std::string memory_table(const Trace&, const Facts& facts, size_t line_width) {
  const DeviceMemory* d = main_memory_device(facts);
  if (!d)
    return table_title("Memory: not recorded (torch.profiler.profile(profile_memory=True) records every allocation and "
                       "free)",
                       line_width);
  std::string out = table_title(fmt::format("Memory per step on {} ({} allocator records; peaks include the step's start)",
                                            memory_device_name(*d), format_count(d->records)),
                                line_width);
  if (facts.steps.empty()) {
    out += fmt::format("  peak allocated {} at +{}, peak reserved {}\n", bytes_cell(d->peak_allocated),
                       human_duration(d->peak_at_ns - facts.window.start_ns), bytes_cell(d->peak_reserved));
  } else {
    TextTable t({{"step", Align::Left}, {"peak allocated"}, {"peak reserved"}, {"at start"}, {"at end"}, {"end − start"}});
    for (size_t i = 0; i < facts.steps.size() && i < d->steps.size(); ++i) {
      const StepMemory& m = d->steps[i];
      t.add_row({facts.steps[i].name, bytes_cell(m.peak_allocated), bytes_cell(m.peak_reserved), bytes_cell(m.start_allocated),
                 bytes_cell(m.end_allocated),
                 m.start_allocated >= 0 && m.end_allocated >= 0 ? human_bytes(m.end_allocated - m.start_allocated) : "-"});
    }
    out += t.render(0);
  }
  if (d->unmatched_frees > 0 || d->total_mismatches > 0 || d->negative_totals > 0)
    out += table_note(fmt::format("note: {} free{} of memory allocated before the trace began (or not recorded), {} "
                                  "record{} whose Total Allocated is not the previous total plus Bytes, {} negative total{}",
                                  d->unmatched_frees, d->unmatched_frees == 1 ? "" : "s", d->total_mismatches,
                                  d->total_mismatches == 1 ? "" : "s", d->negative_totals, d->negative_totals == 1 ? "" : "s"),
                      line_width);
  if (d->out_of_range_records > 0)
    out += table_note(fmt::format("note: {} record{} left out: Bytes, Total Allocated or Total Reserved beyond {} (no "
                                  "allocator holds that much), or a total they would take beyond it",
                                  d->out_of_range_records, d->out_of_range_records == 1 ? "" : "s",
                                  human_bytes(kMaxMemoryBytes)),
                      line_width);
  return out;
}

}  // namespace whyslow::report
