// whyslow: explains GPU profiler traces. Each subcommand runs load → analyze → explain → render.
// Exit codes: 0 success, 1 bad usage, 2 the trace could not be read (the message says where).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <optional>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
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
};

void add_common(CLI::App* cmd, Args& a, bool with_json) {
  cmd->add_option("trace", a.path, "trace file: Kineto / Chrome-trace JSON, plain or .gz")
      ->required();  // a missing file is reported by the loader, with exit code 2 like any unreadable trace
  cmd->add_flag("--allow-truncated", a.load.allow_truncated,
                "analyze the complete events of a truncated trace instead of failing");
  cmd->add_option("--rows", a.text.max_rows, "rows per table (0: all)")->capture_default_str();
  if (with_json) {
    cmd->add_flag("--json", a.json, "print JSON (schema: docs/JSON.md) instead of text");
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
               "whyslow: warning: {} is truncated at byte {}; analyzing the {} complete events before "
               "the cut\n",
               t.path, t.truncated_at_byte, t.size());
  if (t.replaced_control_chars > 0)
    fmt::print(stderr, "whyslow: warning: {} has {} raw control characters inside strings (invalid JSON); "
               "read them as spaces\n", t.path, t.replaced_control_chars);
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  }

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
    const whyslow::Facts facts = whyslow::analyze(trace);
    const std::vector<whyslow::Finding> findings = whyslow::explain(trace, facts);
    std::string out;
    if (a.json) out = whyslow::render_json(trace, facts, findings);
    else if (explain->parsed()) out = whyslow::render_explain_text(trace, facts, findings, a.text);
    else if (ops->parsed()) out = whyslow::render_ops_text(facts, a.text);
    else out = whyslow::render_kernels_text(trace, facts, a.text);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } catch (const whyslow::LoadError& e) {
    fmt::print(stderr, "whyslow: error: {}\n", e.what());
    return 2;
  }
  return 0;
}
