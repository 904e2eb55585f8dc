// The HTML report's data layout is pinned in src/report/html/page_schema.hpp: the page receives
// the header's constants as `const SCHEMA = {...}`, decoding the data with them gives back the
// trace's facts, and the page's scripts hold none of the layout's numbers or keys themselves.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <regex>
#include <set>
#include <string>

#include "report/html/assets.hpp"
#include "report/html/page_schema.hpp"
#include "report/html/report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using namespace report::page_schema;

// The text between `open` and the next `close` in `page`.
std::string between(const std::string& page, const std::string& open, const std::string& close) {
  const size_t a = page.find(open);
  if (a == std::string::npos) throw std::runtime_error("no " + open + " in the page");
  const size_t b = page.find(close, a + open.size());
  return page.substr(a + open.size(), b - a - open.size());
}

struct Page {
  testing::Explained e = testing::explain_file(testing::fixture("mm_bias_64_fp32_cold.json.gz"));
  std::string html = render_html(e.trace, e.facts, e.findings);
  simdjson::dom::parser schema_parser, data_parser;
  simdjson::dom::element schema = schema_parser.parse(between(html, "const SCHEMA = ", ";\n"));
  simdjson::dom::element data =
      data_parser.parse(between(html, "<script type=\"application/json\" id=\"whyslow-data\">", "</script>"));
};

TEST(HtmlSchema, PageReceivesTheHeadersConstants) {
  Page p;
  const auto s = p.schema;
  EXPECT_EQ(std::string_view(s["LANE"]["START"]), key(LaneColumn::Start));
  EXPECT_EQ(std::string_view(s["LANE"]["DURATION"]), key(LaneColumn::Duration));
  EXPECT_EQ(std::string_view(s["LANE"]["NAME"]), key(LaneColumn::Name));
  EXPECT_EQ(std::string_view(s["LANE"]["CLASS_ROW"]), key(LaneColumn::ClassRow));
  EXPECT_EQ(std::string_view(s["LANE"]["DETAIL"]), key(LaneColumn::Detail));
  EXPECT_EQ(std::string_view(s["LANE"]["OVERVIEW"]), key(LaneColumn::Overview));
  EXPECT_EQ(int64_t(s["CLASS_MASK"]), kClassMask);
  EXPECT_EQ(int64_t(s["ROW_SHIFT"]), kRowShift);
  EXPECT_EQ(int64_t(s["MAX_LANE_ROWS"]), report::kMaxLaneRows);
  EXPECT_EQ(int64_t(s["STEP"]["START"]), int64_t(at(StepField::Start)));
  EXPECT_EQ(int64_t(s["STEP"]["GPU_BUSY"]), int64_t(at(StepField::GpuBusy)));
  EXPECT_EQ(int64_t(s["STEP"]["LAUNCHES"]), int64_t(at(StepField::Launches)));
  EXPECT_EQ(s["STEP"].get_object().size(), at(StepField::Count));
  EXPECT_EQ(int64_t(s["OVERVIEW"]["STRIDE"]), int64_t(at(OverviewField::Stride)));
  EXPECT_EQ(int64_t(s["GPU_DETAIL"]["BYTES"]), int64_t(at(GpuDetailField::Bytes)));
  EXPECT_EQ(s["GPU_DETAIL"].get_object().size(), at(GpuDetailField::Count));
  std::set<std::string> kernel_classes;
  for (auto k : s["KERNEL_CLASSES"].get_array()) kernel_classes.emplace(std::string_view(k));
  for (int c = 0; c < report::kDrawClassCount; ++c) {
    const auto cls = static_cast<report::DrawClass>(c);
    EXPECT_EQ(kernel_classes.count(std::string(report::draw_class_key(cls))), report::is_kernel_class(cls) ? 1u : 0u);
  }
}

// Read through the schema the page receives, the data says what the trace says.
TEST(HtmlSchema, DataDecodedWithThePagesSchemaMatchesTheTrace) {
  Page p;
  const auto s = p.schema;
  const std::string_view starts_key = s["LANE"]["START"], packed_key = s["LANE"]["CLASS_ROW"];
  const int64_t mask = s["CLASS_MASK"], shift = s["ROW_SHIFT"];
  const size_t classes = p.data["classes"].get_array().size();
  size_t kernels = 0, events = 0;
  for (auto lane : p.data["lanes"].get_array()) {
    const int64_t rows = lane["rows"];
    for (auto c : lane[packed_key].get_array()) {
      const int64_t cls = int64_t(c) & mask, row = int64_t(c) >> shift;
      ASSERT_LT(size_t(cls), classes);
      ASSERT_LT(row, rows);
      kernels += report::is_kernel_class(static_cast<report::DrawClass>(cls));
    }
    events += lane[starts_key].get_array().size();
  }
  size_t expected_kernels = 0;
  for (EventId e = 0; e < p.e.trace.size(); ++e) expected_kernels += p.e.trace.kind[e] == EventKind::Kernel;
  EXPECT_EQ(kernels, expected_kernels);
  EXPECT_GT(events, kernels);
  auto steps = p.data["steps"].get_array();
  ASSERT_EQ(steps.size(), p.e.facts.steps.size());
  const size_t start = int64_t(s["STEP"]["START"]), dur = int64_t(s["STEP"]["DURATION"]);
  const size_t busy = int64_t(s["STEP"]["GPU_BUSY"]), launches = int64_t(s["STEP"]["LAUNCHES"]);
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepFacts& f = p.e.facts.steps[i];
    const auto t = steps.at(i);
    EXPECT_EQ(std::string_view(t.at(size_t(int64_t(s["STEP"]["NAME"])))), f.name);
    EXPECT_EQ(int64_t(t.at(start)), f.start_ns - p.e.facts.window.start_ns);
    EXPECT_EQ(int64_t(t.at(dur)), f.duration_ns);
    EXPECT_EQ(int64_t(t.at(busy)), f.gpu_busy_ns);
    EXPECT_EQ(int64_t(t.at(launches)), int64_t(f.launches));
  }
}

// The scripts read the layout from SCHEMA: none of its numbers, keys or positions of their own.
TEST(HtmlSchema, ScriptsHoldNoLayoutNumbersOfTheirOwn) {
  const std::vector<std::pair<std::regex, std::string>> banned = {
      {std::regex(R"(&\s*31\b)"), "the class mask"},
      {std::regex(R"(>>\s*5\b)"), "the row shift"},
      {std::regex(R"(\*\s*32\b|\b32\s*\*)"), "the row multiplier"},
      {std::regex(R"(\bL\.[sdncxo]\b)"), "a one-letter lane key"},
      {std::regex(R"(\bs\[\d\])"), "a step field by number"},
      {std::regex(R"(\bsteps\[[^\]]+\]\[\d\])"), "a step field by number"},
      {std::regex(R"(\bg\[\d\])"), "a launch detail by number"},
      {std::regex(R"(\bL\.o\[i \+ \d\])"), "an overview field by number"},
  };
  size_t scripts = 0;
  for (size_t i = 0; i < report::kHtmlAssetCount; ++i) {
    const report::HtmlAsset& a = report::kHtmlAssets[i];
    if (!a.name.ends_with(".js")) continue;
    ++scripts;
    const std::string text(a.text);
    for (const auto& [re, what] : banned) {
      std::smatch m;
      EXPECT_FALSE(std::regex_search(text, m, re)) << a.name << " holds " << what << ": " << m.str();
    }
  }
  EXPECT_GE(scripts, 5u);
}

// The page carries every script asset (a file left out of the script list would be dropped
// without a word), once.
TEST(HtmlSchema, EveryScriptIsOnThePage) {
  Page p;
  for (size_t i = 0; i < report::kHtmlAssetCount; ++i) {
    const report::HtmlAsset& a = report::kHtmlAssets[i];
    if (!a.name.ends_with(".js")) continue;
    const size_t at = p.html.find(a.text);
    EXPECT_NE(at, std::string::npos) << a.name;
    EXPECT_EQ(p.html.find(a.text, at + 1), std::string::npos) << a.name << " twice";
  }
}

// Every draw class has a colour on the page.
TEST(HtmlSchema, EveryDrawClassHasAColour) {
  const std::string util(report::html_asset("util.js"));
  const std::string colours = between(util, "const CLASS_COLORS = {", "};");
  for (int c = 0; c < report::kDrawClassCount; ++c) {
    const std::string k(report::draw_class_key(static_cast<report::DrawClass>(c)));
    EXPECT_TRUE(std::regex_search(colours, std::regex("\\b" + k + ": \"#[0-9a-f]{6}\""))) << k;
  }
}

}  // namespace
}  // namespace whyslow
