// `whyslow report TRACE [-o page.html]`; with a second trace the comparison page; with the traces
// of one job's ranks (files, a folder, a glob) one page of them all.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "pipeline/pipeline.hpp"
#include "report/digest/ranks_job.hpp"
#include "report/html/report.hpp"

namespace whyslow::cli {
namespace {

// "runs/t.json.gz" → "runs/t": the trace's name without the endings torch gives it.
std::filesystem::path without_trace_suffix(const std::string& trace) {
  std::filesystem::path p(trace);
  for (const char* suffix : {".gz", ".json"})
    if (p.extension() == suffix) p.replace_extension();
  return p;
}

// Where the page goes without -o: beside the trace, "t.json.gz" → "t.html"; the comparison page
// beside A, "a.json" and "b.json" → "a-vs-b.html"; the ranks page beside the first, "r0-ranks.html".
// A trace read from a pipe or a device has no "beside": /dev/stdin would give /dev/stdin.html, in
// /dev (as root), so the page must be named.
std::string default_page_path(const std::string& a, const std::string& b, bool ranks) {
  std::error_code error;
  const std::filesystem::file_status input = std::filesystem::status(a, error);  // a missing file: the loader says so
  if (std::filesystem::exists(input) && !std::filesystem::is_regular_file(input))
    throw UsageError(fmt::format("'{}' is not a regular file (a pipe or a device): there is no folder to write the page "
                                 "beside it; name the page with -o",
                                 a));
  std::filesystem::path page = without_trace_suffix(a);
  if (ranks) page += "-ranks";
  else if (!b.empty()) page += "-vs-" + without_trace_suffix(b).filename().string();
  page += ".html";
  return page.string();
}

// The traces say they are ranks of one job: each names its rank in distributedInfo, no two the
// same, and the world sizes agree. (Two runs of one program on one GPU say nothing, or rank 0 twice.)
bool say_they_are_ranks(const std::vector<Analyzed>& traces) {
  std::set<int32_t> ranks;
  for (const Analyzed& x : traces) {
    const DistributedInfo& d = x.trace.distributed;
    if (d.rank < 0 || d.world_size != traces.front().trace.distributed.world_size) return false;
    ranks.insert(d.rank);
  }
  return ranks.size() == traces.size();
}

int write_ranks_page(const std::string& output, const std::vector<Analyzed>& traces, std::vector<std::string> inputs) {
  std::vector<RankSummary> summaries;
  std::vector<HtmlRank> ranks;
  for (const Analyzed& x : traces) {
    summaries.push_back(rank_summary(x.trace, x.facts, x.findings));
    ranks.push_back({x.trace, x.facts, x.findings});
  }
  const RanksReport job = ranks_of_one_job(std::move(summaries));  // LoadError when they are not one job's
  return write_output_file(output, render_html_ranks(ranks, job), std::move(inputs));
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto output = std::make_shared<std::string>();
  auto more = std::make_shared<std::vector<std::string>>();
  auto as_ranks = std::make_shared<bool>(false), as_diff = std::make_shared<bool>(false);
  CLI::App* cmd =
      app.add_subcommand("report", "a self-contained HTML page: the findings drawn on the CPU and GPU lanes, charts");
  cmd->footer("Example:\n  whyslow report trace.json.gz -o report.html");
  add_trace_input(cmd, *o);
  cmd->add_option("-o,--output", *output, "the HTML file to write (default: beside the trace, t.json.gz → t.html; "
                                          "two traces: a-vs-b.html beside A; ranks: r0-ranks.html beside the first)");
  add_peaks(cmd, *o);
  cmd->add_option("more", *more,
                  "more traces: B of a comparison page (A the baseline, B the change), or the other ranks of one job "
                  "(traces whose distributedInfo says so, or with --ranks; a folder or a glob too): one page of all ranks");
  CLI::Option* ranks_flag = cmd->add_flag("--ranks", *as_ranks,
                                          "the traces are one job's ranks (rank from distributedInfo, else the file "
                                          "name: rank-N, workerN): one page, every rank on one time axis");
  cmd->add_flag("--diff", *as_diff, "compare two traces (A the baseline, B the change), even two ranks of one job")
      ->excludes(ranks_flag);
  return {cmd, [o, output, more, as_ranks, as_diff] {
            // Files as given, a folder's or a glob's traces (as `explain` reads a job's ranks).
            std::vector<std::string> args{o->path};
            args.insert(args.end(), more->begin(), more->end());
            const std::vector<std::string> paths = expand_rank_paths(args);
            for (const std::string& path : paths)
              if (is_digest_file(path))
                throw UsageError(path + " is a digest: it holds no events to draw; `report` needs the traces");
            if (paths.size() == 1) {
              o->path = paths.front();
              if (output->empty()) *output = default_page_path(o->path, "", false);
              const Analyzed x = load_and_analyze(*o);
              const int written = write_output_file(*output, render_html(x.trace, x.facts, x.findings), {o->path});
              // The page says the profiler recorded nothing; the exit code says it to a script, as explain's.
              if (written == 0 && x.facts.recording.what == Recorded::Nothing) return kExitNothingRecorded;
              return written;
            }
            if (*as_diff && paths.size() != 2)
              throw UsageError(fmt::format("--diff compares two traces, not {}", paths.size()));
            // Loaded and analyzed in parallel, as `explain` of ranks does; kept whole for the page.
            std::vector<Analyzed> traces(paths.size());
            load_each_with_notes(paths, o->load,
                                 [&](size_t i, Trace&& trace) { traces[i] = analyze_loaded(std::move(trace), *o); });
            const bool ranks = !*as_diff && (*as_ranks || say_they_are_ranks(traces));
            if (!ranks && paths.size() != 2)
              throw UsageError(fmt::format("{} traces that do not say they are ranks of one job (distributedInfo): "
                                           "--ranks if they are, or two traces for a comparison page",
                                           paths.size()));
            if (output->empty()) *output = default_page_path(paths[0], paths[1], ranks);
            if (ranks) return write_ranks_page(*output, traces, paths);
            const Analyzed &a = traces[0], &b = traces[1];
            const Diff d = diff_traces(a.trace, a.facts, b.trace, b.facts);
            return write_output_file(*output, render_html_diff(a.trace, a.facts, a.findings, b.trace, b.facts,
                                                               b.findings, d),
                                     paths);
          }};
}

}  // namespace whyslow::cli
