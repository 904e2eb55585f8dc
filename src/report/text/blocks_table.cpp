// The blocks table: the user's code as an indented tree, the rows that matter only.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/blocks/block_groups.hpp"
#include "analysis/blocks/code_origin.hpp"
#include "common/share.hpp"
#include "common/units.hpp"
#include "report/format.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_table.hpp"

namespace whyslow::report {
namespace {

// A block under this share of both the steps' CPU and GPU time is left out of the text table
// (the JSON has every row): the table is for finding where the time went, and twenty rows of
// 1 % blocks hide the three that hold it.
constexpr double kMinShownShare = 0.05;
// Indentation per tree level; deeper levels are capped so names keep their room.
constexpr size_t kIndentPerLevel = 2, kMaxIndentLevels = 8;


std::string per_call(uint64_t n, uint64_t calls) {
  return calls == 0 ? "-" : format_number(static_cast<double>(n) / static_cast<double>(calls));
}

// The code that runs in several places (a module class's instances, a function called from
// several blocks), summed: what the tree, one row per place, cannot show at a glance.
std::string groups_table(const Trace& trace, const BlockFacts& b, size_t max_rows, size_t line_width) {
  TextTable t({{"code", Align::Left}, {"kind", Align::Left}, {"places"}, {"calls"}, {"CPU total"}, {"CPU %"}, {"GPU"},
               {"backward CPU"}, {"backward GPU"}, {"location", Align::Left}});
  size_t shown = 0;
  const bool any_backward = std::any_of(b.groups.begin(), b.groups.end(), [](const BlockGroup& g) { return g.total.backward_ops > 0; });
  for (const BlockGroup& g : b.groups) {
    if (g.rows.size() < 2) continue;
    const int64_t cpu_basis = b.basis_cpu_ns * std::max<uint32_t>(1, g.total.threads);
    if (std::max(share(g.total.cpu_total_ns, cpu_basis), share(g.total.gpu_ns, b.basis_gpu_ns)) < kMinShownShare) continue;
    t.add_row({shorten(group_title(g), kNameWidth), std::string(to_string(g.kind)), format_count(g.rows.size()),
               format_count(g.total.calls), human_duration(g.total.cpu_total_ns), human_percent(share(g.total.cpu_total_ns, cpu_basis)),
               g.total.gpu_ns == 0 ? "-" : human_duration(g.total.gpu_ns),
               g.total.backward_ops == 0 ? "-" : human_duration(g.total.backward_cpu_ns),
               g.total.backward_gpu_ns == 0 ? "-" : human_duration(g.total.backward_gpu_ns),
               g.location == kNoName ? "-" : frame_location(trace.names.view(g.location))});
    ++shown;
  }
  if (shown == 0) return {};
  return "\n" +
         table_title(fmt::format("Code in several places, summed over them ({} shown; CPU % of the steps' time on the "
                                 "threads it ran on{})",
                                 shown,
                                 any_backward ? "; backward: autograd's ops made by its forward, linked by sequence number"
                                              : ""),
                     line_width) +
         t.render(max_rows);
}

}  // namespace

std::string blocks_table(const Trace& trace, const Facts& facts, size_t max_rows, size_t line_width) {
  const BlockFacts& b = facts.blocks;
  if (b.rows.empty()) return {};
  TextTable t({{"block", Align::Left}, {"kind", Align::Left}, {"calls"}, {"CPU total"}, {"self CPU"}, {"GPU"},
               {"kernels/call"}, {"launches/call"}, {"location", Align::Left}});
  size_t shown = 0;
  for (const BlockRow& r : b.rows) {
    if (std::max(share(r.cpu_total_ns, b.basis_cpu_ns), share(r.gpu_ns, b.basis_gpu_ns)) < kMinShownShare) continue;
    const size_t indent = kIndentPerLevel * std::min<size_t>(r.depth, kMaxIndentLevels);
    std::string name = std::string(indent, ' ') + shorten(trace.names.view(r.name), kNameWidth - indent);
    if (r.other_thread_gpu_ns > 0) name += " *";
    t.add_row({std::move(name), std::string(to_string(r.kind)), format_count(r.calls), human_duration(r.cpu_total_ns),
               human_duration(r.self_cpu_ns), r.gpu_ns == 0 ? "-" : human_duration(r.gpu_ns),
               per_call(r.kernels, r.calls), per_call(r.launches, r.calls),
               r.location == kNoName ? "-" : frame_location(trace.names.view(r.location))});
    ++shown;
  }
  const bool other_threads = std::any_of(b.rows.begin(), b.rows.end(), [](const BlockRow& r) { return r.other_thread_gpu_ns > 0; });
  return table_title(fmt::format("Blocks of your code ({} of {} shown: ≥ {:.0f} % of the steps' {} CPU or {} GPU time; "
                                 "all in --json)",
                                 shown, b.rows.size(), kMinShownShare * 100, human_duration(b.basis_cpu_ns),
                                 human_duration(b.basis_gpu_ns)),
                     line_width) +
         t.render(max_rows) +
         (other_threads
              ? table_note("* includes GPU work launched on other threads while the block ran (autograd's backward)",
                           line_width)
              : "") +
         groups_table(trace, b, max_rows, line_width);
}

}  // namespace whyslow::report
