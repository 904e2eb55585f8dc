// `whyslow diff A B` as text: what is not comparable first, then the verdict, the per-step
// table with medians and ranges, kernel changes, replacements, torch.compile and CUDA graphs.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "common/terminal_text.hpp"
#include "common/units.hpp"
#include "report/diff_words.hpp"
#include "report/format.hpp"
#include "report/text/text_report.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_table.hpp"

namespace whyslow {
namespace {

using namespace report;

// `text` wrapped under `prefix`; continuation lines are indented as far as the prefix, so a
// bullet or label appears once.
void append_paragraph(std::string& out, std::string_view text, std::string_view prefix, size_t line_width) {
  const std::string hang(display_width(prefix), ' ');
  bool first = true;
  for (const std::string& line : wrap(text, line_width - hang.size())) {
    out += (first ? std::string(prefix) : hang) + line + "\n";
    first = false;
  }
}

std::string range(const Spread& s, std::string (*fmt_value)(int64_t)) {
  if (s.min == s.max) return fmt_value(s.median);
  return fmt::format("{} ({}–{})", fmt_value(s.median), fmt_value(s.min), fmt_value(s.max));
}
std::string bytes_text(int64_t n) { return n == 0 ? "0" : human_bytes(n); }

void row(TextTable& t, const char* what, const Spread& a, const Spread& b, std::string (*value)(int64_t),
         std::string (*delta)(int64_t)) {
  t.add_row({what, range(a, value), range(b, value), delta(b.median - a.median)});
}

// Launches per step by API (cudaLaunchKernel, cudaGraphLaunch, …), under the launches row.
void launch_api_rows(TextTable& t, const Diff& d) {
  std::set<std::string> apis;
  for (const auto& [api, s] : d.a.launches_by_api) apis.insert(api);
  for (const auto& [api, s] : d.b.launches_by_api) apis.insert(api);
  for (const std::string& api : apis) {
    const auto ia = d.a.launches_by_api.find(api), ib = d.b.launches_by_api.find(api);
    const Spread sa = ia == d.a.launches_by_api.end() ? Spread{} : ia->second;
    const Spread sb = ib == d.b.launches_by_api.end() ? Spread{} : ib->second;
    t.add_row({"  " + api, range(sa, count_text), range(sb, count_text), signed_count(sb.median - sa.median)});
  }
}

// The step's top-level blocks and ops whose time per step changed, largest change first.
void blocks_section(std::string& out, const Diff& d, size_t max_rows, size_t line_width) {
  TextTable t({{"block or op", Align::Left}, {"A"}, {"B"}, {"B − A"}});
  for (const Component& c : d.blocks)
    if (c.delta() != 0)
      t.add_row({shorten(c.label, kNameWidth), range(c.a, human_duration), range(c.b, human_duration), signed_time(c.delta())});
  if (t.rows() == 0) return;
  out += "\n" + table_title("Where the step's time went: its top-level blocks and ops, time per step (largest change first)",
                            line_width);
  out += t.render(max_rows);
}

std::string per_step_calls(double calls) { return calls == static_cast<int64_t>(calls) ? fmt::format("{:.0f}", calls) : fmt::format("{:.2f}", calls); }

std::string work_list(const std::vector<std::string>& names) {
  if (names.empty()) return "nothing";
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i == 4) {
      out += fmt::format(", … {} more", names.size() - 4);
      break;
    }
    out += (i ? ", " : "") + shorten(names[i], 48);
  }
  return out;
}

std::string ops_list(const std::vector<std::string>& ops) {
  std::string out;
  for (const std::string& op : ops) out += (out.empty() ? "" : ", ") + op;
  return out.empty() ? "no recorded op" : out;
}

void compile_section(std::string& out, const Diff& d) {
  if (!d.a.compile.present() && !d.b.compile.present()) return;
  out += "\ntorch.compile's own CPU cost per step\n";
  TextTable t({{"", Align::Left}, {"A"}, {"B"}});
  auto add = [&](const char* what, std::string a, std::string b) { t.add_row({what, std::move(a), std::move(b)}); };
  auto calls = [](double c) { return per_step_calls(c); };
  add("compiled-region calls", calls(d.a.compile.region_calls), calls(d.b.compile.region_calls));
  add("compiled-region time", human_duration(d.a.compile.region_ns), human_duration(d.b.compile.region_ns));
  add("Dynamo cache lookups (guards)", fmt::format("{} ({})", calls(d.a.compile.cache_lookups), human_duration(d.a.compile.cache_lookup_ns)),
      fmt::format("{} ({})", calls(d.b.compile.cache_lookups), human_duration(d.b.compile.cache_lookup_ns)));
  add("AOT wrapper prologue", human_duration(d.a.compile.wrapper_prologue_ns), human_duration(d.b.compile.wrapper_prologue_ns));
  add("CompiledFxGraph calls", fmt::format("{} ({})", calls(d.a.compile.graph_calls), human_duration(d.a.compile.graph_call_ns)),
      fmt::format("{} ({})", calls(d.b.compile.graph_calls), human_duration(d.b.compile.graph_call_ns)));
  add("region time outside the graph", human_duration(d.a.compile.outside_graph_ns), human_duration(d.b.compile.outside_graph_ns));
  add("graph breaks (nested regions)", calls(d.a.compile.graph_breaks), calls(d.b.compile.graph_breaks));
  add("recompilations (whole trace)", std::to_string(d.a.compile.recompilations), std::to_string(d.b.compile.recompilations));
  add("compilation in the window", human_duration(d.a.compile.compile_ns), human_duration(d.b.compile.compile_ns));
  out += t.render(0);
}

void graphs_section(std::string& out, const Diff& d) {
  if (d.a.graphs.launches == 0 && d.b.graphs.launches == 0) return;
  out += "\nCUDA graphs per step\n";
  TextTable t({{"", Align::Left}, {"A"}, {"B"}});
  t.add_row({"graph launches", per_step_calls(d.a.graphs.launches), per_step_calls(d.b.graphs.launches)});
  t.add_row({"kernels per graph launch", per_step_calls(d.a.graphs.kernels_per_launch), per_step_calls(d.b.graphs.kernels_per_launch)});
  t.add_row({"memcpys (static input copies)", per_step_calls(d.a.graphs.copies), per_step_calls(d.b.graphs.copies)});
  out += t.render(0);
}

}  // namespace

std::string render_diff_text(const Diff& d, const TextOptions& options, const DiffGate* gate) {
  std::string out = fmt::format("whyslow diff\n  A: {}{}\n  B: {}{}\n", d.a.path, d.a.device.empty() ? "" : "  (" + d.a.device + ")",
                                d.b.path, d.b.device.empty() ? "" : "  (" + d.b.device + ")");
  if (!d.mismatches.empty()) {
    out += "\nBefore comparing:\n";
    for (const std::string& m : d.mismatches) append_paragraph(out, m, "  - ", options.line_width);
  }
  const Verdict& v = d.verdict;
  out += "\n" + table_title("Verdict: " + verdict_headline(v), options.line_width);
  if (gate) append_paragraph(out, gate_line(*gate), "  ", options.line_width);
  append_paragraph(out, v.summary, "  ", options.line_width);
  if (!v.try_next.empty()) {
    out += "  try:\n";
    for (const std::string& t : v.try_next) append_paragraph(out, t, "    - ", options.line_width);
  }

  if (const std::vector<TwoAnswersRow> rows = two_answers_rows(d); !rows.empty()) {
    out += "\nOver what was profiled, and once warm\n";
    TextTable two({{"", Align::Left}, {"A"}, {"B"}});
    for (const TwoAnswersRow& r : rows) two.add_row({r.label, r.a, r.b});
    out += two.render(0);
    if (const std::string b = break_even_words(v); !b.empty()) append_paragraph(out, b, "  ", options.line_width);
  }
  out += "\n" + table_title(fmt::format("Per steady step: median (min–max) over {} step{} of A and {} of B", d.a.steps,
                                        d.a.steps == 1 ? "" : "s", d.b.steps),
                            options.line_width);
  TextTable t({{"", Align::Left}, {"A"}, {"B"}, {"B − A"}});
  for (const Component& c : d.components) {
    if (!shows_component(d, c.key)) continue;
    if (c.unit == Quantity::Time) row(t, c.label.c_str(), c.a, c.b, human_duration, signed_time);
    else row(t, c.label.c_str(), c.a, c.b, count_text, signed_count);
    if (c.key == "launches") launch_api_rows(t, d);
    if (c.key == "memcpys") row(t, "memcpy bytes", d.a.memcpy_bytes, d.b.memcpy_bytes, bytes_text, signed_count);
  }
  out += t.render(0);

  blocks_section(out, d, options.max_rows, options.line_width);

  if (!d.replacements.empty() || !d.alignment_note.empty()) {
    out += "\n" + table_title("What B does instead (aligning a typical step of each; memsets do not count as a pass over "
                              "data)",
                              options.line_width);
    if (!d.alignment_note.empty()) append_paragraph(out, d.alignment_note, "  ", options.line_width);
    for (const Replacement& r : d.replacements) {
      std::string how;
      if (r.fusion == "kernel") how = fmt::format("fused at the kernel level: {} GPU operations become {}", r.a_work.size(), r.b_work.size());
      else if (r.fusion == "graph") how = "not fused: as many passes over data, but replayed by one CUDA graph launch";
      else if (r.fusion == "dispatcher") how = "fused in PyTorch only: fewer ops, but as many passes over data on the GPU";
      else if (r.fusion == "removed") how = "gone in B";
      else if (r.fusion == "added") how = "new in B";
      else how = "different kernels for the same work";
      append_paragraph(out, fmt::format("{} ({}, from {})", work_list(r.a_work), human_duration(r.a_ns), ops_list(r.a_ops)), "  - A: ", options.line_width);
      append_paragraph(out, fmt::format("{} ({}, from {})", work_list(r.b_work), human_duration(r.b_ns), ops_list(r.b_ops)), "    B: ", options.line_width);
      append_paragraph(out, how, "    → ", options.line_width);
    }
  }

  if (!d.matched.empty()) {
    out += "\nKernels in both, per step (largest change first)\n";
    TextTable k({{"kernel", Align::Left}, {"calls A"}, {"calls B"}, {"A"}, {"B"}, {"B − A"}});
    for (const KernelDelta& x : d.matched)
      k.add_row({shorten(x.name, kNameWidth), per_step_calls(x.a_calls), per_step_calls(x.b_calls), human_duration(x.a_ns),
                 human_duration(x.b_ns), signed_time(x.b_ns - x.a_ns)});
    out += k.render(options.max_rows);
  }
  auto only = [&](const char* title, const std::vector<KernelDelta>& list, bool side_a) {
    if (list.empty()) return;
    out += fmt::format("\n{}\n", title);
    TextTable k({{"kernel", Align::Left}, {"calls"}, {"time"}});
    for (const KernelDelta& x : list)
      k.add_row({shorten(x.name, kNameWidth), per_step_calls(side_a ? x.a_calls : x.b_calls), human_duration(side_a ? x.a_ns : x.b_ns)});
    out += k.render(options.max_rows);
  };
  only("Only in A, per step", d.only_a, true);
  only("Only in B, per step", d.only_b, false);
  compile_section(out, d);
  graphs_section(out, d);
  return printable_text(out);
}

}  // namespace whyslow
