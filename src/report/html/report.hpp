// `whyslow report`: one self-contained HTML page (no network: styles, scripts and data inline)
// with the findings, a zoomable timeline of the CPU and GPU lanes with the findings marked on it,
// and charts of the steps, kernels and annotations. The data comes from here as one JSON blob
// (html/summary, html/timeline, html/findings); the page's scripts (src/report/html/page/) draw it.
// A second trace makes it a comparison page, built on `whyslow diff` (src/diff/); the traces of one
// job's ranks make one page of all of them, built on the cross-rank passes (src/analysis/ranks/).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "report/ranks_report.hpp"

namespace whyslow {

struct HtmlOptions {
  // Events embedded one by one; past this the page keeps detail windows and summarises the rest.
  // 100 000 events make a page of 2-3 MB that a browser opens and draws in well under a second.
  size_t max_events = 100'000;
};

std::string render_html(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings,
                        const HtmlOptions& options = {});

// `whyslow report A B`: the comparison page: the verdict, the steady-step numbers of both traces
// side by side, a typical step of each on two timelines at one scale, what B runs instead of A.
std::string render_html_diff(const Trace& a, const Facts& fa, const std::vector<Finding>& xa, const Trace& b,
                             const Facts& fb, const std::vector<Finding>& xb, const Diff& diff,
                             const HtmlOptions& options = {});

// One rank of a job, for the ranks page.
struct HtmlRank {
  const Trace& trace;
  const Facts& facts;
  const std::vector<Finding>& findings;
};

// `whyslow report r0 r1 …` of one job's ranks (`job`: ranks_of_one_job() of their summaries; `ranks`
// in any order, each matched to its rank of `job` by its path): the ranks table and the cross-rank
// findings of `explain r0 r1 …`, and every rank's lanes on one time axis, the clocks aligned on the
// collectives' ends, each rank's waits for the last to arrive and its own late arrivals shaded, the
// straggler's slow block outlined. options.max_events is shared among the ranks.
std::string render_html_ranks(const std::vector<HtmlRank>& ranks, const RanksReport& job, const HtmlOptions& options = {});

}  // namespace whyslow
