// The subcommands, one file each. Each adds itself to the app and returns what runs it; the
// runner returns the exit code (0 done, 1 bad usage, 2 the trace cannot be read, 3 `explain` of a
// trace in which the profiler recorded nothing, 4 `diff --fail-if-slower` found B slower) and may throw LoadError (→ 2) or UsageError /
// std::runtime_error (→ 1), which main() reports.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "analysis/graph/what_if.hpp"
#include "pipeline/pipeline.hpp"

namespace whyslow::cli {

// `explain` read the trace and printed its finding (`report` wrote its page), but there was
// nothing in it to explain (the nothing_recorded finding): a script must not take that for an
// all-clear.
inline constexpr int kExitNothingRecorded = 3;
// `diff A B --fail-if-slower PCT`: B is shown slower than A by more than PCT % (diff/ci_gate.cpp). Its
// own status, so a CI job tells a slower change from a trace it could not read (2) or bad usage (1).
inline constexpr int kExitGateFails = 4;

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_explain_command(CLI::App& app);   // tables_commands.cpp
Command add_ops_command(CLI::App& app);       // tables_commands.cpp
Command add_kernels_command(CLI::App& app);   // tables_commands.cpp
Command add_info_command(CLI::App& app);      // info_command.cpp
Command add_diff_command(CLI::App& app);      // diff_command.cpp
Command add_report_command(CLI::App& app);    // report_command.cpp
Command add_annotate_command(CLI::App& app);  // annotate_command.cpp
Command add_digest_command(CLI::App& app);    // digest_command.cpp
Command add_what_if_command(CLI::App& app);   // what_if_command.cpp
Command add_mcp_command(CLI::App& app);       // mcp_command.cpp

// The edits (NAME or NAME=PARAM, as --edit takes them) applied to the analyzed trace together and
// replayed: `what-if` and the MCP server's what_if tool. UsageError for an edit that does not apply.
WhatIfAnswer what_if_edits(const Analyzed& a, const std::vector<std::string>& edits);  // what_if_command.cpp

// `explain` of several ranks (ranks_command.cpp), over the paths the arguments name (files, a
// folder's traces, a glob's matches: trace/trace_set.hpp). is_one_trace: they are one trace file,
// to explain on its own. explain_ranks: the ranks view, or exit code 2 when they are not the
// ranks of one job (several runs: it names `whyslow diff`).
bool is_one_trace(const std::vector<std::string>& paths);
struct CommonOptions;
int explain_ranks(const CommonOptions& o, const std::vector<std::string>& paths);

// Writes a whole output file (report) that must not replace any of `inputs`; says so on stderr.
// Exit code 1 when it cannot be written.
int write_output_file(const std::string& path, const std::string& text, std::vector<std::string> inputs);

// `rc` once stdout is flushed; when a write to it failed (a full disk, /dev/full), says so on
// stderr and returns 1 (or `rc` if that is already an error): a report cut short is no success.
int finish_stdout(int rc);

}  // namespace whyslow::cli
