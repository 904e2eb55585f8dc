#include "report/digest/ranks_job.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "common/terminal_text.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/trace_set.hpp"

namespace whyslow {
namespace {

[[noreturn]] void throw_not_one_job(size_t traces, const std::string& why) {
  throw LoadError(LoadError::Kind::Schema,
                  fmt::format("{} traces that are not the ranks of one job ({}): explain them one at a time "
                              "(whyslow explain TRACE), or compare two runs with `whyslow diff A B`",
                              traces, why),
                  0);
}

}  // namespace

std::vector<std::string> expand_rank_paths(const std::vector<std::string>& args,
                                           const std::function<void(const std::string&)>& left_out) {
  return expand_trace_paths(args, [&](const std::string& path) {
    if (is_digest_file(path) || holds_trace_events(path)) return true;
    left_out(printable(path) + ": neither a trace nor a digest (no \"traceEvents\"), left out");
    return false;
  });
}

RankSummary rank_summary(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings) {
  RankSummary s{make_digest(trace, facts, rank_of(trace)), {}};
  for (const Finding& f : findings) s.findings.push_back({f.id, f.severity, f.title});
  return s;
}

RanksReport ranks_of_one_job(std::vector<RankSummary> summaries) {
  for (const RankSummary& s : summaries)
    if (s.digest.rank < 0)
      throw_not_one_job(summaries.size(),
                        named_file(s.digest) + " has no rank in distributedInfo nor in its file name (rank-N, workerN)");
  // The report lists ranks in rank order, as cross_rank() does.
  std::stable_sort(summaries.begin(), summaries.end(),
                   [](const RankSummary& a, const RankSummary& b) { return a.digest.rank < b.digest.rank; });
  for (size_t i = 1; i < summaries.size(); ++i)
    if (summaries[i].digest.rank == summaries[i - 1].digest.rank)
      throw_not_one_job(summaries.size(), fmt::format("{} and {} are both rank {}", named_file(summaries[i - 1].digest),
                                                      named_file(summaries[i].digest), summaries[i].digest.rank));
  RanksReport rep;
  std::vector<RankDigest> digests;
  for (RankSummary& s : summaries) {
    rep.rank_findings.push_back(std::move(s.findings));
    digests.push_back(std::move(s.digest));
  }
  // Distinct ranks, checked above; cross_rank() refuses the rest (world sizes that disagree, clocks
  // that cannot be lined up): the inputs' fault, told as such, not an abort.
  try {
    rep.facts = cross_rank(std::move(digests));
  } catch (const std::invalid_argument& e) {
    throw_not_one_job(summaries.size(), e.what());
  }
  rep.findings = explain_ranks(rep.facts);
  return rep;
}

}  // namespace whyslow
