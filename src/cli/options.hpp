// The options the subcommands share, and the one place each is declared on the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "report/text/text_report.hpp"
#include "trace/load_trace.hpp"

namespace whyslow::cli {

struct CommonOptions {
  std::string path;
  LoadOptions load;
  TextOptions text;
  bool json = false;
  int step = -1;      // ProfilerStep#N to focus on; -1: the whole trace
  std::string peaks;  // --peaks FILE: measured ceilings for the roofline
  bool quiet = false; // --quiet: no progress display while loading
};

// The trace argument (and --allow-truncated) of a subcommand that reads one trace.
void add_trace_input(CLI::App* cmd, CommonOptions& o);
// --allow-truncated and --max-value-size: how much of a damaged or huge trace the loader accepts;
// --quiet: no progress display.
void add_allow_truncated(CLI::App* cmd, CommonOptions& o);
void add_peaks(CLI::App* cmd, CommonOptions& o);
void add_step(CLI::App* cmd, CommonOptions& o);
void add_json(CLI::App* cmd, CommonOptions& o);
void add_rows(CLI::App* cmd, CommonOptions& o, const char* what = "rows per table (0: all)");

}  // namespace whyslow::cli
