// `whyslow explain r0.json r1.json …` (or a folder, or a glob): every rank loaded, analyzed and
// explained on its own thread and reduced to its digest; then the cross-rank passes.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "common/terminal_text.hpp"
#include "pipeline/pipeline.hpp"
#include "report/digest/ranks_job.hpp"
#include "report/ranks_report.hpp"
#include "trace/trace_set.hpp"

namespace whyslow::cli {

bool is_one_trace(const std::vector<std::string>& paths) { return paths.size() == 1 && !is_digest_file(paths[0]); }

namespace {

RankSummary summarize_loaded(Trace&& trace, const CommonOptions& o) {
  const Analyzed x = analyze_loaded(std::move(trace), o);
  return rank_summary(x.trace, x.facts, x.findings);
}

}  // namespace

std::vector<std::string> expand_rank_paths(const std::vector<std::string>& args) {
  return whyslow::expand_rank_paths(args, [](const std::string& note) { fmt::print(stderr, "whyslow: note: {}\n", note); });
}

RankSummary summarize_rank(const std::string& path, const CommonOptions& o) {
  if (is_digest_file(path)) return read_digest_file(path, o.load.max_value_bytes);
  return summarize_loaded(load_with_notes(path, o.load), o);
}

std::vector<RankSummary> summarize_ranks(const std::vector<std::string>& paths, const CommonOptions& o) {
  std::vector<RankSummary> summaries(paths.size());
  std::vector<std::string> traces;
  std::vector<size_t> trace_index;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (is_digest_file(paths[i])) {
      summaries[i] = read_digest_file(paths[i], o.load.max_value_bytes);
    } else {
      traces.push_back(paths[i]);
      trace_index.push_back(i);
    }
  }
  load_each_with_notes(traces, o.load, [&](size_t i, Trace&& trace) {
    summaries[trace_index[i]] = summarize_loaded(std::move(trace), o);
  });
  return summaries;
}

int print_ranks_report(std::vector<RankSummary> summaries, const CommonOptions& o) {
  const RanksReport rep = ranks_of_one_job(std::move(summaries));
  print_output(o.json ? render_ranks_json(rep) : render_ranks_text(rep, o.text.line_width), o.json, o.terminal);
  return 0;
}

int explain_ranks(const CommonOptions& o, const std::vector<std::string>& paths) {
  return print_ranks_report(summarize_ranks(paths, o), o);
}

}  // namespace whyslow::cli
