// From ranks' summaries to the report of their job: what `whyslow explain` of several traces and
// `whyslow.explain(folder)` share, the check that they are one job's ranks included.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/digest/digest_file.hpp"

namespace whyslow {

// The files that the arguments (files, folders, globs) name, as `whyslow explain` reads a job's
// ranks: a folder's entry that is neither a trace nor a digest (the truth.json a generator leaves
// beside the ranks) is left out, and `left_out` told "<path>: neither a trace nor a digest …".
// A file named on its own is kept (its load says what is wrong with it).
std::vector<std::string> expand_rank_paths(const std::vector<std::string>& args,
                                           const std::function<void(const std::string&)>& left_out);

// One analyzed trace reduced to what the cross-rank passes read, with its findings by title.
RankSummary rank_summary(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings);

// The cross-rank passes and rules over the summaries, ranks in rank order. Throws LoadError
// (Schema: exit code 2, the input's) when they are not the ranks of one job — a summary without a
// rank, two that claim one (two runs of a program, the folder tensorboard_trace_handler fills run
// after run) — saying so and naming `whyslow diff`.
RanksReport ranks_of_one_job(std::vector<RankSummary> summaries);

}  // namespace whyslow
