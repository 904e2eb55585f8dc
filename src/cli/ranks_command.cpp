// `whyslow explain r0.json r1.json …` (or a folder, or a glob): every rank loaded, analyzed and
// explained on its own thread and reduced to its digest; then the cross-rank passes.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "analysis/ranks/rank_digest.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "common/terminal_text.hpp"
#include "pipeline/pipeline.hpp"
#include "explain/explain_ranks.hpp"
#include "report/ranks_report.hpp"
#include "trace/trace_set.hpp"

namespace whyslow::cli {

bool is_one_trace(const std::vector<std::string>& args) {
  std::error_code ec;
  return args.size() == 1 && (std::filesystem::exists(args[0], ec) || args[0].find_first_of("*?[") == std::string::npos) &&
         !std::filesystem::is_directory(args[0], ec) && !is_digest_file(args[0]);
}

namespace {

RankSummary summarize_loaded(Trace&& trace, const CommonOptions& o) {
  const Analyzed x = analyze_loaded(std::move(trace), o);
  RankSummary s{make_digest(x.trace, x.facts, rank_of(x.trace)), {}};
  for (const Finding& f : x.findings) s.findings.push_back({f.id, f.severity, f.title});
  return s;
}

}  // namespace

std::vector<std::string> expand_rank_paths(const std::vector<std::string>& args) {
  return expand_trace_paths(args, [](const std::string& path) {
    if (is_digest_file(path) || holds_trace_events(path)) return true;
    fmt::print(stderr, "whyslow: note: {}: neither a trace nor a digest (no \"traceEvents\"), left out\n",
               printable(path));
    return false;
  });
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
  std::mutex notes;
  load_each(traces, o.load, [&](size_t i, Trace&& trace) {
    {
      std::lock_guard lock(notes);
      print_load_notes(trace);
    }
    summaries[trace_index[i]] = summarize_loaded(std::move(trace), o);
  });
  return summaries;
}

int print_ranks_report(std::vector<RankSummary> summaries, const CommonOptions& o) {
  for (const RankSummary& s : summaries)
    if (s.digest.rank < 0)
      throw UsageError(s.digest.path + ": no rank in distributedInfo nor in the file name (rank-N, workerN)");
  // The report lists ranks in rank order, as cross_rank() does.
  std::stable_sort(summaries.begin(), summaries.end(),
                   [](const RankSummary& a, const RankSummary& b) { return a.digest.rank < b.digest.rank; });
  RanksReport rep;
  std::vector<RankDigest> digests;
  for (RankSummary& s : summaries) {
    rep.rank_findings.push_back(std::move(s.findings));
    digests.push_back(std::move(s.digest));
  }
  try {
    rep.facts = cross_rank(std::move(digests));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  rep.findings = explain_ranks(rep.facts);
  const std::string out = o.json ? render_ranks_json(rep) : render_ranks_text(rep);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int explain_ranks(const CommonOptions& o, const std::vector<std::string>& args) {
  return print_ranks_report(summarize_ranks(expand_rank_paths(args), o), o);
}

}  // namespace whyslow::cli
