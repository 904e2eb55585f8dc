// `whyslow explain r0.json r1.json …` (or a folder, or a glob): every rank loaded, analyzed and
// explained on its own thread and reduced to its digest; then the cross-rank passes.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "analysis/ranks/rank_digest.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "pipeline/pipeline.hpp"
#include "explain/explain_ranks.hpp"
#include "report/ranks_report.hpp"
#include "trace/trace_set.hpp"

namespace whyslow::cli {

bool is_one_trace(const std::vector<std::string>& args) {
  std::error_code ec;
  return args.size() == 1 && (std::filesystem::exists(args[0], ec) || args[0].find_first_of("*?[") == std::string::npos) &&
         !std::filesystem::is_directory(args[0], ec);
}

int explain_ranks(const CommonOptions& o, const std::vector<std::string>& args) {
  const std::vector<std::string> paths = expand_trace_paths(args);
  std::vector<RankDigest> digests(paths.size());
  std::vector<std::vector<RankFindingLine>> lines(paths.size());
  std::mutex notes;
  load_each(paths, o.load, [&](size_t i, Trace&& trace) {
    {
      std::lock_guard lock(notes);
      print_load_notes(trace);
    }
    const Analyzed x = analyze_loaded(std::move(trace), o);
    digests[i] = make_digest(x.trace, x.facts, rank_of(x.trace));
    for (const Finding& f : x.findings) lines[i].push_back({f.id, f.severity, f.title});
  });
  for (size_t i = 0; i < paths.size(); ++i)
    if (digests[i].rank < 0)
      throw UsageError(paths[i] + ": no rank in distributedInfo nor in the file name (rank-N, workerN)");
  // The report lists ranks in rank order, as cross_rank() does.
  std::vector<size_t> order(paths.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return digests[a].rank < digests[b].rank; });
  RanksReport rep;
  for (size_t i : order) rep.rank_findings.push_back(std::move(lines[i]));
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

}  // namespace whyslow::cli
