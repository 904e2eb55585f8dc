// The HTML report's timeline (issue 30 item 7): nesting of any depth is drawn (row by row up to
// kMaxLaneRows, deeper on one flattened row, the page saying so); no label is drawn over another
// event; the axis reads in the unit of the span shown; a finding link scrolls the page to the
// timeline; a steady step's critical path is drawn over it. The data is read back with simdjson, the
// drawing checked in headless Chromium.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "analysis/graph/step_replay.hpp"
#include "browser_test_util.hpp"
#include "loader_test_util.hpp"
#include "report/html/page_schema.hpp"
#include "report/html/report.hpp"
#include "report/html/timeline.hpp"
#include "test_support.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

using testing::TempDir;

constexpr const char* kOwlV2 = "AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz";

// `depth` ops on thread (1, 1), each nested in the one before: op i runs [i, 2 depth - i) µs.
std::string nested_ops(int64_t depth) {
  testing::GeneratedTrace t;
  for (int64_t i = 0; i < depth; ++i) t.event("cpu_op", "aten::level", 1, 1, i, 2 * (depth - i));
  return t.take();
}

std::string data_blob(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"whyslow-data\">";
  const size_t a = page.find(open), b = page.find("</script>", a);
  return page.substr(a + open.size(), b - a - open.size());
}

// The page of a trace, written into `dir`.
std::string write_page(const TempDir& dir, const std::string& name, const testing::Explained& e) {
  return dir.write(name + ".html", render_html(e.trace, e.facts, e.findings));
}

TEST(HtmlTimeline, NestingIsDrawnRowByRowThenOnOneFlattenedRow) {
  TempDir dir;
  // 40 deep: under the cap, every level its own row (the old cap of 32 left 8 out).
  // 200 deep: kMaxLaneRows rows, then the 72 deeper on one more row.
  for (const int64_t depth : {int64_t{40}, int64_t{200}}) {
    const auto e = testing::explain_file(dir.write("nested.json", nested_ops(depth)));
    simdjson::dom::parser parser;
    const simdjson::dom::element data = parser.parse(data_blob(render_html(e.trace, e.facts, e.findings)));
    auto lanes = data["lanes"].get_array();
    ASSERT_EQ(lanes.size(), 1u);
    const auto lane = lanes.at(0);
    const int64_t flattened = std::max<int64_t>(0, depth - report::kMaxLaneRows);
    EXPECT_EQ(int64_t(lane["rows"]), std::min<int64_t>(depth, report::kMaxLaneRows + 1)) << depth;
    EXPECT_EQ(int64_t(lane["deep"]), flattened) << depth;
    EXPECT_EQ(int64_t(data["flattened_deep"]), flattened) << depth;
    EXPECT_EQ(lane["s"].get_array().size(), static_cast<size_t>(depth)) << "every op is in the page";
    EXPECT_TRUE(data["hidden_deep"].error() == simdjson::NO_SUCH_FIELD) << "nothing is left out for its depth";
  }
}

// OWLv2 (with_stack): Python frames nest 44 deep; the old cap of 32 left 54,721 of them undrawn.
TEST(HtmlTimeline, OwlV2PythonStackIsDrawnToItsDeepestFrame) {
  WHYSLOW_PUBLIC_OR_SKIP(kOwlV2, e);
  // The deepest Python frame, counted as the page's Python lanes count rows: its Python ancestors.
  int64_t deepest = -1;
  for (EventId x = 0; x < e.trace.size(); ++x) {
    if (e.trace.kind[x] != EventKind::PythonFunction) continue;
    int64_t depth = 0;
    for (EventId p = e.trace.parent[x]; p != kNoEvent; p = e.trace.parent[p]) depth += e.trace.kind[p] == EventKind::PythonFunction;
    deepest = std::max(deepest, depth);
  }
  ASSERT_GE(deepest, 32) << "the trace nests deeper than the old cap";
  simdjson::dom::parser parser;
  const simdjson::dom::element data = parser.parse(data_blob(render_html(e.trace, e.facts, e.findings)));
  int64_t rows = 0;
  for (auto lane : data["lanes"].get_array())
    if (std::string_view(lane["name"]).starts_with("Python stack")) rows = std::max(rows, int64_t(lane["rows"]));
  EXPECT_EQ(rows, deepest + 1);
  EXPECT_EQ(int64_t(data["flattened_deep"]), 0);
}

TEST(HtmlReportBrowser, DeepStackShowsEveryLevelWhenItsLaneIsExpanded) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  const auto e = testing::explain_file(dir.write("nested.json", nested_ops(200)));
  const std::string page = write_page(dir, "nested", e);
  simdjson::dom::parser parser;
  const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, page, R"js(
    const tl = window.whyslowReport.timeline, ds = document.body.dataset;
    const out = { collapsed: +ds.rects };
    tl.toggleLane(0);
    tl.draw();
    out.expanded = +ds.rects;
    out.coverage = document.getElementById("coverage").textContent;
    console.log("whyslow-test: " + JSON.stringify(out));
  )js"));
  EXPECT_EQ(int64_t(out["collapsed"]), 10) << "a lane opens on its first rows";
  EXPECT_EQ(int64_t(out["expanded"]), 200) << "expanded, every level is drawn, the deepest 72 on the flattened row";
  EXPECT_NE(std::string_view(out["coverage"]).find("72 events nested deeper than 128 levels are drawn on one last row"),
            std::string_view::npos) << std::string_view(out["coverage"]);
}

// Each span's axis labels: in that span's unit, a round step apart (1, 2 or 5 × a power of ten).
void expect_axis(const simdjson::dom::element& labels, const std::string& unit, const std::string& what) {
  const std::regex label(R"(^([+-]?[\d,]+(?:\.\d+)?) (s|ms|µs|ns)$)");
  std::vector<double> values;
  for (auto l : labels.get_array()) {
    const std::string text{std::string_view(l)};
    std::smatch m;
    ASSERT_TRUE(std::regex_match(text, m, label)) << what << ": " << text;
    EXPECT_EQ(m[2].str(), unit) << what << ": " << text;
    values.push_back(std::stod(std::regex_replace(m[1].str(), std::regex(","), "")));
  }
  ASSERT_GE(values.size(), 4u) << what;
  EXPECT_LE(values.size(), 16u) << what << ": labels a reader can tell apart";
  const double step = values[1] - values[0];
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  EXPECT_TRUE(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6)
      << what << ": step " << step;
  for (size_t i = 1; i < values.size(); ++i) EXPECT_NEAR(values[i] - values[i - 1], step, step * 1e-6) << what;
}

TEST(HtmlReportBrowser, AxisLabelsAreInTheUnitOfTheSpanShown) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  // The 145 ms cold step's trace, viewed 46 ms, 46 µs and 460 ns wide; a trace 3 s long, whole.
  const std::string cold = write_page(dir, "cold", testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz")));
  simdjson::dom::parser parser;
  const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, cold, R"js(
    const tl = window.whyslowReport.timeline, out = {};
    for (const [unit, span] of [["ms", 46e6], ["us", 46e3], ["ns", 460]]) {
      tl.setView(1e6, 1e6 + span);
      tl.draw();
      out[unit] = document.body.dataset.axisLabels.split("|");
    }
    console.log("whyslow-test: " + JSON.stringify(out));
  )js"));
  expect_axis(out["ms"], "ms", "a 46 ms view");
  expect_axis(out["us"], "µs", "a 46 µs view");
  expect_axis(out["ns"], "ns", "a 460 ns view");
  testing::GeneratedTrace t;
  t.event("cpu_op", "aten::long", 1, 1, 0, 3'000'000);
  const std::string seconds = write_page(dir, "seconds", testing::explain_file(dir.write("seconds.json", t.take())));
  simdjson::dom::parser parser2;
  const simdjson::dom::element whole = parser2.parse(testing::page_script_result(dir, seconds, R"js(
    console.log("whyslow-test: " + JSON.stringify({ s: document.body.dataset.axisLabels.split("|") }));
  )js"));
  expect_axis(whole["s"], "s", "a 3 s trace");
}

TEST(HtmlReportBrowser, FindingLinkScrollsThePageToTheTimeline) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  const std::string page = write_page(dir, "cold", testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz")));
  simdjson::dom::parser parser;
  const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, page, R"js(
    const tl = window.whyslowReport.timeline;
    const top = () => document.getElementById("timeline-section").getBoundingClientRect().top;
    const out = { openedTop: top(), openedScroll: window.scrollY, openedSpan: tl.v1 - tl.v0, windowNs: tl.windowNs };
    window.scrollTo(0, 0);
    const link = [...document.querySelectorAll("a.show")].find(a => a.getAttribute("href") !== "#finding=launch_queue");
    out.clicked = link.getAttribute("href");
    link.click();
    out.clickedTop = top();
    out.clickedScroll = window.scrollY;
    console.log("whyslow-test: " + JSON.stringify(out));
  )js", "#finding=launch_queue"));
  // Opened on a link: the timeline at the top of the window, zoomed in on the finding.
  EXPECT_GT(double(out["openedScroll"]), 0);
  EXPECT_NEAR(double(out["openedTop"]), 0, 1);
  EXPECT_LT(double(out["openedSpan"]), double(out["windowNs"]));
  // A click on another finding's link, from the top of the page: the same.
  EXPECT_GT(double(out["clickedScroll"]), 0) << std::string_view(out["clicked"]);
  EXPECT_NEAR(double(out["clickedTop"]), 0, 1) << std::string_view(out["clicked"]);
}

// For the page: the labels the painter drew over another event than their own, every lane
// expanded, for the whole trace, the start of each flattened row and each finding's view. A label of an event may cover only its own rectangle, and
// no event drawn after it (above it: inner events of a flattened row) may cross it; a queue
// delay's label may cover no event and no summary cell.
const char* kLabelCheck = R"js(
  const R = window.whyslowReport, tl = R.timeline, m = R.model, v = tl.view;
  const rect = e => { const x0 = Math.max(v.x(m.start[e]), LABEL_W - 2); return [x0, Math.max(v.x(m.end(e)), x0 + 1)]; };
  const over = (a0, a1, b) => a0 < b.x1 - 0.5 && a1 > b.x0 + 0.5;
  const check = where => {
    const bad = [];
    for (const b of tl.painter.labelBoxes) {
      m.lanes.forEach((lane, li) => {
        for (let r = 0; r < v.shownRows(lane); ++r) {
          const top = v.laneY(li) + LANE_PAD / 2 + r * ROW_H;
          if (top + ROW_H - 1 <= b.y0 || top + 1 >= b.y1) continue;
          const idx = lane.rowEvents[r];
          const own = b.e >= 0 ? idx.indexOf(b.e) : -1;
          if (own >= 0) {
            const [x0, x1] = rect(b.e);
            if (b.x0 < x0 - 0.5 || b.x1 > x1 + 0.5) bad.push(`${where}: the label of ${m.nameOf(b.e)} leaves its rectangle`);
          }
          for (let k = Math.max(own + 1, lowerBound(lane.rowMaxEnd[r], v.t(b.x0))); k < idx.length && v.x(m.start[idx[k]]) < b.x1; ++k)
            if (idx[k] !== b.e && over(...rect(idx[k]), b)) bad.push(`${where}: ${m.nameOf(idx[k])} over the label of ${b.e >= 0 ? m.nameOf(b.e) : "a queue delay"}`);
          if (b.e < 0) {
            const ov = lane.overview[r];
            for (let j = 0; j < ov.bucket.length; ++j)
              if (over(v.x(ov.bucket[j] * m.bucketNs), Math.max(v.x((ov.bucket[j] + 1) * m.bucketNs), v.x(ov.bucket[j] * m.bucketNs) + 1), b))
                bad.push(`${where}: a summary cell under a queue delay's label`);
          }
        }
      });
    }
    return bad;
  };
  const out = { bad: [], eventLabels: 0, queueLabels: 0 };
  const look = where => {
    tl.draw();
    out.bad.push(...check(where));
    out.eventLabels += tl.painter.labelBoxes.filter(b => b.e >= 0).length;
    out.queueLabels += tl.painter.labelBoxes.filter(b => b.e < 0).length;
  };
  // Every row shown; the flattened rows also zoomed in so far that their events carry labels.
  m.lanes.forEach((lane, li) => { if (lane.rows > COLLAPSED_ROWS && !lane.expanded) tl.toggleLane(li); });
  look("the whole trace");
  for (const lane of m.lanes) {
    const idx = lane.rowEvents[SCHEMA.MAX_LANE_ROWS];
    if (!idx || idx.length < 2) continue;
    tl.setView(m.start[idx[0]], m.start[idx[Math.min(8, idx.length - 1)]]);
    look("a flattened row");
  }
  for (const f of R.data.findings) {
    applyHash(R.data, tl, "#finding=" + f.id);
    look(f.id);
  }
  out.bad = out.bad.slice(0, 10);
  console.log("whyslow-test: " + JSON.stringify(out));
)js";

void expect_no_label_over_an_event(const TempDir& dir, const std::string& page, bool queue_labels) {
  simdjson::dom::parser parser;
  const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, page, kLabelCheck));
  for (auto b : out["bad"].get_array()) ADD_FAILURE() << std::string_view(b);
  EXPECT_GT(int64_t(out["eventLabels"]), 0) << "the check saw labels";
  if (queue_labels) {
    EXPECT_GT(int64_t(out["queueLabels"]), 0) << "a queue delay is labelled where there is room";
  }
}

TEST(HtmlReportBrowser, NoLabelIsDrawnOverAnotherEvent) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  expect_no_label_over_an_event(
      dir, write_page(dir, "cold", testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"))), true);
  // A flattened row: inner events over outer ones, each outer label ending where the next starts.
  expect_no_label_over_an_event(dir, write_page(dir, "nested", testing::explain_file(dir.write("nested.json", nested_ops(140)))),
                                false);
}

// OWLv2: its launch_queue link drew "queued 85.8 ms" over the kernels that kept the GPU busy.
TEST(HtmlReportBrowser, NoLabelIsDrawnOverAnotherEventOfOwlV2) {
  REQUIRE_CHROMIUM();
  WHYSLOW_PUBLIC_OR_SKIP(kOwlV2, e);
  TempDir dir;
  expect_no_label_over_an_event(dir, write_page(dir, "owlv2", e), false);
}

const std::string kDataLoaderWorkers0 = std::string(WHYSLOW_FIXTURES) + "/cpu/dataloader_workers0.json.gz";

// Issue 46 item 6: launch arrows were drawn over the labels of the events they crossed. Each label's
// pixels (inset a pixel from its box's edges, where anti-aliasing blends the two) are the same with
// the arrows drawn as without them, for the whole trace, each finding's view and a selected launch.
const char* kArrowCheck = R"js(
  const R = window.whyslowReport, tl = R.timeline, m = R.model, v = tl.view, flows = m.flows;
  const dpr = window.devicePixelRatio || 1;
  // Read back from a copy made for reading (the page's own canvas is not: Chromium logs a warning).
  const copy = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const snapshot = () => {
    copy.canvas.width = tl.canvas.width;
    copy.canvas.height = tl.canvas.height;
    copy.drawImage(tl.canvas, 0, 0);
  };
  const pixels = b => {
    const x0 = Math.ceil(b.x0 * dpr) + 1, x1 = Math.floor(b.x1 * dpr) - 1;
    const y0 = Math.ceil(b.y0 * dpr) + 1, y1 = Math.floor(b.y1 * dpr) - 1;
    if (x1 <= x0 || y1 <= y0) return "";
    return Array.from(copy.getImageData(x0, y0, x1 - x0, y1 - y0).data).join(",");
  };
  const out = { crossed: [], labels: 0, arrows: 0 };
  const look = where => {
    m.flows = flows;
    tl.draw();
    out.arrows += tl.stats.flows;
    snapshot();
    const boxes = tl.painter.labelBoxes.slice(), withArrows = boxes.map(pixels);
    m.flows = [];
    tl.draw();
    snapshot();
    boxes.forEach((b, i) => {
      ++out.labels;
      if (pixels(b) !== withArrows[i]) out.crossed.push(`${where}: an arrow over the label of ${b.e >= 0 ? m.nameOf(b.e) : "a queue delay"}`);
    });
    m.flows = flows;
  };
  look("the whole trace");
  for (const f of R.data.findings) {
    applyHash(R.data, tl, "#finding=" + f.id);
    look(f.id);
  }
  // A launch selected: its arrow is drawn whatever else is in view, darker.
  tl.selected = flows[0];
  tl.focus(m.start[flows[0]], m.end(flows[1]), flows[0]);
  look("a selected launch");
  out.crossed = out.crossed.slice(0, 10);
  console.log("whyslow-test: " + JSON.stringify(out));
)js";

// Arrows crossed the step's label on the DataLoader trace and matmul's on the 4096 one.
TEST(HtmlReportBrowser, NoLaunchArrowIsDrawnOverALabel) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  for (const std::string& trace : {kDataLoaderWorkers0, testing::fixture("mm_bias_4096_fp32.json.gz")}) {
    const std::string page = write_page(dir, "arrows", testing::explain_file(trace));
    simdjson::dom::parser parser;
    const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, page, kArrowCheck));
    for (auto c : out["crossed"].get_array()) ADD_FAILURE() << trace << ": " << std::string_view(c);
    EXPECT_GT(int64_t(out["arrows"]), 0) << trace << ": the check saw arrows";
    EXPECT_GT(int64_t(out["labels"]), 0) << trace << ": and labels";
  }
}


// The path the page carries: the graph's, segment by segment in time order, one after another,
// inside its step, on lanes the page draws, adding up by kind to the step's critical path.
TEST(HtmlTimeline, CriticalPathSegmentsAreInTimeOrderWithinTheStep) {
  using report::page_schema::at;
  using report::page_schema::PathField;
  const auto e = testing::explain_file(kDataLoaderWorkers0);
  const GraphFacts& g = e.facts.graph;
  ASSERT_GE(g.path_step, 0);
  ASSERT_LT(static_cast<size_t>(g.path_step), e.facts.steps.size());
  const StepFacts& step = e.facts.steps[static_cast<size_t>(g.path_step)];
  simdjson::dom::parser parser;
  const simdjson::dom::element data = parser.parse(data_blob(render_html(e.trace, e.facts, e.findings)));
  const auto path = data["critical_path"];
  ASSERT_TRUE(path.is_object());
  EXPECT_EQ(int64_t(path["step"]), g.path_step);
  EXPECT_EQ(std::string_view(path["name"]), step.name);
  std::vector<int64_t> v;
  for (auto x : path["segments"].get_array()) v.push_back(int64_t(x));
  const size_t stride = at(PathField::Stride), n = v.size() / stride;
  ASSERT_EQ(v.size() % stride, 0u);
  ASSERT_GT(n, 10u);
  EXPECT_EQ(n, g.path.size());
  EXPECT_LE(n, kMaxPathSegments);
  const int64_t t0 = e.facts.window.start_ns, lanes = static_cast<int64_t>(data["lanes"].get_array().size());
  std::map<PathKind, int64_t> by_kind;
  std::set<std::string> lane_kinds;
  int64_t prev_end = step.start_ns - t0, events = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t* s = v.data() + i * stride;
    const int64_t start = s[at(PathField::Start)], dur = s[at(PathField::Duration)], lane = s[at(PathField::Lane)];
    EXPECT_GT(dur, 0) << i;
    EXPECT_GE(start, prev_end) << "segment " << i << " starts before the one before it ends";
    EXPECT_EQ(start, i == 0 ? start : prev_end) << "segment " << i << ": the path has no gap";
    prev_end = start + dur;
    ASSERT_GE(lane, 0) << i;
    ASSERT_LT(lane, lanes) << i;
    lane_kinds.emplace(std::string_view(data["lanes"].at(static_cast<size_t>(lane))["kind"]));
    ASSERT_LT(s[at(PathField::Kind)], 4) << i;
    by_kind[static_cast<PathKind>(s[at(PathField::Kind)])] += dur;
    events += s[at(PathField::Event)] >= 0;
  }
  EXPECT_GE(v[at(PathField::Start)], step.start_ns - t0) << "the path starts inside its step";
  EXPECT_LE(prev_end, step.end_ns - t0) << "and ends inside it";
  EXPECT_EQ(int64_t(path["start"]), v[at(PathField::Start)]);
  EXPECT_EQ(int64_t(path["end"]), prev_end);
  EXPECT_EQ(int64_t(path["step_end"]), prev_end) << "under kMaxPathSegments, the path is its step's whole";
  EXPECT_GT(events, 0);
  EXPECT_EQ(lane_kinds, (std::set<std::string>{"cpu", "gpu"})) << "the path crosses from the CPU to the GPU and back";
  // The same walk as the step's critical path: by kind, the segments add up to its parts.
  std::map<PathKind, int64_t> parts;
  for (const PathPart& p : g.steps[static_cast<size_t>(g.path_step)].critical_path) parts[p.kind] += p.ns;
  EXPECT_EQ(by_kind, parts);
}

TEST(HtmlReportBrowser, DrawsTheCriticalPathOfASteadyStep) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  const std::string page = write_page(dir, "workers0", testing::explain_file(kDataLoaderWorkers0));
  simdjson::dom::parser parser;
  const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, page, R"js(
    const R = window.whyslowReport, tl = R.timeline, m = R.model, p = m.path, ds = document.body.dataset;
    const out = { name: p.name, segments: p.n, opened: +ds.pathSegments, offEvent: 0, lanes: [] };
    for (let i = 0; i < p.n; ++i) {
      const e = p.event[i];
      if (e >= 0 && (p.t0[i] < m.start[e] || p.t1[i] > m.end(e))) ++out.offEvent;
      const kind = p.lane[i] >= 0 ? m.lanes[p.lane[i]].kind : "none";
      if (!out.lanes.includes(kind)) out.lanes.push(kind);
    }
    tl.setView(p.start, p.end);
    tl.draw();
    out.inStep = +ds.pathSegments;
    tl.setView(p.end + (p.end - p.start), p.end + 2 * (p.end - p.start));
    tl.draw();
    out.afterStep = +ds.pathSegments;
    // The legend's box hides it and shows it again.
    const box = document.getElementById("show-path");
    out.legend = box.closest(".path-key").textContent;
    box.click();
    tl.setView(p.start, p.end);
    tl.draw();
    out.hidden = +ds.pathSegments;
    box.click();
    tl.draw();
    out.shownAgain = +ds.pathSegments;
    // A kernel on the path, hovered: its tooltip says so.
    let k = -1;
    for (let i = 0; i < p.n && k < 0; ++i) if (p.event[i] >= 0 && m.isKernel(p.event[i])) k = p.event[i];
    tl.focus(m.start[k], m.end(k), k);
    tl.draw();
    const c = document.getElementById("timeline-canvas"), r = c.getBoundingClientRect();
    c.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + tl.x(m.start[k] + m.dur[k] / 2), clientY: r.top + tl.eventY(k) + 8, bubbles: true }));
    out.kernelTip = document.querySelector(".tooltip").textContent;
    let other = -1;
    for (let e = 0; e < m.n && other < 0; ++e) if (m.isKernel(e) && !m.onPath[e] && tl.view.shown(e)) other = e;
    tl.focus(m.start[other], m.end(other), other);
    tl.draw();
    c.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + tl.x(m.start[other] + m.dur[other] / 2), clientY: r.top + tl.eventY(other) + 8, bubbles: true }));
    out.otherTip = document.querySelector(".tooltip").textContent;
    console.log("whyslow-test: " + JSON.stringify(out));
  )js"));
  EXPECT_EQ(std::string_view(out["name"]), "ProfilerStep#2");
  const int64_t segments = out["segments"];
  EXPECT_GT(segments, 100) << "a step of 3 ms of kernels after 40 ms of loading: every kernel is on its path";
  EXPECT_EQ(int64_t(out["opened"]), segments) << "the page opens on the whole trace: all of the path is drawn";
  EXPECT_EQ(int64_t(out["inStep"]), segments);
  EXPECT_EQ(int64_t(out["afterStep"]), 0) << "nothing is drawn where the path is not";
  EXPECT_EQ(int64_t(out["offEvent"]), 0) << "each event's segment lies on the event";
  std::set<std::string> lanes;
  for (auto l : out["lanes"].get_array()) lanes.emplace(std::string_view(l));
  EXPECT_EQ(lanes, (std::set<std::string>{"cpu", "gpu"}));
  EXPECT_NE(std::string_view(out["legend"]).find("critical path of ProfilerStep#2"), std::string_view::npos) << std::string_view(out["legend"]);
  EXPECT_EQ(int64_t(out["hidden"]), 0) << "the legend's box hides the path";
  EXPECT_EQ(int64_t(out["shownAgain"]), segments);
  EXPECT_NE(std::string_view(out["kernelTip"]).find("on the critical path of ProfilerStep#2"), std::string_view::npos)
      << std::string_view(out["kernelTip"]);
  EXPECT_EQ(std::string_view(out["otherTip"]).find("critical path"), std::string_view::npos) << std::string_view(out["otherTip"]);
}

}  // namespace
}  // namespace whyslow
