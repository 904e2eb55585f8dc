// The renderers: the JSON report must say exactly what the facts say (read back with simdjson,
// times compared to the nanosecond), survive any name, and the text report must name every
// finding and step in aligned tables.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

#include "common/units.hpp"
#include "report/format.hpp"
#include "report/text/text_report.hpp"
#include "report/json/json_report.hpp"
#include "report/json/schema.hpp"
#include "report/text/tables.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using simdjson::dom::element;

// Loaded once per fixture for all the tests that read it.
const testing::Explained& explained(const std::string& fixture) {
  static std::map<std::string, testing::Explained> cache;
  auto it = cache.find(fixture);
  if (it == cache.end()) it = cache.emplace(fixture, testing::explain_file(testing::fixture(fixture))).first;
  return it->second;
}

const testing::Explained& mm_bias() { return explained("mm_bias_64_fp32.json.gz"); }

// A µs field back in integer ns. The writer prints three decimals, so ×1000 is an integer and
// the double parsed from it rounds back to it exactly.
int64_t ns(element e, const char* key) { return std::llround(e[key].get_double().value() * 1000.0); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The 64×64 matmul + add of the brief; a trace with copies, memsets and syncs; a torch.compile
// cold start with hundreds of ops and kernels whose calls differ in duration and launch shape.
class JsonReport : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const auto& e = facts_of();
    json_ = render_json(e.trace, e.facts, e.findings);
    doc_ = parser_.parse(json_).value();
  }
  const testing::Explained& facts_of() const { return explained(GetParam()); }
  std::string json_;
  simdjson::dom::parser parser_;
  element doc_;
};

INSTANTIATE_TEST_SUITE_P(Fixtures, JsonReport,
                         ::testing::Values("mm_bias_64_fp32.json.gz", "item_pageable.json.gz", "compiled_cold.json.gz"));

TEST_P(JsonReport, HeaderAndTrace) {
  const auto& e = facts_of();
  EXPECT_EQ(doc_["whyslow_version"].get_string().value(), kWhyslowVersion);
  EXPECT_EQ(doc_["schema_version"].get_int64().value(), kJsonSchemaVersion);
  const element t = doc_["trace"];
  EXPECT_EQ(t["path"].get_string().value(), e.trace.path);
  EXPECT_EQ(t["events"].get_uint64().value(), e.trace.size());
  EXPECT_EQ(t["input_bytes"].get_uint64().value(), e.trace.input_bytes);
  EXPECT_FALSE(t["truncated"].get_bool().value());
  EXPECT_TRUE(t["truncated_at_byte"].is_null());
  EXPECT_EQ(ns(t, "window_us"), e.facts.window.duration_ns);
  EXPECT_EQ(ns(t, "window_start_us"), e.facts.window.start_ns);
  EXPECT_EQ(ns(t, "gpu_busy_us"), e.facts.gpu_busy_ns);
  const simdjson::dom::array devices = t["devices"].get_array();
  ASSERT_EQ(devices.size(), e.trace.devices.size());
  ASSERT_FALSE(e.trace.devices.empty());
  EXPECT_EQ(devices.at(0)["name"].get_string().value(), e.trace.devices[0].name);
  EXPECT_EQ(devices.at(0)["num_sms"].get_int64().value(), e.trace.devices[0].num_sms);
}

TEST_P(JsonReport, StepsEqualFacts) {
  const auto& steps = facts_of().facts.steps;
  const simdjson::dom::array rows = doc_["steps"].get_array();
  ASSERT_EQ(rows.size(), steps.size());
  ASSERT_FALSE(steps.empty());
  size_t i = 0;
  for (element r : rows) {
    const StepFacts& s = steps[i++];
    EXPECT_EQ(r["name"].get_string().value(), s.name);
    EXPECT_EQ(ns(r, "duration_us"), s.duration_ns);
    EXPECT_EQ(ns(r, "cpu_us"), s.cpu_ns);
    EXPECT_EQ(ns(r, "sync_wait_us"), s.sync_wait_ns);
    EXPECT_EQ(ns(r, "gpu_busy_us"), s.gpu_busy_ns);
    EXPECT_EQ(r["kernels"].get_uint64().value(), s.kernels);
    EXPECT_EQ(r["memcpys"].get_uint64().value(), s.memcpys);
    EXPECT_EQ(r["memsets"].get_uint64().value(), s.memsets);
    EXPECT_EQ(r["launches"].get_uint64().value(), s.launches);
  }
}

TEST_P(JsonReport, KernelsEqualFacts) {
  const auto& e = facts_of();
  const simdjson::dom::array rows = doc_["kernels"].get_array();
  ASSERT_EQ(rows.size(), e.facts.kernels.size());
  ASSERT_FALSE(e.facts.kernels.empty());
  size_t i = 0;
  for (element r : rows) {
    const KernelRow& k = e.facts.kernels[i++];
    EXPECT_EQ(r["name"].get_string().value(), e.trace.names.view(k.name));
    EXPECT_EQ(r["calls"].get_uint64().value(), k.calls);
    EXPECT_EQ(ns(r, "total_us"), k.total_ns);
    EXPECT_EQ(ns(r, "min_us"), k.min_ns);
    EXPECT_EQ(ns(r, "max_us"), k.max_ns);
    EXPECT_EQ(ns(r, "median_us"), k.median_ns);
    const int64_t calls = static_cast<int64_t>(k.calls);
    EXPECT_EQ(ns(r, "mean_us"), (k.total_ns + calls / 2) / calls);
    const simdjson::dom::array grid = r["grid"].get_array();  // the fixture records launch dims
    ASSERT_EQ(grid.size(), 3u);
    for (size_t d = 0; d < 3; ++d) EXPECT_EQ(grid.at(d).get_int64().value(), k.launch.grid[d]);
    EXPECT_EQ(r["registers"].get_int64().value(), k.launch.registers);
    EXPECT_EQ(r["shared_memory"].get_int64().value(), k.launch.shared_memory);
  }
}

TEST_P(JsonReport, OpsEqualFacts) {
  const auto& ops = facts_of().facts.ops;
  const simdjson::dom::array rows = doc_["ops"].get_array();
  ASSERT_EQ(rows.size(), ops.size());
  ASSERT_FALSE(ops.empty());
  size_t i = 0, device_rows = 0;
  for (element r : rows) {
    const OpRow& op = ops[i++];
    EXPECT_EQ(r["name"].get_string().value(), op.name);
    EXPECT_EQ(r["device_row"].get_bool().value(), op.device_row);
    EXPECT_EQ(r["calls"].get_uint64().value(), op.calls);
    EXPECT_EQ(ns(r, "self_cpu_us"), op.self_cpu_ns);
    EXPECT_EQ(ns(r, "cpu_total_us"), op.cpu_total_ns);
    EXPECT_EQ(ns(r, "self_device_us"), op.self_device_ns);
    EXPECT_EQ(ns(r, "device_total_us"), op.device_total_ns);
    device_rows += op.device_row;
  }
  EXPECT_GT(device_rows, 0u);  // the kernels' own rows are there
}

TEST_P(JsonReport, AnnotationsAndFindingsEqualFacts) {
  const auto& e = facts_of();
  const simdjson::dom::array annotations = doc_["annotations"].get_array();
  ASSERT_EQ(annotations.size(), e.facts.annotations.size());
  size_t i = 0;
  for (element r : annotations) {
    const AnnotationRow& a = e.facts.annotations[i++];
    EXPECT_EQ(r["name"].get_string().value(), a.name);
    EXPECT_EQ(r["calls"].get_uint64().value(), a.calls);
    EXPECT_EQ(ns(r, "cpu_total_us"), a.cpu_total_ns);
    EXPECT_EQ(ns(r, "gpu_us"), a.gpu_ns);
    EXPECT_EQ(r["kernels"].get_uint64().value(), a.kernels);
  }
  const simdjson::dom::array findings = doc_["findings"].get_array();
  ASSERT_EQ(findings.size(), e.findings.size());
  ASSERT_FALSE(e.findings.empty());
  i = 0;
  for (element r : findings) {
    const Finding& f = e.findings[i++];
    EXPECT_EQ(r["id"].get_string().value(), std::string(to_string(f.id)));
    EXPECT_EQ(r["severity"].get_string().value(), to_string(f.severity));
    EXPECT_EQ(r["title"].get_string().value(), f.title);
    EXPECT_EQ(r["detail"].get_string().value(), f.detail);
    for (const Evidence& ev : f.evidence) {
      const element v = r["evidence"][ev.key];
      EXPECT_EQ(v["value"].get_double().value(), ev.value) << ev.key;  // shortest round-trip form
      EXPECT_EQ(v["unit"].get_string().value(), ev.unit);
    }
    EXPECT_EQ(r["events"].get_array().size(), f.events.size());
    EXPECT_EQ(r["try"].get_array().size(), f.try_next.size());
  }
}

// The µs text is cut from the integer ns, never printed through a double.
TEST_P(JsonReport, TimesAreExactDecimalText) {
  const StepFacts& s = facts_of().facts.steps.front();
  EXPECT_NE(json_.find("\"duration_us\": " + report::format_us_exact(s.duration_ns) + ","), std::string::npos);
}

TEST(Format, MicrosecondsFromNanoseconds) {
  EXPECT_EQ(report::format_us_exact(2944), "2.944");
  EXPECT_EQ(report::format_us_exact(0), "0.000");
  EXPECT_EQ(report::format_us_exact(7), "0.007");
  EXPECT_EQ(report::format_us_exact(-5), "-0.005");
  EXPECT_EQ(report::format_us_exact(123456789012345), "123456789012.345");
}

TEST(JsonEscaping, HostileNamesRoundTrip) {
  testing::Explained e = testing::explain_file(testing::fixture("mm_bias_64_fp32.json.gz"));
  const std::string nasty = std::string("say \"hi\" \\ back\\slash\nnew line\ttab\r") + '\x01' + '\x1f' +
                            std::string(1, '\0') + " µs … 名前";
  e.facts.ops.front().name = nasty;
  e.facts.steps.front().name = nasty;
  Finding f;
  f.id = FindingId::sync_wait;
  f.title = nasty;
  f.evidence = {{"nan", std::nan(""), "x"},
                {"inf", std::numeric_limits<double>::infinity(), "x"},
                {nasty, 0.1, "us"}};
  const std::string json = render_json(e.trace, e.facts, {f});
  simdjson::dom::parser parser;
  const element doc = parser.parse(json).value();
  EXPECT_EQ(doc["ops"].at(0)["name"].get_string().value(), nasty);
  EXPECT_EQ(doc["steps"].at(0)["name"].get_string().value(), nasty);
  const element finding = doc["findings"].at(0);
  EXPECT_EQ(finding["title"].get_string().value(), nasty);
  EXPECT_TRUE(finding["evidence"]["nan"]["value"].is_null());
  EXPECT_TRUE(finding["evidence"]["inf"]["value"].is_null());
  EXPECT_EQ(finding["evidence"][nasty]["value"].get_double().value(), 0.1);
  // Control characters never appear raw (a raw NUL or newline inside a string is invalid JSON).
  EXPECT_EQ(json.find('\x01'), std::string::npos);
  EXPECT_EQ(json.find(std::string(1, '\0')), std::string::npos);
  EXPECT_NE(json.find("\\u0001\\u001f\\u0000"), std::string::npos);
}

TEST(TextReport, NamesEveryFindingAndStep) {
  const auto& e = mm_bias();
  ASSERT_FALSE(e.findings.empty());
  const std::string text = render_explain_text(e.trace, e.facts, e.findings, TextOptions{});
  for (const Finding& f : e.findings) {
    // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "[" + std::string(…) here.
    std::string tag = "[";
    tag.append(to_string(f.id)).append("]");
    EXPECT_NE(text.find(tag), std::string::npos) << tag;
  }
  for (const StepFacts& s : e.facts.steps) EXPECT_NE(text.find(s.name), std::string::npos) << s.name;
  EXPECT_EQ(text.find("No problems found"), std::string::npos);
  EXPECT_FALSE(std::regex_search(text, std::regex("[0-9] us\\b")));  // µs, never "us"
  EXPECT_EQ(text.find('\x1b'), std::string::npos);  // no ANSI colour
}

TEST(TextReport, SaysSoWhenNothingFound) {
  const auto& e = mm_bias();
  const std::string text = render_explain_text(e.trace, e.facts, {}, TextOptions{});
  EXPECT_NE(text.find("No problems found"), std::string::npos);
  EXPECT_EQ(text.find("[!"), std::string::npos);
}

// Every row of the steps table ends in the same column: the last column is right-aligned, so
// equal widths mean the cells line up even with multi-byte units (µs) in them.
TEST(TextReport, StepsTableIsAligned) {
  const auto& e = mm_bias();
  const std::string text = render_explain_text(e.trace, e.facts, e.findings, TextOptions{});
  const std::vector<std::string> lines = lines_of(text);
  auto header = std::find_if(lines.begin(), lines.end(),
                             [](const std::string& l) { return l.starts_with("  step ") && l.ends_with("launches"); });
  ASSERT_NE(header, lines.end());
  const size_t width = report::display_width(*header);
  size_t rows = 0;
  for (auto it = header + 1; it != lines.end() && !it->empty(); ++it, ++rows)
    EXPECT_EQ(report::display_width(*it), width) << *it;
  EXPECT_EQ(rows, e.facts.steps.size() + 3);  // rule, steps, rule, whole trace
}

TEST(TextReport, CutTablesSayHowManyRowsAreLeft) {
  const auto& e = mm_bias();
  ASSERT_GT(e.facts.ops.size(), 2u);
  const std::string cut = render_ops_text(e.facts, TextOptions{2});
  EXPECT_NE(cut.find("… " + std::to_string(e.facts.ops.size() - 2) + " more rows (use --rows 0)"), std::string::npos);
  const std::string all = render_ops_text(e.facts, TextOptions{0});
  EXPECT_EQ(all.find("more row"), std::string::npos);
  for (const OpRow& op : e.facts.ops) {
    const std::string shown =
        op.device_row ? report::shorten(op.name, report::kNameWidth - report::kDeviceRowSuffix.size()) + " (device)"
                      : report::shorten(op.name, report::kNameWidth);
    EXPECT_NE(all.find(shown), std::string::npos) << op.name;
  }
  const std::string kernels = render_kernels_text(e.trace, e.facts, TextOptions{0});
  for (const KernelRow& k : e.facts.kernels)
    EXPECT_NE(kernels.find(report::shorten(e.trace.names.view(k.name), report::kNameWidth)), std::string::npos);
}

TEST(Format, Durations) {
  EXPECT_EQ(human_duration(0), "0");
  EXPECT_EQ(human_duration(812), "812 ns");
  EXPECT_EQ(human_duration(2944), "2.94 µs");
  EXPECT_EQ(human_duration(83'790'000), "83.8 ms");
  EXPECT_EQ(human_duration(999'600), "1.00 ms");  // rounds up into the next unit
  EXPECT_EQ(human_duration(1'234'000'000), "1.23 s");
  EXPECT_EQ(human_duration(-2944), "-2.94 µs");
  EXPECT_EQ(report::format_percent(1, 3), "33.3 %");
  EXPECT_EQ(report::format_percent(1, 0), "-");
  EXPECT_EQ(report::format_number(99.96), "100");
  EXPECT_EQ(report::format_number(0.01234), "0.0123");
  EXPECT_EQ(report::format_number(100663296), "100,663,296");
}

TEST(Format, ShortenKeepsWhatIdentifiesAKernel) {
  using report::shorten;
  EXPECT_EQ(shorten("aten::addmm", 60), "aten::addmm");  // fits: unchanged
  const std::string kernel =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
  EXPECT_EQ(shorten(kernel, 80), "vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*, 1> >");
  const std::string cut = shorten(kernel, 40);
  EXPECT_EQ(report::display_width(cut), 40u);
  EXPECT_TRUE(cut.starts_with("vectorized_elementwise_kernel<4, Fill")) << cut;
  EXPECT_EQ(shorten("my\nblock\t1", 60), "my block 1");  // a table row stays one line
  const std::string flat(100, 'a');
  EXPECT_EQ(report::display_width(shorten(flat + "µ", 60)), 60u);
  EXPECT_TRUE(shorten(flat + "_cublas", 60).ends_with("_cublas"));
}

TEST(Format, WrapNeverExceedsTheWidth) {
  const std::string text = "one two three four five six seven eight nine ten eleven twelve\n- a bullet";
  const auto lines = report::wrap(text, 20);
  ASSERT_GE(lines.size(), 4u);
  for (const std::string& l : lines) EXPECT_LE(report::display_width(l), 20u) << l;
  EXPECT_EQ(lines.back(), "- a bullet");
  // A number keeps its unit on its line.
  const auto timed = report::wrap("the step took 2.62 ms (79 events)", 17);
  ASSERT_EQ(timed.size(), 3u);
  EXPECT_EQ(timed[1], "2.62 ms (79");
}

// A word longer than the line (a path, a kernel's name) gets a line of its own, whole: wrapping
// never breaks inside a word, so `less` and a copy-paste see it as written.
TEST(Format, WrapNeverBreaksAWord) {
  const std::string path = "/home/me/runs/2024-06-01/tb/host_1234.1717000000000.pt.trace.json.gz";
  const std::string text = "read " + path + " then at::native::vectorized_elementwise_kernel<4> took 2.62 µs";
  const auto lines = report::wrap(text, 30);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "read");
  EXPECT_EQ(lines[1], path);
  std::string joined;
  for (const std::string& l : lines) {
    if (l != path && l.find("vectorized") == std::string::npos) {
      EXPECT_LE(report::display_width(l), 30u) << l;
    }
    joined += (joined.empty() ? "" : " ") + l;
  }
  EXPECT_EQ(joined, text);  // every word whole, in order
  EXPECT_EQ(lines.back(), "took 2.62 µs");  // µ is one column: the unit fits beside its number
}

}  // namespace
}  // namespace whyslow
