// The roofline in the reports: the fields added to each `kernels` entry and the `ceilings` array
// of the JSON schema (docs/JSON.md), the text table (one ceilings line per kind of GPU), and
// `--peaks` on the command line.
#include <gtest/gtest.h>
#include <fmt/core.h>
#include <simdjson.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "loader_test_util.hpp"
#include "report/text/text_report.hpp"
#include "report/json/json_report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

const std::string kPeaks = std::string(WHYSLOW_FIXTURES) + "/../../data/peaks/h200_measured.json";

TEST(RooflineReport, JsonKernelFieldsAndCeilings) {
  const Ceilings measured = load_ceilings_file(kPeaks);
  const Trace t = load_trace(testing::fixture("mm_bias_4096_fp32.json.gz"));
  const Facts f = analyze(t, {&measured});
  const std::string json = render_json(t, f, explain(t, f));
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(json);
  const simdjson::dom::element gemm = doc["kernels"].at(0);  // largest total first: the GEMM
  EXPECT_DOUBLE_EQ(gemm["flops"].get_double().value(), 3 * 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(gemm["bytes"].get_double().value(), 3 * 3.0 * 4096 * 4096 * 4);
  EXPECT_NEAR(gemm["intensity"].get_double().value(), 4096.0 / 6, 1e-9);
  EXPECT_NEAR(gemm["achieved_flop_per_s"].get_double().value() / 1e12, 51.2, 0.3);
  EXPECT_GT(gemm["achieved_bytes_per_s"].get_double().value(), 0);
  EXPECT_EQ(gemm["bound"].get_string().value(), "compute");
  EXPECT_EQ(gemm["roof_precision"].get_string().value(), "fp32");
  EXPECT_NEAR(gemm["pct_of_peak"].get_double().value(), 76.4, 0.5);
  EXPECT_NEAR(gemm["pct_of_measured"].get_double().value(), 95.7, 0.5);
  EXPECT_EQ(gemm["l2"].get_string().value(), "spills");
  EXPECT_EQ(gemm["working_set_bytes"].get_double().value(), 3.0 * 4096 * 4096 * 4);
  EXPECT_EQ(gemm["modelled_calls"].get_uint64().value(), 3u);
  EXPECT_TRUE(gemm["no_model_reason"].is_null());
  const simdjson::dom::element shape = gemm["shapes"].at(0);
  EXPECT_EQ(shape["op"].get_string().value(), "aten::mm");
  EXPECT_EQ(shape["input_dims"].get_string().value(), "[[4096, 4096], [4096, 4096]]");
  EXPECT_EQ(shape["calls"].get_uint64().value(), 3u);
  EXPECT_EQ(shape["kernels_per_op"].get_uint64().value(), 1u);
  EXPECT_DOUBLE_EQ(shape["flops_per_call"].get_double().value(), 2.0 * 4096 * 4096 * 4096);
  EXPECT_NE(std::string(shape["formula"].get_string().value()).find("2·M·N·K"), std::string::npos);
  const simdjson::dom::element c = doc["ceilings"].at(0);
  EXPECT_EQ(c["name"].get_string().value(), "NVIDIA H200");
  EXPECT_DOUBLE_EQ(c["datasheet"]["memory_bytes_per_s"].get_double().value(), 4.8e12);
  EXPECT_DOUBLE_EQ(c["datasheet"]["peak_flop_per_s"]["bf16"].get_double().value(), 989.5e12);
  EXPECT_EQ(c["datasheet"]["l2_bytes"].get_int64().value(), 60 << 20);
  EXPECT_NE(std::string(c["measured"]["source"].get_string().value()).find("h200_measured.json"), std::string::npos);
  EXPECT_TRUE(c["note"].is_null());
}

TEST(RooflineReport, JsonSaysWhyAKernelHasNoModel) {
  const auto e = testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/roofline/ops_zoo.json.gz");
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(render_json(e.trace, e.facts, e.findings));
  bool sort = false;
  for (simdjson::dom::element k : doc["kernels"].get_array()) {
    if (std::string_view(k["name"].get_string().value()).find("radixSort") == std::string_view::npos) continue;
    EXPECT_TRUE(k["bound"].is_null());
    EXPECT_TRUE(k["flops"].is_null());
    EXPECT_EQ(k["modelled_calls"].get_uint64().value(), 0u);
    EXPECT_EQ(k["no_model_reason"].get_string().value(), "no model for aten::sort");
    EXPECT_EQ(k["shapes"].get_array().size(), 0u);
    sort = true;
  }
  EXPECT_TRUE(sort);
}

// Prose wide enough for a datasheet line of every precision on one line (at the default 100 it
// wraps, as every table note does).
const TextOptions kOneLineCeilings{.line_width = 160};

TEST(RooflineReport, TextShowsTheRooflineLines) {
  const auto e = testing::explain_file(testing::fixture("mm_bias_4096_fp32.json.gz"));
  const std::string text = render_explain_text(e.trace, e.facts, e.findings, kOneLineCeilings);
  EXPECT_NE(text.find("Roofline: FLOPs and bytes"), std::string::npos);
  EXPECT_NE(text.find("NVIDIA H200 datasheet: fp32 67 · tf32 495 · bf16 990 · fp16 990 · fp8 1,979 · int8 1,979 TFLOP/s · memory 4.80 TB/s · L2 60.0 MiB"), std::string::npos);
  // One line per kernel and shape: the GEMM compute-bound at 76 % of fp32's roof, the add memory-bound.
  const size_t gemm = text.find("aten::mm ");
  ASSERT_NE(gemm, std::string::npos);
  const std::string gemm_line = text.substr(gemm, text.find('\n', gemm) - gemm);
  EXPECT_NE(gemm_line.find("137 GFLOP"), std::string::npos) << gemm_line;
  EXPECT_NE(gemm_line.find("compute"), std::string::npos) << gemm_line;
  EXPECT_NE(gemm_line.find("76 %"), std::string::npos) << gemm_line;
  EXPECT_NE(gemm_line.find("spills"), std::string::npos) << gemm_line;
  const size_t add = text.find("aten::add ");
  ASSERT_NE(add, std::string::npos);
  EXPECT_NE(text.substr(add, text.find('\n', add) - add).find("memory"), std::string::npos);
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RooflineReport, EachKindOfGpuGetsOneCeilingsLine) {
  // A host with four RTX 2080 Ti and two RTX 2060 (a name the table leaves out), one kernel on GPU 0.
  std::string devices;
  for (int id = 0; id < 6; ++id)
    devices += fmt::format("{}{{\"id\":{},\"name\":\"NVIDIA GeForce RTX {}\"}}", id ? "," : "", id,
                           id < 4 ? "2080 Ti" : "2060");
  const std::string json =
      "{\"deviceProperties\":[" + devices +
      "],\"traceEvents\":["
      "{\"ph\":\"X\",\"name\":\"aten::mm\",\"cat\":\"cpu_op\",\"ts\":10,\"dur\":30,\"pid\":1,\"tid\":1,"
      "\"args\":{\"External id\":1}},"
      "{\"ph\":\"X\",\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda_runtime\",\"ts\":12,\"dur\":5,\"pid\":1,"
      "\"tid\":1,\"args\":{\"correlation\":1,\"External id\":1}},"
      "{\"ph\":\"X\",\"name\":\"volta_sgemm_128x64_nn\",\"cat\":\"kernel\",\"ts\":100,\"dur\":100,\"pid\":0,"
      "\"tid\":7,\"args\":{\"correlation\":1,\"External id\":1,\"device\":0,\"stream\":7}}]}";
  testing::TempDir dir;
  const auto e = testing::explain_file(dir.write("six_gpus.json", json));
  ASSERT_EQ(e.facts.roofline.devices.size(), 6u);
  const std::string text = render_explain_text(e.trace, e.facts, e.findings, kOneLineCeilings);
  EXPECT_EQ(occurrences(text, "datasheet: "), 1u) << text;
  EXPECT_EQ(occurrences(text, "not in whyslow's datasheet table"), 1u) << text;
  EXPECT_NE(text.find("  4 × NVIDIA GeForce RTX 2080 Ti datasheet: fp32 14.2 · fp16 56.9 · int8 228 TFLOP/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  2 × NVIDIA GeForce RTX 2060: not in whyslow's datasheet table"), std::string::npos) << text;
}

TEST(RooflineReport, AnEightGpuTraceSaysItsDatasheetOnce) {
  // param's ResNet training trace describes the eight RTX 2080 Ti of its node: one line, not eight.
  WHYSLOW_PUBLIC_OR_SKIP("facebookresearch__param/et_replay__tests__inputs__resnet_kineto.json.gz", e);
  ASSERT_EQ(e.facts.roofline.devices.size(), 8u);
  const std::string text = render_explain_text(e.trace, e.facts, e.findings, kOneLineCeilings);
  EXPECT_EQ(occurrences(text, "datasheet: "), 1u);
  EXPECT_NE(text.find("  8 × NVIDIA GeForce RTX 2080 Ti datasheet: fp32 14.2 · fp16 56.9 · int8 228 TFLOP/s · "
                      "memory 616 GB/s · L2 5.50 MiB\n    source: NVIDIA Turing GPU Architecture whitepaper"),
            std::string::npos);
}

int run(const std::string& args, std::string* out = nullptr) {
  const std::string file = ::testing::TempDir() + "/roofline_cli.txt";
  const int status = std::system(("'" + std::string(WHYSLOW_BINARY) + "' " + args + " >'" + file + "' 2>&1").c_str());
  if (out) {
    std::stringstream s;
    s << std::ifstream(file).rdbuf();
    *out = s.str();
  }
  return WEXITSTATUS(status);
}

TEST(RooflineReport, PeaksOptionOnTheCommandLine) {
  const std::string trace = testing::fixture("mm_bias_4096_fp32.json.gz");
  std::string out;
  ASSERT_EQ(run("explain '" + trace + "' --peaks '" + kPeaks + "'", &out), 0) << out;
  EXPECT_NE(out.find("% of measured"), std::string::npos);
  EXPECT_NE(out.find("measured: fp32 53.5 · tf32 405 · bf16 789"), std::string::npos);
  ASSERT_EQ(run("kernels '" + trace + "' --peaks '" + kPeaks + "'", &out), 0) << out;
  EXPECT_NE(out.find("Roofline"), std::string::npos);
  // A file that cannot be read: exit code 1 (bad usage), and the message names it.
  EXPECT_EQ(run("explain '" + trace + "' --peaks /nonexistent/peaks.json", &out), 1);
  EXPECT_NE(out.find("peaks file /nonexistent/peaks.json"), std::string::npos) << out;
}

}  // namespace
}  // namespace whyslow
