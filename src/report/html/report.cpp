// Assembles the report pages: an embedded page skeleton (src/report/html/page/page.html, or
// diff_page.html for a comparison) with the style sheet, the scripts and the data blob put in
// place of its {{…}} markers.
#include "report/html/report.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "analysis/steps/steady_steps.hpp"
#include "report/json/json_report.hpp"
#include "report/html/assets.hpp"
#include "report/html/blocks.hpp"
#include "report/html/findings.hpp"
#include "report/html/page_schema.hpp"
#include "report/html/path_overlay.hpp"
#include "report/html/rank_spans.hpp"
#include "report/html/roofline.hpp"
#include "report/html/summary.hpp"
#include "report/html/timeline.hpp"

namespace whyslow {
namespace report {

std::string_view html_asset(std::string_view name) {
  for (size_t i = 0; i < kHtmlAssetCount; ++i)
    if (kHtmlAssets[i].name == name) return kHtmlAssets[i].text;
  throw std::logic_error("whyslow was built without the HTML asset " + std::string(name));
}

namespace {

// The scripts in the order they define things: helpers and the timeline before the pages that
// use them, start.js (which reads the data and draws the page) last. The data layout's constants
// (page_schema.hpp) come before them all, after the "use strict" that covers the whole script.
constexpr std::string_view kScripts[] = {
    "util.js",          "timeline_model.js",   "timeline_viewport.js", "timeline_axis.js", "timeline_labels.js",
    "timeline_draw.js", "timeline_hit.js",     "timeline_tooltip.js",  "timeline_input.js", "timeline.js",
    "charts.js",        "blocks.js",           "page.js",              "diff.js",          "ranks_data.js",
    "ranks.js",         "start.js"};

std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// Replaces the skeleton's markers in the order they appear in it, each search starting after the
// text put in before: nothing inserted (a script, a kernel name in the data) is ever searched.
class PageFiller {
 public:
  explicit PageFiller(std::string_view page) : page_(page) {}
  PageFiller& fill(std::string_view marker, std::string_view text) {
    const size_t at = page_.find(marker, cursor_);
    if (at == std::string::npos) throw std::logic_error("the page skeleton has no " + std::string(marker) + " here");
    page_.replace(at, marker.size(), text);
    cursor_ = at + text.size();
    return *this;
  }
  std::string take() { return std::move(page_); }

 private:
  std::string page_;
  size_t cursor_ = 0;
};

std::string page(std::string_view skeleton, const std::string& title, std::string data) {
  std::string scripts = "\"use strict\";\n" + page_schema::page_schema_script();  // strict: the first statement
  for (std::string_view name : kScripts) scripts.append(html_asset(name)).append("\n");
  return PageFiller(html_asset(skeleton))
      .fill("{{title}}", escape_html(title))
      .fill("{{style}}", html_asset("page.css"))
      .fill("{{data}}", data)
      .fill("{{script}}", scripts)
      .take();
}

// One trace's part of the data: summary, timeline and findings, into the open object of `w`;
// returns where its events are in the page.
TimelineIndex write_trace(CompactJson& w, const Trace& t, const Facts& f, const std::vector<Finding>& findings,
                          const Selection& selection) {
  write_summary(w, t, f, selection);
  write_roofline(w, t, f);
  write_blocks(w, t, f);
  TimelineIndex index = write_timeline(w, t, f, selection);
  write_findings(w, t, f, findings, index);
  return index;
}

void write_spans(CompactJson& w, std::string_view key, const std::vector<std::pair<int64_t, int64_t>>& spans) {
  w.key(key).begin_array();
  for (const auto& [a, b] : spans) w.begin_array().integer(a).integer(b).end_array();
  w.end_array();
}

// The page's indices of the calls of the record_function block `block` (a straggler's cause; a
// CPU category or the GPU's compute names no events), those the page holds.
std::vector<int64_t> block_events(const Trace& t, const TimelineIndex& index, const std::string& block) {
  std::vector<int64_t> out;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == EventKind::UserAnnotation && index.of_event[e] >= 0 && t.name_of(e) == block)
      out.push_back(index.of_event[e]);
  return out;
}

// The straggler finding's cause, when it blames a block of `rank`.
const StragglerCause* cause_on(const RanksReport& job, int32_t rank) {
  for (const RankFinding& r : job.findings)
    if (r.has_cause && r.cause_rank == rank) return &r.cause;
  return nullptr;
}

// The step the comparison shows for a trace: the median-length steady step, the one `whyslow diff`
// aligns the two traces on (src/diff/kernel_match.cpp); the whole window for a trace without steps.
void write_typical_step(CompactJson& w, const Trace& t, const Facts& f, const std::vector<Finding>& findings,
                        size_t budget) {
  auto steps = steady_steps(f);
  std::sort(steps.begin(), steps.end(), [](auto* x, auto* y) { return x->duration_ns < y->duration_ns; });
  const StepFacts& step = steps.empty() ? f.window : *steps[steps.size() / 2];
  const TimeWindow window{step.start_ns, std::max(step.end_ns, step.gpu_end_ns)};
  w.begin_object();
  write_trace(w, t, f, findings, select_window(t, window, budget));
  w.key("focus").begin_object();
  w.key("name").string(steps.empty() ? "the whole trace" : step.name);
  w.key("start").integer(window.start_ns - f.window.start_ns).key("end").integer(window.end_ns - f.window.start_ns);
  w.end_object();
  w.end_object();
}

}  // namespace
}  // namespace report

std::string render_html(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings,
                        const HtmlOptions& options) {
  using namespace report;
  CompactJson w;
  w.begin_object();
  const TimelineIndex index = write_trace(w, trace, facts, findings, select_events(trace, facts, findings, options.max_events));
  write_path_overlay(w, facts, index);  // this page only: the comparison's and the ranks' show other steps
  w.end_object();
  return page("page.html", file_name(trace.path), w.take());
}

std::string render_html_diff(const Trace& a, const Facts& fa, const std::vector<Finding>& xa, const Trace& b,
                             const Facts& fb, const std::vector<Finding>& xb, const Diff& diff,
                             const HtmlOptions& options) {
  using namespace report;
  CompactJson w;
  w.begin_object();
  w.key("diff").raw(render_diff_json(diff));  // the documented schema of `whyslow diff --json`
  w.key("a");
  write_typical_step(w, a, fa, xa, options.max_events / 2);
  w.key("b");
  write_typical_step(w, b, fb, xb, options.max_events / 2);
  w.end_object();
  return page("diff_page.html", file_name(a.path) + " vs " + file_name(b.path), w.take());
}

std::string render_html_ranks(const std::vector<HtmlRank>& ranks, const RanksReport& job, const HtmlOptions& options) {
  using namespace report;
  const CrossRankFacts& f = job.facts;
  std::vector<const HtmlRank*> of_rank;  // f.ranks order
  for (const RankDigest& d : f.ranks) {
    const auto it = std::find_if(ranks.begin(), ranks.end(), [&](const HtmlRank& r) { return r.trace.path == d.path; });
    if (it == ranks.end()) throw std::logic_error("render_html_ranks: no trace for rank " + std::to_string(d.rank));
    of_rank.push_back(&*it);
  }
  // The page's time zero: the earliest window start, every clock aligned on the lowest rank's.
  int64_t t0 = INT64_MAX;
  for (size_t i = 0; i < of_rank.size(); ++i) t0 = std::min(t0, of_rank[i]->facts.window.start_ns - f.clock_offset_ns[i]);
  CompactJson w;
  w.begin_object();
  w.key("job").raw(render_ranks_json(job));  // the documented schema of `whyslow explain r0 r1 … --json`
  // The rank whose steps the page's steps strip shows: the one the others waited for most (the
  // lowest where no collective lines the ranks up).
  w.key("steps_rank").integer(f.ranks[f.straggler < f.ranks.size() ? f.straggler : 0].rank);
  w.key("ranks").begin_array();
  for (size_t i = 0; i < of_rank.size(); ++i) {
    const HtmlRank& r = *of_rank[i];
    w.begin_object();
    w.key("rank").integer(f.ranks[i].rank);
    // Added to this rank's times (ns from its own window's start) puts them on the page's axis.
    w.key("shift_ns").integer(r.facts.window.start_ns - f.clock_offset_ns[i] - t0);
    const TimelineIndex index =
        write_trace(w, r.trace, r.facts, r.findings,
                    select_events(r.trace, r.facts, r.findings, std::max<size_t>(1, options.max_events / of_rank.size())));
    const RankSpans spans = rank_spans(f, i, r.facts.window.start_ns);
    write_spans(w, "waits", spans.waits);
    write_spans(w, "late", spans.late);
    const StragglerCause* cause = cause_on(job, f.ranks[i].rank);
    w.key("cause_events").integers(cause ? block_events(r.trace, index, cause->block) : std::vector<int64_t>{});
    w.end_object();
  }
  w.end_array();
  w.end_object();
  const std::string title = file_name(of_rank.front()->trace.path) + (of_rank.size() > 1 ? " and " + std::to_string(of_rank.size() - 1) + " more ranks" : "");
  return page("ranks_page.html", title, w.take());
}

}  // namespace whyslow
