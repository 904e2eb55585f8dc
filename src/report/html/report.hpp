// `whyslow report`: one self-contained HTML page (no network: styles, scripts and data inline)
// with the findings, a zoomable timeline of the CPU and GPU lanes with the findings marked on it,
// and charts of the steps, kernels and annotations. The data comes from here as one JSON blob
// (html/summary, html/timeline, html/findings); the page's scripts (src/report/html/page/) draw it.
// A second trace makes it a comparison page, built on `whyslow diff` (src/diff/).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"

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

}  // namespace whyslow
