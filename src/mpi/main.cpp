// whyslow-mpi: `mpirun -n K whyslow-mpi explain TRACES… [--json]` — the rank files split over the K
// processes by size (partition.cpp), each reduced where it lies to its digest, the digests gathered
// to process 0 (gather.cpp), which prints exactly what `whyslow explain TRACES…` prints.
// Exit codes as whyslow's: 0 done, 1 bad usage, 2 a trace could not be read (every file that
// could not be read is named; nobody hangs). Every process parses process 0's command line and
// exits with process 0's status (command_line.hpp).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/help_formatter.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "common/terminal_text.hpp"
#include "mpi/command_line.hpp"
#include "mpi/gather.hpp"
#include "mpi/inputs.hpp"
#include "mpi/partition.hpp"
#include "report/digest/digest_file.hpp"
#include "report/digest/ranks_job.hpp"
#include "report/json/schema.hpp"
#include "report/ranks_report.hpp"
#include "trace/load_error.hpp"
#include "trace/trace_set.hpp"

namespace {

using namespace whyslow;

// This process's share: each file summarized alone, its error kept as its result, so one bad file
// costs its own line in the report and nothing else. From process 0's working folder, where the
// relative paths are; a process that cannot go there fails each of its files, naming the folder.
std::vector<mpi::FileResult> summarize_share(const mpi::InputList& inputs, const std::vector<size_t>& mine,
                                             const cli::CommonOptions& o) {
  std::error_code ec;
  if (!inputs.folder.empty() && std::filesystem::current_path(ec) != inputs.folder)
    std::filesystem::current_path(inputs.folder, ec);
  std::vector<mpi::FileResult> results;
  for (const size_t i : mine) {
    mpi::FileResult r{i, false, {}};
    if (ec) {
      r.bytes = printable(inputs.paths[i]) + ": cannot be read from process 0's working folder " +
                printable(inputs.folder) + ": " + ec.message();
      results.push_back(std::move(r));
      continue;
    }
    try {
      r.bytes = render_digest_json(cli::summarize_rank(inputs.paths[i], o));
      r.ok = true;
    } catch (const std::exception& e) {  // LoadError, a usage error found in the file, bad_alloc
      r.bytes = e.what();
    }
    results.push_back(std::move(r));
  }
  return results;
}

// Process 0: the digests back into summaries, then the report, on stdout or into `output`.
// Returns the exit code.
int report(const std::vector<std::string>& paths, const std::vector<mpi::FileResult>& results,
           const cli::CommonOptions& o, const std::string& output) {
  std::vector<RankSummary> summaries;
  int rc = 0;
  for (const mpi::FileResult& r : results) {
    if (!r.ok) {
      fmt::print(stderr, "whyslow-mpi: error: {}\n", r.bytes);
      rc = 2;
      continue;
    }
    summaries.push_back(parse_digest_json(r.bytes, paths[r.file]));
  }
  if (rc != 0) return rc;
  if (output.empty()) return cli::finish_stdout(cli::print_ranks_report(std::move(summaries), o));
  const RanksReport rep = ranks_of_one_job(std::move(summaries));
  return cli::write_output_file(output, o.json ? render_ranks_json(rep) : render_ranks_text(rep, o.text.line_width), paths);
}

int run(const std::vector<std::string>& command_line, int rank, int processes) {
  CLI::App app{"whyslow-mpi: whyslow explain of a job's rank traces, read by the processes of an MPI job", "whyslow-mpi"};
  app.formatter(cli::stdout_help_formatter());  // before the subcommand: it takes a copy
  app.require_subcommand(1);
  app.set_version_flag("--version", "whyslow-mpi " + std::string(kWhyslowVersion));
  cli::CommonOptions o;
  std::vector<std::string> args;
  CLI::App* cmd = app.add_subcommand("explain", "the ranks' table, the straggler and each rank's findings");
  cmd->footer("Example:\n  mpirun -n 8 whyslow-mpi explain 'rank-*.json.gz'");
  cli::add_explain_inputs(cmd, o, args);
  std::string output;
  cmd->add_option("-o,--output", output,
                  "write the report into FILE, whole or not at all, instead of stdout: mpirun forwards "
                  "process 0's stdout and exits 0 even where it could not write it (a full disk)");
  std::vector<char*> argv = {const_cast<char*>("whyslow-mpi")};
  for (const std::string& a : command_line) argv.push_back(const_cast<char*>(a.c_str()));
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // Every process parses process 0's arguments, so all of them stop here alike; one prints.
    if (rank != 0) return e.get_exit_code() == 0 ? 0 : 1;
    const int rc = app.exit(e);
    return cli::finish_stdout(rc == 0 ? 0 : 1);  // --help into /dev/full is an error too
  }
  // mpirun gives each process a pty of its own, not the user's terminal: whyslow-mpi prints what
  // `whyslow explain` prints into a pipe (no width, no colour), whatever its stdout claims to be.
  o.terminal = cli::pipe_style(o.wide);
  o.text.line_width = o.terminal.prose_width;
  // Process 0 expands the arguments and sizes the files (one shared filesystem) and tells the
  // others, so all compute the same split, or all stop, together.
  const mpi::InputList inputs = mpi::agree_on_inputs(
      [&] {
        mpi::InputList list;
        try {
          list.paths = cli::expand_rank_paths(args);
        } catch (const std::exception& e) {  // LoadError (nothing matches), a folder that cannot be listed
          list.error = e.what();
        }
        for (const std::string& p : list.paths) {
          std::error_code ec;
          const auto size = std::filesystem::file_size(p, ec);
          list.sizes.push_back(ec ? 0 : size);  // a file that cannot be sized fails when read, with its name
        }
        return list;
      },
      MPI_COMM_WORLD);
  if (!inputs.error.empty()) {
    if (rank == 0) fmt::print(stderr, "whyslow-mpi: error: {}\n", inputs.error);
    return 2;
  }
  const std::vector<std::string>& paths = inputs.paths;
  const auto share = mpi::partition_by_size(inputs.sizes, processes)[static_cast<size_t>(rank)];
  const auto results = mpi::gather_results(summarize_share(inputs, share, o), MPI_COMM_WORLD);
  if (rank != 0) return 0;
  try {
    return report(paths, results, o, output);
  } catch (const LoadError& e) {
    fmt::print(stderr, "whyslow-mpi: error: {}\n", e.what());
    return 2;
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "whyslow-mpi: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  int rc = 1;
  try {
    rc = run(mpi::agree_on_command_line(argc, argv, MPI_COMM_WORLD), rank, processes);
  } catch (const std::exception& e) {  // the gather itself failed: every process throws alike
    if (rank == 0) fmt::print(stderr, "whyslow-mpi: error: {}\n", e.what());
    rc = 1;
  }
  rc = mpi::agree_on_exit_status(rc, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
