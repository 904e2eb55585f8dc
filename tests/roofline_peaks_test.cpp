// The datasheet table and --peaks files: GPUs matched by their exact driver name (no guessing
// from a neighbour), measured ceilings read from the committed H200 file, and clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "report/roofline_words.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

const std::string kPeaks = std::string(WHYSLOW_FIXTURES) + "/../../data/peaks/h200_measured.json";

TEST(RooflinePeaks, DatasheetMatchesExactDriverNames) {
  const Ceilings* h200 = datasheet_ceilings("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->flops(Precision::BF16), 989.5e12);  // 1,979 TFLOPS with sparsity, halved
  EXPECT_DOUBLE_EQ(h200->flops(Precision::FP32), 67e12);
  EXPECT_DOUBLE_EQ(h200->bytes_per_s, 4.8e12);
  EXPECT_EQ(h200->l2_bytes, 60 << 20);
  EXPECT_EQ(h200->sm_count, 132);
  EXPECT_FALSE(h200->source.empty());
  // Case and surrounding spaces do not matter; the NVL part is its own entry.
  EXPECT_EQ(datasheet_ceilings("  nvidia h200 "), h200);
  ASSERT_NE(datasheet_ceilings("NVIDIA H200 NVL"), nullptr);
  EXPECT_NE(datasheet_ceilings("NVIDIA H200 NVL"), h200);
  // Names as the public corpus's traces spell them.
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA B200", "AMD Instinct MI300X",
                           "AMD Instinct MI300X VF", "NVIDIA L4", "NVIDIA L40S", "NVIDIA GeForce RTX 4090",
                           "NVIDIA GeForce RTX 4070", "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA A100 80GB PCIe",
                           "NVIDIA A100-PCIE-40GB", "NVIDIA A100-SXM4-40GB"})
    EXPECT_NE(datasheet_ceilings(name), nullptr) << name;
  // A100 has no fp8: unknown, not zero-divided into a roof.
  EXPECT_EQ(datasheet_ceilings("NVIDIA A100-SXM4-80GB")->flops(Precision::FP8), 0);
  // Near misses get nothing: "NVIDIA H100" alone could be the PCIe or the SXM part.
  for (const char* name : {"NVIDIA H100", "NVIDIA GeForce RTX 4070 Ti SUPER", "Tesla V100-SXM2-32GB-LS", "NVIDIA H20",
                           "NVIDIA A10G", ""})
    EXPECT_EQ(datasheet_ceilings(name), nullptr) << name;
}

TEST(RooflinePeaks, ReadsTheMeasuredH200File) {
  const Ceilings c = load_ceilings_file(kPeaks);
  EXPECT_EQ(c.name, "NVIDIA H200");
  EXPECT_NEAR(c.bytes_per_s / 1e12, 4.23, 0.01);   // a 4 GiB device-to-device copy
  EXPECT_NEAR(c.flops(Precision::BF16) / 1e12, 789, 1);
  EXPECT_NEAR(c.flops(Precision::FP32) / 1e12, 53.5, 0.1);
  EXPECT_NEAR(c.flops(Precision::TF32) / 1e12, 405, 1);
  EXPECT_GT(c.flops(Precision::FP8), 0);
  EXPECT_EQ(c.flops(Precision::INT8), 0);  // left out on purpose: torch._int_mm is no ceiling
  EXPECT_NE(c.source.find("2026-11-29"), std::string::npos);
  EXPECT_NE(c.source.find("580.159.04"), std::string::npos);
}

std::string write_temp(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/peaks_" + std::to_string(std::hash<std::string>{}(text)) + ".json";
  std::ofstream(path) << text;
  return path;
}

TEST(RooflinePeaks, BadFilesSayWhatIsWrong) {
  const auto message = [](const std::string& path) -> std::string {
    try {
      load_ceilings_file(path);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message("/nonexistent/peaks.json").find("/nonexistent/peaks.json"), std::string::npos);
  EXPECT_NE(message(write_temp("[1, 2]")).find("expected a JSON object"), std::string::npos);
  EXPECT_NE(message(write_temp(R"({"peak_flop_per_s": {"bf17": 1e15}})")).find("unknown precision 'bf17'"),
            std::string::npos);
  EXPECT_NE(message(write_temp(R"({"memory_bytes_per_s": -4})")).find("positive"), std::string::npos);
  EXPECT_NE(message(write_temp(R"({"name": "x"})")).find("neither"), std::string::npos);
}

TEST(RooflinePeaks, MeasuredCeilingsApplyOnlyToTheGpuTheyWereMeasuredOn) {
  const Trace t = load_trace(testing::fixture("mm_bias_4096_fp32.json.gz"));
  // Without --peaks: datasheet percentages only.
  Facts f = analyze(t);
  ASSERT_EQ(f.roofline.devices.size(), 1u);
  EXPECT_FALSE(f.roofline.devices[0].measured);
  EXPECT_TRUE(std::isnan(f.roofline.kernels[0].total.pct_of_measured));
  // With the H200's measured file: both.
  const Ceilings h200 = load_ceilings_file(kPeaks);
  f = analyze(t, {&h200});
  EXPECT_TRUE(f.roofline.devices[0].measured);
  EXPECT_NEAR(f.roofline.kernels[0].total.pct_of_measured, 96, 1);  // the fp32 GEMM: 51.5 of 53.5 TFLOP/s
  // Ceilings measured on another GPU are not used, and the report says so.
  Ceilings other = h200;
  other.name = "NVIDIA A100-SXM4-80GB";
  f = analyze(t, {&other});
  EXPECT_FALSE(f.roofline.devices[0].measured);
  EXPECT_EQ(f.roofline.devices[0].peaks_measured_on, "NVIDIA A100-SXM4-80GB");
  EXPECT_NE(report::describe_unused_peaks(f.roofline.devices[0]).find("not used"), std::string::npos);
}

TEST(RooflinePeaks, UnknownGpuGetsNoRoofline) {
  // Kineto's ResNet-50 on a V100 (not in the table; its first two steps, tests/fixtures/public/
  // README.md): FLOPs and bytes from the shapes, but no roofs, so no bound and no percentages.
  const Trace t = load_trace(std::string(WHYSLOW_FIXTURES) + "/public/resnet50_v100_steps5_6.json.gz");
  const Facts f = analyze(t);
  size_t groups = 0;
  for (const KernelRoofline& k : f.roofline.kernels) groups += k.groups.size();
  EXPECT_GT(groups, 100u);
  for (const KernelRoofline& k : f.roofline.kernels)
    for (const RooflineGroup& g : k.groups) {
      EXPECT_EQ(g.verdict.bound, Bound::Unknown);
      EXPECT_TRUE(std::isnan(g.verdict.pct_of_peak));
      EXPECT_GT(g.verdict.flops + g.verdict.bytes, 0);
      EXPECT_EQ(g.verdict.basis.reason, BoundReason::NoDatasheet);
    }
}

}  // namespace
}  // namespace whyslow
