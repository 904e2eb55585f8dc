// whyslow: explains GPU profiler traces. Each subcommand runs load → analyze → explain → render.
// Exit codes: 0 success, 1 bad usage, 2 the trace could not be read (the message says where).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <optional>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/annotate_trace.hpp"
#include "report/diff_report.hpp"
#include "report/html_report.hpp"
#include "report/report.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/slice_trace.hpp"

namespace {

struct Args {
  std::string path;
  whyslow::LoadOptions load;
  whyslow::TextOptions text;
  bool json = false;
  int step = -1;  // ProfilerStep#N to focus on; -1: the whole trace
  std::string peaks;  // --peaks FILE: measured ceilings for the roofline
};

void add_max_value_size(CLI::App* cmd, Args& a) {
  cmd->add_option_function<size_t>("--max-value-size", [&a](size_t mib) { a.load.max_value_bytes = mib << 20; },
                                   "largest single event or value to load, in MiB (default 64)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
}

// `report` and `annotate`: one trace in, one file out.
void add_trace_input(CLI::App* cmd, Args& a) {
  cmd->add_option("trace", a.path, "trace file: Kineto / Chrome-trace JSON, plain or .gz")
      ->required();  // a missing file is reported by the loader, with exit code 2 like any unreadable trace
  cmd->add_flag("--allow-truncated", a.load.allow_truncated,
                "analyze the complete events of a truncated trace instead of failing");
  add_max_value_size(cmd, a);
}

void add_peaks(CLI::App* cmd, Args& a) {
  cmd->add_option("--peaks", a.peaks, "measured ceilings (JSON, as tools/measure_ceilings.py writes) to hold kernels "
                  "against besides the datasheet's");
}

void add_output_command(CLI::App* cmd, Args& a, std::string& output, const char* what) {
  add_trace_input(cmd, a);
  cmd->add_option("-o,--output", output, what)->required();
  add_peaks(cmd, a);
}

// Exit code 1 (bad usage) when the path cannot be written.
int write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    fmt::print(stderr, "whyslow: error: cannot write {}: check that its folder exists and is writable\n", path);
    return 1;
  }
  fmt::print("whyslow: wrote {} ({:.1f} MB)\n", path, static_cast<double>(text.size()) / 1e6);
  return 0;
}

void add_common(CLI::App* cmd, Args& a, bool with_json) {
  add_trace_input(cmd, a);
  cmd->add_option("--rows", a.text.max_rows, "rows per table (0: all)")->capture_default_str();
  if (with_json) {
    cmd->add_flag("--json", a.json, "print JSON (schema: docs/JSON.md) instead of text");
    add_peaks(cmd, a);
    cmd->add_option("--step", a.step, "analyze only ProfilerStep#N: its CPU events and the GPU work it launched")
        ->check(CLI::NonNegativeNumber);
  }
}

// The window of ProfilerStep#N, or a message listing the steps the trace has.
std::optional<std::pair<int64_t, int64_t>> step_window(const whyslow::Trace& t, int n, std::string& error) {
  const std::string wanted = "ProfilerStep#" + std::to_string(n);
  std::string present;
  for (whyslow::EventId e = 0; e < t.size(); ++e) {
    const std::string_view name = t.name_of(e);
    if (name.substr(0, 13) != "ProfilerStep#" || t.kind[e] == whyslow::EventKind::GpuUserAnnotation) continue;
    if (name == wanted) return std::make_pair(t.start_ns[e], t.end_ns(e));
    present += (present.empty() ? "" : ", ") + std::string(name.substr(12));
  }
  error = fmt::format("{} has no {}; {}", t.path, wanted,
                      present.empty() ? "it has no ProfilerStep annotations at all" : "its steps are " + present);
  return std::nullopt;
}

void print_truncation_note(const whyslow::Trace& t) {
  if (t.truncated)
    fmt::print(stderr,
               "whyslow: warning: {} is truncated at byte {}; analyzing what came before the cut ({} events "
               "loaded)\n",
               t.path, t.truncated_at_byte, t.size());
  if (t.replaced_control_chars > 0)
    fmt::print(stderr, "whyslow: warning: {} has {} raw control characters inside strings (invalid JSON); "
               "read them as spaces\n", t.path, t.replaced_control_chars);
}

// Two traces through load → analyze, for `diff` and the comparison page.
struct TracePair {
  whyslow::Trace ta, tb;
  whyslow::Facts fa, fb;
};

TracePair load_pair(const Args& a, const std::string& path_b) {
  TracePair p{whyslow::load_trace(a.path, a.load), {}, {}, {}};
  print_truncation_note(p.ta);
  p.tb = whyslow::load_trace(path_b, a.load);
  print_truncation_note(p.tb);
  p.fa = whyslow::analyze(p.ta);
  p.fb = whyslow::analyze(p.tb);
  return p;
}

// `whyslow diff A B`, and `whyslow report A B -o FILE` (the comparison page) when `output` is set.
int run_comparison(const Args& a, const std::string& path_b, const std::string* output) {
  try {
    const TracePair p = load_pair(a, path_b);
    const whyslow::Diff d = whyslow::diff_traces(p.ta, p.fa, p.tb, p.fb);
    if (output)
      return write_file(*output, whyslow::render_html_diff(p.ta, p.fa, whyslow::explain(p.ta, p.fa), p.tb, p.fb,
                                                           whyslow::explain(p.tb, p.fb), d));
    const std::string out = a.json ? whyslow::render_diff_json(d) : whyslow::render_diff_text(d, a.text);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } catch (const whyslow::LoadError& e) {
    fmt::print(stderr, "whyslow: error: {}\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"whyslow: reads a torch.profiler / Kineto trace and says, with numbers, why the program is slow"};
  app.require_subcommand(1);
  Args a;
  auto* explain = app.add_subcommand("explain", "findings and the steps, kernels, ops and annotation tables");
  add_common(explain, a, true);
  auto* ops = app.add_subcommand("ops", "the op table, with torch's key_averages() semantics");
  add_common(ops, a, true);
  auto* kernels = app.add_subcommand("kernels", "the kernel table: calls, time, launch configuration");
  add_common(kernels, a, true);
  auto* info = app.add_subcommand("info", "what the trace holds: events, tracks, devices");
  add_common(info, a, false);
  auto* diff = app.add_subcommand("diff", "compare two traces (before/after, eager/torch.compile): did the change pay?");
  std::string path_b;
  diff->add_option("a", a.path, "trace A (the baseline)")->required();
  diff->add_option("b", path_b, "trace B (the change)")->required();
  diff->add_flag("--json", a.json, "print JSON (schema: docs/JSON.md) instead of text");
  diff->add_flag("--allow-truncated", a.load.allow_truncated, "analyze the complete events of truncated traces");
  add_max_value_size(diff, a);
  diff->add_option("--rows", a.text.max_rows, "rows per kernel table (0: all)")->capture_default_str();
  std::string output, report_b;
  auto* report = app.add_subcommand("report", "a self-contained HTML page: the findings drawn on the CPU and GPU lanes, charts");
  add_output_command(report, a, output, "the HTML file to write");
  report->add_option("b", report_b, "a second trace: the comparison page (A the baseline, B the change)");
  auto* annotate = app.add_subcommand("annotate", "the trace with a \"whyslow findings\" track added, for Perfetto");
  add_output_command(annotate, a, output, "the trace to write: .json, or .json.gz to compress it");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  }
  if (diff->parsed()) return run_comparison(a, path_b, nullptr);
  if (report->parsed() && !report_b.empty()) return run_comparison(a, report_b, &output);

  try {
    whyslow::Trace trace = whyslow::load_trace(a.path, a.load);
    print_truncation_note(trace);
    if (a.step >= 0) {
      std::string error;
      const auto window = step_window(trace, a.step, error);
      if (!window) {
        fmt::print(stderr, "whyslow: error: {}\n", error);
        return 1;
      }
      trace = whyslow::slice_trace(trace, window->first, window->second);
    }
    if (info->parsed()) {
      fmt::print("{}: {} events on {} tracks, {} devices, {} bytes of JSON\n", trace.path, trace.size(),
                 trace.tracks.size(), trace.devices.size(), trace.input_bytes);
      for (const whyslow::Track& t : trace.tracks)
        fmt::print("  {:<5} pid {:<8} tid {:<12} {:>9} events  {}\n",
                   t.kind == whyslow::TrackKind::Cpu ? "cpu" : t.kind == whyslow::TrackKind::Gpu ? "gpu" : "other",
                   t.pid, t.tid, t.events.size(), t.name);
      return 0;
    }
    std::optional<whyslow::Ceilings> measured;
    if (!a.peaks.empty()) {
      try {
        measured = whyslow::load_ceilings_file(a.peaks);
      } catch (const std::runtime_error& e) {
        fmt::print(stderr, "whyslow: error: {}\n", e.what());
        return 1;
      }
    }
    const whyslow::Facts facts = whyslow::analyze(trace, {measured ? &*measured : nullptr});
    const std::vector<whyslow::Finding> findings = whyslow::explain(trace, facts);
    if (report->parsed()) return write_file(output, whyslow::render_html(trace, facts, findings));
    if (annotate->parsed()) {
      whyslow::write_annotated_trace(a.path, output, trace, facts, findings);
      fmt::print("whyslow: wrote {} with a \"whyslow findings\" track ({} findings)\n", output, findings.size());
      return 0;
    }
    std::string out;
    if (a.json) out = whyslow::render_json(trace, facts, findings);
    else if (explain->parsed()) out = whyslow::render_explain_text(trace, facts, findings, a.text);
    else if (ops->parsed()) out = whyslow::render_ops_text(facts, a.text);
    else out = whyslow::render_kernels_text(trace, facts, a.text);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } catch (const whyslow::LoadError& e) {
    fmt::print(stderr, "whyslow: error: {}\n", e.what());
    return 2;
  } catch (const std::runtime_error& e) {  // an output that cannot be written
    fmt::print(stderr, "whyslow: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
