// The subcommands, one file each. Each adds itself to the app and returns what runs it; the
// runner returns the exit code (0 done, 1 bad usage, 2 the trace cannot be read) and may throw
// LoadError (→ 2) or UsageError / std::runtime_error (→ 1), which main() reports.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace whyslow::cli {

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

// `explain` of several ranks (ranks_command.cpp); is_one_trace: the arguments name one file.
bool is_one_trace(const std::vector<std::string>& args);
struct CommonOptions;
int explain_ranks(const CommonOptions& o, const std::vector<std::string>& args);

// Writes a whole output file (report) that must not replace any of `inputs`; says so on stderr.
// Exit code 1 when it cannot be written.
int write_output_file(const std::string& path, const std::string& text, std::vector<std::string> inputs);

// `rc` once stdout is flushed; when a write to it failed (a full disk, /dev/full), says so on
// stderr and returns 1 (or `rc` if that is already an error): a report cut short is no success.
int finish_stdout(int rc);

}  // namespace whyslow::cli
