// The roofline table of `whyslow explain` and `whyslow kernels`: which roofs were used (datasheet,
// measured), then one row per kernel and shape group with its FLOPs, bytes, achieved rates,
// bound and distance from the roof, and the L2 verdict; kernels without a model are listed with
// the reason.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "common/units.hpp"
#include "report/format.hpp"
#include "report/roofline_words.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_table.hpp"

namespace whyslow::report {
namespace {

// Kernel names are shortened harder than in the kernel table: this table has more columns.
constexpr size_t kKernelWidth = 40;

std::string pct_cell(double pct) { return std::isnan(pct) ? "-" : fmt::format("{:.0f} %", pct); }

std::string intensity_cell(double x) {
  if (std::isnan(x)) return "-";
  return x >= 10 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}

std::string rate_cell(double v, std::string (*format)(double)) { return std::isnan(v) ? "-" : format(v); }

// "spills 192 MiB": the verdict and the working set of one call (the L2 size is in the header).
std::string l2_cell(const RooflineVerdict& v) {
  if (v.l2 == L2Fit::Unknown) return "-";
  return fmt::format("{} {}", to_string(v.l2), human_bytes(std::llround(v.working_set)));
}

// "fp32 67.0 · tf32 494 · … TFLOP/s · memory 4.80 TB/s · L2 60.0 MiB"
std::string rates_line(const Ceilings& c) {
  std::string out;
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::BF16, Precision::FP16, Precision::FP8, Precision::INT8})
    if (c.flops(p) > 0) out += fmt::format("{}{} {}", out.empty() ? "" : " · ", to_string(p), format_number(c.flops(p) / 1e12));
  if (!out.empty()) out += " TFLOP/s";
  if (c.bytes_per_s > 0) out += fmt::format("{}memory {}", out.empty() ? "" : " · ", human_rate(c.bytes_per_s));
  if (c.l2_bytes > 0) out += fmt::format(" · L2 {}", human_bytes(c.l2_bytes));
  return out;
}

// One entry per GPU name, "8 × NVIDIA H200" as the summary line counts them: datasheet and
// --peaks are looked up by name, so a node's GPUs of one kind share their roofs and their lines.
std::string ceilings_lines(const RooflineFacts& r, size_t line_width) {
  std::vector<std::pair<const DeviceCeilings*, int>> kinds;  // the first device of each name, how many
  for (const DeviceCeilings& d : r.devices) {
    auto same = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first->name == d.name; });
    if (same == kinds.end()) kinds.emplace_back(&d, 1);
    else ++same->second;
  }
  std::string out;
  for (const auto& [d, count] : kinds) {
    const std::string gpu = count > 1 ? fmt::format("{} × {}", count, d->name) : d->name;
    if (!d->datasheet) {
      out += table_note(fmt::format("{}: not in whyslow's datasheet table, so no roofs{}", gpu,
                                    d->measured ? " (measured ceilings alone are not enough: the table gives the L2 size and SMs)"
                                                : "; pass --peaks FILE with measured ceilings"),
                        line_width);
      continue;
    }
    out += table_note(fmt::format("{} datasheet: {}", gpu, rates_line(*d->datasheet)), line_width);
    out += table_subnote(fmt::format("source: {}", d->datasheet->source), line_width);
    if (d->measured) {
      out += table_note(fmt::format("measured: {}", rates_line(*d->measured)), line_width);
      out += table_subnote(fmt::format("source: {}", d->measured->source), line_width);
    }
    if (const std::string unused = describe_unused_peaks(*d); !unused.empty()) out += table_note(unused, line_width);
  }
  return out;
}

}  // namespace

std::string roofline_table(const Trace& trace, const Facts& facts, size_t max_rows, size_t line_width) {
  const RooflineFacts& r = facts.roofline;
  if (facts.kernels.empty()) return "";
  bool measured = false;
  for (const DeviceCeilings& d : r.devices) measured |= d.measured.has_value();
  std::vector<Column> columns = {{"kernel", Align::Left}, {"op", Align::Left}, {"calls"}, {"GPU time"},
                                 {"FLOPs/call"}, {"bytes/call"}, {"FLOP/B"}, {"FLOP/s"}, {"bytes/s"},
                                 {"bound", Align::Left}, {"% of peak"}};
  if (measured) columns.push_back({"% of measured"});
  columns.push_back({"L2", Align::Left});
  TextTable t(std::move(columns));
  std::string no_model;
  // Every (kernel, shape group) row, then sorted by GPU time, largest first: a small group of a
  // large kernel comes after a large group of a smaller one.
  std::vector<std::pair<int64_t, std::vector<std::string>>> rows;
  for (size_t i = 0; i < facts.kernels.size() && i < r.kernels.size(); ++i) {
    const KernelRow& k = facts.kernels[i];
    const KernelRoofline& kr = r.kernels[i];
    const std::string name = shorten(trace.names.view(k.name), kKernelWidth);
    for (const RooflineGroup& g : kr.groups) {
      const RooflineVerdict& v = g.verdict;
      const double calls = static_cast<double>(g.calls);
      std::string op(trace.name_of(g.op));
      if (g.kernels_per_op > 1) op += fmt::format(" (1/{})", g.kernels_per_op);
      std::vector<std::string> row = {name, op, format_count(g.calls), human_duration(v.ns),
                                      human_flops(v.flops / calls), human_bytes(std::llround(v.bytes / calls)),
                                      intensity_cell(v.intensity), rate_cell(v.flop_per_s, human_flop_rate),
                                      rate_cell(v.bytes_per_s, human_rate),
                                      v.bound == Bound::Unknown ? "-" : std::string(to_string(v.bound)),
                                      pct_cell(v.pct_of_peak)};
      if (measured) row.push_back(pct_cell(v.pct_of_measured));
      row.push_back(l2_cell(v));
      rows.emplace_back(v.ns, std::move(row));
    }
    if (kr.modelled_calls < k.calls && (max_rows == 0 || i < max_rows))
      no_model += table_note(fmt::format("{}: {} of {} calls without a model: {}", name,
                                         format_count(k.calls - kr.modelled_calls), format_count(k.calls),
                                         describe_no_model(kr.why_not)),
                             line_width);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [ns, row] : rows) t.add_row(std::move(row));
  std::string out = table_title(
      "Roofline: FLOPs and bytes from each kernel's op and its input shapes, against the GPU's roofs; by GPU time", line_width);
  out += ceilings_lines(r, line_width);
  if (t.rows() > 0) out += t.render(max_rows);
  out += table_note("bound: compute or memory = the roof at the kernel's intensity (FLOP/B vs the ridge point); latency "
                    "= too little work to fill the GPU.",
                    line_width);
  out += table_note("% of peak = achieved rate / that roof. (1/N): the op launched N kernels and shares its cost among "
                    "them by time.",
                    line_width);
  if (!no_model.empty()) out += table_title("No model (whyslow does not guess):", line_width) + no_model;
  return out;
}

}  // namespace whyslow::report
