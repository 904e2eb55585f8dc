#include "cli/options.hpp"

#include "cli/load_progress.hpp"

namespace whyslow::cli {

void add_trace_input(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("trace", o.path, "trace file: Kineto / Chrome-trace JSON, plain or .gz")
      ->required();  // a missing file is reported by the loader, with exit code 2 like any unreadable trace
  add_allow_truncated(cmd, o);
}

void add_allow_truncated(CLI::App* cmd, CommonOptions& o) {
  cmd->add_flag("--allow-truncated", o.load.allow_truncated,
                "analyze the complete events of a truncated trace instead of failing");
  cmd->add_option_function<size_t>("--max-value-size", [&o](size_t mib) { o.load.max_value_bytes = mib << 20; },
                                   "largest single event or value to load, in MiB (default 64)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  o.progress = terminal_load_progress;
  cmd->add_flag_callback("--quiet", [&o] { o.progress = nullptr; },
                         "no progress display on stderr while a large trace loads");
}

void add_peaks(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--peaks", o.peaks, "measured ceilings (JSON, as tools/measure_ceilings.py writes) to hold kernels "
                  "against besides the datasheet's");
}

void add_step(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--step", o.step, "analyze only ProfilerStep#N: its CPU events and the GPU work it launched")
      ->check(CLI::NonNegativeNumber);
}

void add_json(CLI::App* cmd, CommonOptions& o) {
  cmd->add_flag("--json", o.json, "print JSON (schema: docs/JSON.md) instead of text");
}

void add_text_output(CLI::App* cmd, CommonOptions& o) {
  cmd->add_flag("--wide", o.wide, "lines as long as they are (prose at 100 columns), not cut at the terminal's width");
  cmd->parse_complete_callback([&o] {
    o.terminal = stdout_style(o.wide);
    o.text.line_width = prose_width(o.terminal);
  });
}

void add_explain_inputs(CLI::App* cmd, CommonOptions& o, std::vector<std::string>& traces) {
  cmd->add_option("trace", traces, "trace file(s): Kineto / Chrome-trace JSON, plain or .gz; several, a folder or a "
                                   "glob: one per rank (a digest counts as a rank: docs/DIGEST.md)")
      ->required();
  add_allow_truncated(cmd, o);
  add_rows(cmd, o);
  add_json(cmd, o);
  add_text_output(cmd, o);
  add_peaks(cmd, o);
  add_step(cmd, o);
}

void add_rows(CLI::App* cmd, CommonOptions& o, const char* what) {
  cmd->add_option("--rows", o.text.max_rows, what)->capture_default_str();
}

}  // namespace whyslow::cli
