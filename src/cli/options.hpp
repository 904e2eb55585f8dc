// The options the subcommands share, and the one place each is declared on the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/terminal_style.hpp"
#include "pipeline/pipeline.hpp"
#include "report/text/text_report.hpp"

namespace whyslow::cli {

// The highest step number --step (and the MCP tools' `step`) takes: ProfilerStep#N counts steps of
// one run, and int holds it.
inline constexpr uint64_t kMaxStep = INT32_MAX;

// path, load, step and peaks (--peaks FILE) are the pipeline's (pipeline/pipeline.hpp).
struct CommonOptions : AnalysisOptions {
  TextOptions text;
  bool json = false;
  bool wide = false;       // --wide
  TerminalStyle terminal;  // stdout's, once the command line is parsed (add_text_output)
};

// The trace argument (and --allow-truncated) of a subcommand that reads one trace.
void add_trace_input(CLI::App* cmd, CommonOptions& o);
// --allow-truncated, --max-value-size, --max-events and --max-inflated: how much of a damaged or
// huge trace the loader accepts;
// --quiet: no progress display.
void add_allow_truncated(CLI::App* cmd, CommonOptions& o);
void add_peaks(CLI::App* cmd, CommonOptions& o);
void add_step(CLI::App* cmd, CommonOptions& o);
void add_json(CLI::App* cmd, CommonOptions& o);
// --wide, and stdout's width and colour (terminal_style.hpp) settled once the command is parsed:
// o.terminal, and o.text.line_width for the prose.
void add_text_output(CLI::App* cmd, CommonOptions& o);
// explain's inputs and options, shared by `whyslow explain` and `whyslow-mpi explain`: the traces
// (files, folders, globs, digests), --allow-truncated, --rows, --json, --peaks, --step.
void add_explain_inputs(CLI::App* cmd, CommonOptions& o, std::vector<std::string>& traces);
void add_rows(CLI::App* cmd, CommonOptions& o, const char* what = "rows per table (0: all)");

}  // namespace whyslow::cli
