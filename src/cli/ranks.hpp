// `explain` of a job's ranks, in the pieces whyslow-mpi shares: each rank file (a trace or a
// digest) reduced to its summary, and the report from the summaries.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "report/digest/digest_file.hpp"

namespace whyslow::cli {

// expand_trace_paths with a folder's files that are neither a trace nor a digest (the truth.json
// tools/make_rank_traces.py writes beside its ranks) left out, each with a note on stderr.
std::vector<std::string> expand_rank_paths(const std::vector<std::string>& args);
// A digest file read back, or a trace loaded (its notes on stderr), analyzed and digested.
RankSummary summarize_rank(const std::string& path, const CommonOptions& o);
// Every path summarized, the traces loaded in parallel (trace_set.hpp); in `paths` order.
std::vector<RankSummary> summarize_ranks(const std::vector<std::string>& paths, const CommonOptions& o);
// The cross-rank passes and rules over the summaries (ranks_of_one_job: LoadError when they are
// not one job's ranks), printed as text or JSON.
int print_ranks_report(std::vector<RankSummary> summaries, const CommonOptions& o);

}  // namespace whyslow::cli
