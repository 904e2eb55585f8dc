// The HTML page of one job's ranks (issue 28 item 4): `whyslow report r0 r1` of traces that say
// they are ranks of one job (distributedInfo), or with --ranks, draws every rank on one time axis,
// the clocks aligned on the collectives' ends, each rank's waits and late arrivals marked, with the
// ranks table of `explain r0 r1`; two traces that are not one job's ranks stay a comparison page
// (and --diff makes one of two ranks).
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <string>
#include <tuple>

#include "browser_test_util.hpp"
#include "loader_test_util.hpp"
#include "report/digest/ranks_job.hpp"
#include "report/html/report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::TempDir;

// Two ranks of an 8-rank DLRM job (tests/fixtures/ranks/README.md): rank 2 arrives last.
const std::string kRank0 = std::string(WHYSLOW_FIXTURES) + "/ranks/dlrm_worker0.json.gz";
const std::string kRank2 = std::string(WHYSLOW_FIXTURES) + "/ranks/dlrm_worker2.json.gz";
// Two runs of one program, no distributedInfo: a comparison.
const std::string kRunA = std::string(WHYSLOW_FIXTURES) + "/diff/mlp_bf16.json.gz";
const std::string kRunB = std::string(WHYSLOW_FIXTURES) + "/diff/mlp_bf16_compiled.json.gz";

std::string data_blob(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"whyslow-data\">";
  const size_t a = page.find(open), b = page.find("</script>", a);
  return page.substr(a + open.size(), b - a - open.size());
}

int run_whyslow(const std::string& args) {
  const std::string cmd = "'" + std::string(WHYSLOW_BINARY) + "' " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HtmlRanks, PageLinesTheRanksUpOnTheCollectivesEnds) {
  const auto r0 = testing::explain_file(kRank0), r2 = testing::explain_file(kRank2);
  const RanksReport job = ranks_of_one_job({rank_summary(r2.trace, r2.facts, r2.findings), rank_summary(r0.trace, r0.facts, r0.findings)});
  const std::string page = render_html_ranks({{r2.trace, r2.facts, r2.findings}, {r0.trace, r0.facts, r0.findings}}, job);
  simdjson::dom::parser parser, expected_parser;
  const simdjson::dom::element data = parser.parse(data_blob(page));
  // The ranks table and findings are explain's, as its JSON has them.
  EXPECT_EQ(simdjson::to_string(data["job"]), simdjson::to_string(expected_parser.parse(render_ranks_json(job))));
  auto ranks = data["ranks"].get_array();
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(int64_t(ranks.at(0)["rank"]), 0) << "in rank order, whatever the order given";
  EXPECT_EQ(int64_t(ranks.at(1)["rank"]), 2);
  const int64_t shift0 = ranks.at(0)["shift_ns"], shift2 = ranks.at(1)["shift_ns"];
  EXPECT_EQ(std::min(shift0, shift2), 0) << "the earliest window starts the axis";
  // Rank 2 came last at 7 of the 8 collectives: 7 late arrivals on it, 7 waits on rank 0, and each
  // wait ends where the late arrival ends, on the page's one axis.
  auto waits = ranks.at(0)["waits"].get_array(), late = ranks.at(1)["late"].get_array();
  ASSERT_EQ(late.size(), job.facts.times_last[1]);
  ASSERT_EQ(waits.size(), late.size());
  EXPECT_EQ(ranks.at(0)["late"].get_array().size(), 0u);
  for (size_t k = 0; k < late.size(); ++k) {
    EXPECT_EQ(int64_t(waits.at(k).at(1)) + shift0, int64_t(late.at(k).at(1)) + shift2) << k;
    EXPECT_LT(int64_t(waits.at(k).at(0)), int64_t(waits.at(k).at(1))) << k;
  }
  // The collectives' kernels end together on the axis: the median gap of the k-th kernel of each
  // process group between the ranks is 0.
  std::map<std::tuple<std::string, int64_t>, int64_t> end0;
  std::map<std::string, int64_t> nth;
  for (const RankCollective& c : job.facts.ranks[0].collectives)
    end0[{c.group, nth[c.group]++}] = c.end_ns - r0.facts.window.start_ns + shift0;
  nth.clear();
  std::vector<int64_t> gaps;
  for (const RankCollective& c : job.facts.ranks[1].collectives)
    if (auto it = end0.find({c.group, nth[c.group]++}); it != end0.end())
      gaps.push_back(c.end_ns - r2.facts.window.start_ns + shift2 - it->second);
  ASSERT_FALSE(gaps.empty());
  std::sort(gaps.begin(), gaps.end());
  EXPECT_EQ(gaps[gaps.size() / 2], 0);
  // Every event each trace's own page holds is on this one.
  size_t events = 0, own = 0;
  for (auto r : ranks)
    for (auto lane : r["lanes"].get_array()) events += lane["s"].get_array().size();
  for (const auto* e : {&r0, &r2}) {
    simdjson::dom::parser one;
    for (auto lane : one.parse(data_blob(render_html(e->trace, e->facts, e->findings)))["lanes"].get_array())
      own += lane["s"].get_array().size();
  }
  EXPECT_EQ(events, own);
}

// Two ranks made by tools/make_rank_traces.py from the DLRM pair: each on a clock of its own, rank
// 1's "## copy_batch_to_gpu ##" 3 ms longer once. The page undoes the clocks' offset that the tool
// put in, and outlines the calls of the block named as the cause on rank 1, the innermost one the
// pause fell in (checked in the browser where there is one).
TEST(HtmlRanks, StragglersSlowBlockIsOutlinedOnClocksAlignedAsTheyWereMade) {
  TempDir dir;
  const std::string tool = std::string(WHYSLOW_SOURCE_DIR) + "/tools/make_rank_traces.py";
  const std::string cmd = "python3 '" + tool + "' '" + dir.path("gen") + "' 2 '" + kRank0 + "' '" + kRank2 +
                          "' --straggler 1 --delay-us 3000 --seed 1 >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "no python3 to run " << tool;
  const auto r0 = testing::explain_file(dir.path("gen/rank-0000.pt.trace.json.gz"));
  const auto r1 = testing::explain_file(dir.path("gen/rank-0001.pt.trace.json.gz"));
  const RanksReport job = ranks_of_one_job({rank_summary(r0.trace, r0.facts, r0.findings), rank_summary(r1.trace, r1.facts, r1.findings)});
  simdjson::dom::parser parser, truth_parser;
  const simdjson::dom::element data =
      parser.parse(data_blob(render_html_ranks({{r0.trace, r0.facts, r0.findings}, {r1.trace, r1.facts, r1.findings}}, job)));
  const simdjson::dom::element truth = truth_parser.load(dir.path("gen/truth.json"));
  auto ranks = data["ranks"].get_array();
  // window start − shift is the rank's clock offset plus the page's zero: the difference is the tool's offset.
  const double made_us = double(truth["clock_offsets_us"].at(1)) - double(truth["clock_offsets_us"].at(0));
  const int64_t aligned_ns = (r1.facts.window.start_ns - int64_t(ranks.at(1)["shift_ns"])) -
                             (r0.facts.window.start_ns - int64_t(ranks.at(0)["shift_ns"]));
  EXPECT_NEAR(aligned_ns / 1e3, made_us, 1.0);
  // The cause is the innermost block the pause fell in (the DataLoader span that
  // "## copy_batch_to_gpu ##" opens), as the straggler finding names it.
  ASSERT_EQ(truth["innermost_blocks"].get_array().size(), 1u);
  const std::string_view block = truth["innermost_blocks"].at(0);
  EXPECT_EQ(ranks.at(0)["cause_events"].get_array().size(), 0u);
  auto cause = ranks.at(1)["cause_events"].get_array();
  ASSERT_GT(cause.size(), 0u) << "the calls of " << block << " on rank 1";
  // Each is a call of the block: its name, read back through the page's string table.
  for (auto e : cause) {
    int64_t at = int64_t(e);
    for (auto lane : ranks.at(1)["lanes"].get_array()) {
      const int64_t n = static_cast<int64_t>(lane["n"].get_array().size());
      if (at >= n) { at -= n; continue; }
      EXPECT_EQ(std::string_view(ranks.at(1)["strings"].at(size_t(int64_t(lane["n"].at(size_t(at)))))), block);
      break;
    }
  }
  // On the page, those calls are outlined on rank 1's lanes, named as the finding names the block.
  if (testing::chromium().empty()) return;
  const std::string page = dir.write("ranks.html", render_html_ranks({{r0.trace, r0.facts, r0.findings}, {r1.trace, r1.facts, r1.findings}}, job));
  simdjson::dom::parser out_parser;
  const simdjson::dom::element out = out_parser.parse(testing::page_script_result(dir, page, R"js(
    const R = window.whyslowReport, m = R.model;
    const marks = R.merged.findings.flatMap(f => f.mark);
    console.log("whyslow-test: " + JSON.stringify({ names: marks.map(e => m.nameOf(e)), groups: marks.map(e => m.lanes[m.lane[e]].group) }));
  )js"));
  ASSERT_EQ(out["names"].get_array().size(), cause.size());
  for (auto name : out["names"].get_array()) EXPECT_EQ(std::string_view(name), block);
  for (auto group : out["groups"].get_array()) EXPECT_EQ(int64_t(group), 1);
}

TEST(HtmlRanks, ReportOfOneJobsRanksIsOnePageAndOfTwoRunsAComparison) {
  TempDir dir;
  const auto kind = [&](const std::string& args) {
    const std::string page = dir.path("page.html");
    std::filesystem::remove(page);
    if (run_whyslow("report " + args + " -o '" + page + "'") != 0) return std::string("failed");
    simdjson::dom::parser parser;
    const simdjson::dom::element data = parser.parse(data_blob(testing::read_file(page)));
    return std::string(data["job"].error() == simdjson::SUCCESS ? "ranks" : data["diff"].error() == simdjson::SUCCESS ? "diff" : "one");
  };
  const std::string ranks = "'" + kRank0 + "' '" + kRank2 + "'", runs = "'" + kRunA + "' '" + kRunB + "'";
  EXPECT_EQ(kind(ranks), "ranks") << "distributedInfo says they are ranks 0 and 2 of one job";
  EXPECT_EQ(kind(ranks + " --diff"), "diff");
  EXPECT_EQ(kind(runs), "diff");
  EXPECT_EQ(kind("'" + kRank0 + "'"), "one");
  // Runs forced to be ranks: they have no rank (exit 2, the input's fault); three runs: neither.
  EXPECT_EQ(run_whyslow("report " + runs + " --ranks -o '" + dir.path("x.html") + "'"), 2);
  const std::string third = "'" + testing::fixture("mm_bias_64_fp32.json.gz") + "'";
  EXPECT_EQ(run_whyslow("report " + runs + " " + third + " -o '" + dir.path("x.html") + "'"), 1);
  EXPECT_EQ(run_whyslow("report " + ranks + " " + third + " --diff -o '" + dir.path("x.html") + "'"), 1);
  // A digest has no events to draw (exit 1: the page needs the traces).
  ASSERT_EQ(run_whyslow("digest '" + kRank0 + "' -o '" + dir.path("rank0.digest.json") + "'"), 0);
  EXPECT_EQ(run_whyslow("report '" + dir.path("rank0.digest.json") + "' '" + kRank2 + "' -o '" + dir.path("x.html") + "'"), 1);
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.html"))) << "nothing written when no page can be made";
  // A folder or a glob of the ranks, as `explain` reads them; without -o, beside the first rank.
  std::filesystem::create_directory(dir.path("job"));
  const std::string copy0 = dir.path("job/dlrm_worker0.json.gz"), copy2 = dir.path("job/dlrm_worker2.json.gz");
  std::filesystem::copy_file(kRank0, copy0);
  std::filesystem::copy_file(kRank2, copy2);
  EXPECT_EQ(kind("'" + dir.path("job") + "'"), "ranks");
  EXPECT_EQ(kind("'" + dir.path("job") + "/dlrm_worker*'"), "ranks");
  ASSERT_EQ(run_whyslow("report '" + copy0 + "' '" + copy2 + "'"), 0);
  EXPECT_TRUE(std::filesystem::exists(dir.path("job/dlrm_worker0-ranks.html")));
}

TEST(HtmlReportBrowser, RanksPageDrawsEveryRankOnOneAxis) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  const std::string page = dir.path("ranks.html");
  ASSERT_EQ(run_whyslow("report '" + kRank0 + "' '" + kRank2 + "' -o '" + page + "'"), 0);
  const testing::BrowserRun r = testing::open_in_chromium(dir, page, "--window-size=1280,800 --dump-dom");
  ASSERT_EQ(r.console.size(), 1u) << "the page logs one line when it is ready, and nothing else";
  EXPECT_NE(r.console[0].find("\"whyslow: ranks page ready: 2 ranks"), std::string::npos) << r.console[0];
  EXPECT_EQ(testing::body_attribute(r.dom, "data-ranks"), "0 2");
  EXPECT_EQ(testing::body_attribute(r.dom, "data-lane-groups"), "0 2") << "one lane group per rank, in rank order";
  const size_t table = r.dom.find("id=\"ranks\"");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = r.dom.substr(table, r.dom.find("</table>", table) - table);
  size_t n = 0;
  for (size_t at = rows.find("<tr"); at != std::string::npos; at = rows.find("<tr", at + 1)) ++n;
  EXPECT_EQ(n, 3u) << "a header and a row per rank";
  EXPECT_NE(r.dom.find("data-finding-id=\"straggler\""), std::string::npos);
  // The waits and late arrivals are drawn on their own rank's lanes.
  simdjson::dom::parser parser;
  const simdjson::dom::element out = parser.parse(testing::page_script_result(dir, page, R"js(
    const R = window.whyslowReport, m = R.model, shades = R.merged.lane_shades;
    const groups = shades.map(s => [...new Set(m.lanes.slice(s.lanes[0], s.lanes[1]).map(l => l.group))]);
    console.log("whyslow-test: " + JSON.stringify({ groups, spans: shades.map(s => s.spans.length), names: m.lanes.map(l => l.name) }));
  )js"));
  ASSERT_EQ(out["groups"].get_array().size(), 4u) << "waits and late arrivals of each rank";
  const int64_t expected_groups[] = {0, 0, 2, 2}, expected_spans[] = {7, 0, 0, 7};
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(out["groups"].at(i).get_array().size(), 1u) << i;
    EXPECT_EQ(int64_t(out["groups"].at(i).at(0)), expected_groups[i]) << i;
    EXPECT_EQ(int64_t(out["spans"].at(i)), expected_spans[i]) << i;
  }
  for (auto name : out["names"].get_array()) EXPECT_EQ(std::string_view(name).rfind("rank ", 0), 0u) << std::string_view(name);
}

}  // namespace
}  // namespace whyslow
