#include "cli/options.hpp"

#include <charconv>
#include <cstdint>
#include <string>

#include "cli/load_progress.hpp"

namespace whyslow::cli {
namespace {

// The most rows a table may be asked for: beyond a million a text table is no longer read, and
// the count stays far from size_t's edge ("99999999999999999999" wrapped around before).
constexpr uint64_t kMaxRows = 1'000'000;

// A whole number written in decimal digits, at most `max`: CLI11 alone takes "-1" (wrapped to
// size_t), "0x10" and "1e3" as numbers too.
CLI::Validator whole_number(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        uint64_t n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec == std::errc() && end == text.data() + text.size() && n <= max) return {};  // no sign, no "0x"
        return "must be a whole number from 0 to " + std::to_string(max) + ", in decimal digits";
      },
      "0.." + std::to_string(max));
}

}  // namespace

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
  cmd->add_option_function<uint64_t>("--max-events", [&o](uint64_t n) { o.load.max_events = n; },
                                     "most events a trace may hold (default 33554432)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  cmd->add_option_function<uint64_t>("--max-inflated", [&o](uint64_t mib) { o.load.max_inflated_bytes = mib << 20; },
                                     "most JSON a trace may hold once gunzipped, in MiB (default 65536)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  o.progress = terminal_load_progress;
  cmd->add_flag_callback("--quiet", [&o] { o.progress = nullptr; },
                         "no progress display on stderr while a large trace loads");
}

void add_peaks(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--peaks", o.peaks, "measured ceilings (JSON, as tools/measure_ceilings.py writes) to hold kernels "
                  "against besides the datasheet's")
      ->check(CLI::Validator([](std::string& path) { return path.empty() ? std::string("must name a file") : std::string(); },
                             "FILE"));  // '' is no file, not "no peaks"; the loader says what is wrong with others
}

void add_step(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--step", o.step, "analyze only ProfilerStep#N: its CPU events and the GPU work it launched")
      ->check(whole_number(kMaxStep));
}

void add_json(CLI::App* cmd, CommonOptions& o) {
  cmd->add_flag("--json", o.json, "print JSON (schema: docs/JSON.md) instead of text");
}

void add_text_output(CLI::App* cmd, CommonOptions& o) {
  cmd->add_flag("--wide", o.wide, "lines as long as they are (prose at 100 columns), not cut at the terminal's width");
  cmd->parse_complete_callback([&o] {
    o.terminal = stdout_style(o.wide);
    o.text.line_width = o.terminal.prose_width;
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
  cmd->add_option("--rows", o.text.max_rows, what)->capture_default_str()->check(whole_number(kMaxRows));
}

}  // namespace whyslow::cli
