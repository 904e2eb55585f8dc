// `whyslow explain`: a header saying what was read, the findings (most important first), then
// the tables that hold the numbers behind them.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/steps/steady_steps.hpp"
#include "common/terminal_text.hpp"
#include "common/units.hpp"
#include "report/format.hpp"
#include "report/gpu_words.hpp"
#include "report/text/text_report.hpp"
#include "report/text/severity_marker.hpp"
#include "report/text/tables.hpp"

namespace whyslow {
namespace {

using namespace report;

// "NVIDIA H200", "8 × NVIDIA H200", "no GPU described in the trace".
std::string device_summary(const Trace& trace) {
  if (trace.devices.empty()) return "no GPU described in the trace";
  std::map<std::string, int> count;
  std::vector<std::string> order;
  for (const DeviceInfo& d : trace.devices) {
    const std::string name = d.name.empty() ? "unnamed GPU" : d.name;  // some ROCm traces
    if (count[name]++ == 0) order.push_back(name);
  }
  std::string out;
  for (const std::string& name : order) {
    if (!out.empty()) out += ", ";
    out += count[name] > 1 ? fmt::format("{} × {}", count[name], name) : name;
  }
  return out;
}

std::string step_count(size_t n) {
  if (n == 0) return "no steps";
  return n == 1 ? "1 step" : format_count(n) + " steps";
}

std::string header(const Trace& trace, const Facts& facts, size_t line_width) {
  std::string out = fmt::format("whyslow explain {}\n", trace.path);
  // Each line after the path is prose: wrapped, two columns in, its later lines four.
  const auto line = [&](const std::string& text) { append_wrapped(out, text, "  ", "    ", line_width); };
  line(fmt::format("{} · {} events · {} · trace window {} · {}", device_summary(trace), format_count(trace.size()),
                   step_count(facts.steps.size()), human_duration(facts.window.duration_ns), gpu_summary(facts)));
  if (const TraceKind kind = trace_kind(facts); kind == TraceKind::FirstCall)
    line("kind: a first call — start-up work holds most of the window: no steady-state verdict (see cold_start)");
  else if (kind != TraceKind::Steady)
    line(fmt::format("kind: {} — a warm-up phase: no steady-state verdict (see warmup_trace)",
                     kind == TraceKind::GraphCapture ? "CUDA-graph capture" : "torch.compile compiling"));
  for (const LoopFacts& l : facts.loops)
    if (l.step == kLoopOverWindow)
      line(fmt::format("loop: {} iterations of the main thread's top-level work (no ProfilerStep){}: the first {}, the "
                       "rest a median {}",
                       l.iteration_count, is_decode(l) ? ", one forward each: a generate()'s prefill and decode passes" : "",
                       human_duration(l.iterations.front().duration_ns), human_duration(l.median_ns)));
  if (facts.window.comm_ns > 0)
    line(fmt::format("communication: {} communication kernels · comm {} · exposed (no compute running) {} · compute {}",
                     format_count(facts.comm.calls.size()), human_duration(facts.window.comm_ns),
                     human_duration(facts.window.exposed_comm_ns), human_duration(facts.window.compute_ns)));
  if (trace.truncated)
    line(fmt::format("truncated at byte {}: only the complete events before the cut are analyzed",
                     format_count(trace.truncated_at_byte)));
  if (trace.repaired_op_links > 0)
    line(fmt::format("{} kernels/copies relinked: the op their External id names does not enclose the launch",
                     format_count(trace.repaired_op_links)));
  return out;
}

// Code to paste: its caption wrapped, its lines verbatim (never re-wrapped, so it pastes as
// written), indented under the caption.
void append_code(std::string& out, const std::vector<CodeSnippet>& code, size_t line_width) {
  const std::string caption = std::string(kFindingIndent) + "paste: ", hang(display_width(caption), ' ');
  for (const CodeSnippet& c : code) {
    append_wrapped(out, c.caption, caption, hang, line_width);
    std::string_view text = c.text;
    while (!text.empty()) {
      const size_t nl = text.find('\n');
      const std::string_view line = text.substr(0, nl);
      if (!line.empty()) out += hang + "    " + std::string(line);
      out += '\n';
      text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    }
  }
}

// The detail paragraph, line by line: a line keeps its leading spaces, and a "- " bullet
// wraps under its own text.
void append_detail(std::string& out, std::string_view detail, size_t line_width) {
  while (!detail.empty()) {
    const size_t nl = detail.find('\n');
    std::string_view line = detail.substr(0, nl);
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    line.remove_prefix(lead);
    const std::string first = std::string(kFindingIndent) + std::string(lead, ' ');
    const std::string rest = first + (line.starts_with("- ") ? "  " : "");
    append_wrapped(out, line, first, rest, line_width);
    detail.remove_prefix(nl == std::string_view::npos ? detail.size() : nl + 1);
  }
}

// Nanoseconds per unit of the time units a rule may give evidence in.
int64_t ns_per(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  return 0;
}

// "step = 96.3 ms", "ratio = 45×", "launches = 12", "bandwidth = 3.2 GB/s". Times are shown in
// a readable unit, so the unit suffix of the key ("step_us") goes; JSON keeps key and unit.
std::string evidence_pair(const Evidence& e) {
  if (const int64_t scale = ns_per(e.unit); scale > 0) {
    std::string_view key = e.key;
    if (key.ends_with("_" + e.unit)) key.remove_suffix(e.unit.size() + 1);
    return fmt::format("{} = {}", key, human_duration(std::llround(e.value * static_cast<double>(scale))));
  }
  const std::string value = format_number(e.value);
  if (e.unit.empty() || e.unit == "count") return fmt::format("{} = {}", e.key, value);
  if (e.unit == "x") return fmt::format("{} = {}×", e.key, value);
  if (e.unit == "bytes") {
    std::string_view key = e.key;
    if (key.ends_with("_bytes")) key.remove_suffix(6);
    return fmt::format("{} = {}", key, human_bytes(std::llround(e.value)));
  }
  return fmt::format("{} = {} {}", e.key, value, e.unit);
}

// Pairs joined with ", ", broken between pairs so a pair is never split across lines.
void append_evidence(std::string& out, const std::vector<Evidence>& evidence, size_t line_width) {
  if (evidence.empty()) return;
  const std::string lead = std::string(kFindingIndent) + "evidence: ";
  const std::string cont(display_width(lead), ' ');
  std::string line = lead;
  bool line_empty = true;
  for (size_t i = 0; i < evidence.size(); ++i) {
    const std::string pair = evidence_pair(evidence[i]) + (i + 1 < evidence.size() ? "," : "");
    if (!line_empty && display_width(line) + 1 + display_width(pair) > line_width) {
      out += line + '\n';
      line = cont;
      line_empty = true;
    }
    if (!line_empty) line += ' ';
    line += pair;
    line_empty = false;
  }
  out += line + '\n';
}

// The proving events, aligned: name, start from the window start, duration, role.
void append_events(std::string& out, const Trace& trace, const Facts& facts, const std::vector<EventRef>& refs) {
  struct Row {
    std::string name, start, dur, role;
  };
  std::vector<Row> rows;
  for (const EventRef& r : refs) {
    if (r.event >= trace.size()) continue;  // a rule that found no event leaves kNoEvent
    rows.push_back({shorten(trace.name_of(r.event), kNameWidth),
                    fmt::format("+{}", human_duration(trace.start_ns[r.event] - facts.window.start_ns)),
                    human_duration(trace.dur_ns[r.event]), r.role});
  }
  if (rows.empty()) return;
  size_t name_w = 0, start_w = 0, dur_w = 0;
  for (const Row& r : rows) {
    name_w = std::max(name_w, display_width(r.name));
    start_w = std::max(start_w, display_width(r.start));
    dur_w = std::max(dur_w, display_width(r.dur));
  }
  out += std::string(kFindingIndent) + "events:\n";
  for (const Row& r : rows) {
    std::string line = std::string(kFindingIndent) + "  " + r.name;
    line.append(name_w - display_width(r.name), ' ');
    line += "  at ";
    line.append(start_w - display_width(r.start), ' ');
    line += r.start + "  lasting ";
    line.append(dur_w - display_width(r.dur), ' ');
    line += r.dur;
    if (!r.role.empty()) line += "  (" + r.role + ")";
    out += line + '\n';
  }
}

// A finding: its title; unless `brief`, the detail, evidence and events; the fix replayed and what
// to try; unless `brief`, the code to paste.
void append_finding(std::string& out, const Trace& trace, const Facts& facts, const Finding& f, size_t line_width,
                    bool brief) {
  append_wrapped(out, fmt::format("[{}] {}", to_string(f.id), f.title), fmt::format("{} ", severity_marker(f.severity)), kFindingIndent,
                 line_width);
  if (!brief) {
    append_detail(out, f.detail, line_width);
    append_evidence(out, f.evidence, line_width);
    append_events(out, trace, facts, f.events);
  }
  if (f.what_if) {
    const WhatIf& w = *f.what_if;
    const double change = w.step_ns > 0 ? static_cast<double>(w.predicted_step_ns - w.step_ns) / static_cast<double>(w.step_ns) : 0;
    append_wrapped(out,
                   fmt::format("the fix, replayed: {}: {} → {} ({:+.0f} %): {}", w.scope, human_duration(w.step_ns),
                               human_duration(w.predicted_step_ns), change * 100, w.change),
                   std::string(kFindingIndent), std::string(kFindingIndent), line_width);
  }
  if (!f.try_next.empty()) {
    out += std::string(kFindingIndent) + "try:\n";
    const std::string bullet = std::string(kFindingIndent) + "  - ", hang(display_width(bullet), ' ');
    for (const std::string& t : f.try_next) append_wrapped(out, t, bullet, hang, line_width);
  }
  if (!brief) append_code(out, f.code, line_width);
}

}  // namespace

std::string render_explain_text(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings,
                                const TextOptions& options) {
  std::string out = header(trace, facts, options.line_width);
  out += '\n';
  if (findings.empty()) {
    out += "No problems found: no rule matched this trace. The tables below show where the time went.\n\n";
  } else {
    out += fmt::format("Findings ({}), most important first: {}\n\n", findings.size(), kSeverityLegend);
    for (const Finding& f : findings) {
      append_finding(out, trace, facts, f, options.line_width, options.brief);
      out += '\n';
    }
  }
  if (const std::string w = what_if_table(facts, options.line_width); !w.empty()) out += w + '\n';
  if (options.brief) {
    out += "(--brief: without it, each finding's evidence and events, and the tables behind them)\n";
    return printable_text(out);
  }
  const size_t rows = options.max_rows, width = options.line_width;
  if (const std::string p = pace_table(facts, rows, width); !p.empty()) out += p + '\n';
  out += steps_table(facts, width) + '\n';
  if (const std::string loops = loops_table(trace, facts, width); !loops.empty()) out += loops + '\n';
  out += memory_table(trace, facts, width) + '\n';
  if (const std::string cpu = cpu_time_table(trace, facts, width); !cpu.empty()) out += cpu + '\n';
  out += kernels_table(trace, facts, rows, width) + '\n';
  out += roofline_table(trace, facts, rows, width) + '\n';
  out += ops_table(facts, rows, width) + '\n';
  out += annotations_table(facts, rows, width);
  if (const std::string blocks = blocks_table(trace, facts, rows, width); !blocks.empty()) out += '\n' + blocks;
  return printable_text(out);
}

}  // namespace whyslow
