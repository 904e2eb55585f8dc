// The datasheet table's own consistency: every row has a source and names no other row's GPU,
// its rates are ordered as the hardware orders them, precisions a generation lacks are 0, and a
// few rows read back the figures their datasheets print (dense: half the sparse figure).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "analysis/roofline/gpu_peaks.hpp"

namespace whyslow {
namespace {

const Ceilings& row(std::string_view name) {
  const Ceilings* c = datasheet_ceilings(name);
  if (!c) throw std::runtime_error("no datasheet row for " + std::string(name));
  return *c;
}

TEST(DatasheetTable, EveryRowHasASourceAndItsOwnNames) {
  const auto& table = datasheet_table();
  for (size_t i = 0; i < table.size(); ++i) {
    const DatasheetRow& r = table[i];
    ASSERT_FALSE(r.names.empty());
    EXPECT_EQ(r.ceilings.name, r.names.front()) << "a row is named after its first driver name";
    EXPECT_FALSE(r.ceilings.source.empty()) << r.names.front();
    EXPECT_GT(r.ceilings.sm_count, 0) << r.names.front();
    EXPECT_GT(r.ceilings.bytes_per_s, 0) << r.names.front();
    for (size_t j = 0; j < table.size(); ++j)
      for (std::string_view a : r.names)
        for (std::string_view b : table[j].names)
          if (i != j || a.data() != b.data()) {
            EXPECT_FALSE(same_gpu_name(a, b)) << a << " is in two places";
          }
  }
}

TEST(DatasheetTable, RatesAreOrderedAsTheHardwareOrdersThem) {
  for (const DatasheetRow& r : datasheet_table()) {
    const Ceilings& c = r.ceilings;
    const double fp32 = c.flops(Precision::FP32), tf32 = c.flops(Precision::TF32), fp16 = c.flops(Precision::FP16),
                 bf16 = c.flops(Precision::BF16), fp8 = c.flops(Precision::FP8), int8 = c.flops(Precision::INT8);
    SCOPED_TRACE(c.name);
    EXPECT_GT(fp32, 0);
    EXPECT_GE(fp16, fp32);  // every part here has tensor (matrix) cores
    if (tf32 > 0) {
      EXPECT_GE(fp16, tf32);
      EXPECT_GE(tf32, fp32);
    }
    if (bf16 > 0) {
      EXPECT_EQ(bf16, fp16);
    }
    if (fp8 > 0) {
      EXPECT_GE(fp8, fp16);
    }
    if (int8 > 0) {
      EXPECT_GE(int8, fp16);
    }
  }
}

TEST(DatasheetTable, WhatAGenerationLacksIsZero) {
  // FP8 tensor math starts with Ada, Hopper and CDNA 3.
  for (const char* name : {"Tesla V100-SXM2-16GB", "Tesla T4", "NVIDIA A10", "NVIDIA A30", "NVIDIA A40",
                           "NVIDIA A100-SXM4-80GB", "NVIDIA A800-SXM4-80GB", "NVIDIA GeForce RTX 3090",
                           "NVIDIA GeForce RTX 3090 Ti", "NVIDIA RTX A6000", "AMD Instinct MI210"})
    EXPECT_EQ(row(name).flops(Precision::FP8), 0) << name;
  // TF32 starts with Ampere (and CDNA 3); BF16 too.
  for (const char* name : {"Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB", "Tesla V100S-PCIE-32GB", "Tesla T4"}) {
    EXPECT_EQ(row(name).flops(Precision::TF32), 0) << name;
    EXPECT_EQ(row(name).flops(Precision::BF16), 0) << name;
    EXPECT_GT(row(name).flops(Precision::FP16), 0) << name;
  }
  EXPECT_EQ(row("AMD Instinct MI210").flops(Precision::TF32), 0);
  // Volta has no int8 tensor rate and its datasheet prints none.
  EXPECT_EQ(row("Tesla V100-SXM2-32GB").flops(Precision::INT8), 0);
}

TEST(DatasheetTable, RowsReadBackTheirDatasheets) {
  const Ceilings& t4 = row("Tesla T4");  // FP32 8.1, mixed precision 65, INT8 130 TOPS, 320 GB/s
  EXPECT_DOUBLE_EQ(t4.flops(Precision::FP32), 8.1e12);
  EXPECT_DOUBLE_EQ(t4.flops(Precision::FP16), 65e12);
  EXPECT_DOUBLE_EQ(t4.flops(Precision::INT8), 130e12);
  EXPECT_DOUBLE_EQ(t4.bytes_per_s, 0.32e12);
  EXPECT_DOUBLE_EQ(row("NVIDIA A10").flops(Precision::TF32), 62.5e12);    // 62.5 | 125*
  EXPECT_DOUBLE_EQ(row("NVIDIA A40").flops(Precision::BF16), 149.7e12);   // 149.7 | 299.4*
  EXPECT_DOUBLE_EQ(row("NVIDIA A30").bytes_per_s, 0.933e12);
  EXPECT_EQ(row("NVIDIA A30").l2_bytes, 0);                               // not in its datasheet
  EXPECT_DOUBLE_EQ(row("NVIDIA H800 PCIe").flops(Precision::FP8), 1513e12);  // 3,026* halved
  EXPECT_EQ(row("NVIDIA H800 PCIe").sm_count, 114);
  EXPECT_DOUBLE_EQ(row("NVIDIA H800").flops(Precision::BF16), 989.5e12);     // 1,979* halved
  EXPECT_DOUBLE_EQ(row("NVIDIA GH200 144G HBM3e").bytes_per_s, 4.9e12);
  EXPECT_EQ(&row("NVIDIA GH200 120GB"), &row("NVIDIA GH200 480GB"));       // one HBM3 part
  EXPECT_DOUBLE_EQ(row("NVIDIA GH200 480GB").bytes_per_s, 4.0e12);
  EXPECT_DOUBLE_EQ(row("NVIDIA L40").flops(Precision::FP8), 362e12);        // 362 | 724*
  EXPECT_DOUBLE_EQ(row("Tesla V100-SXM2-32GB").flops(Precision::FP16), 125e12);
  EXPECT_DOUBLE_EQ(row("Tesla V100S-PCIE-32GB").bytes_per_s, 1.134e12);
  EXPECT_DOUBLE_EQ(row("NVIDIA GeForce RTX 3090").flops(Precision::FP16), 71e12);  // FP32 accumulate
  EXPECT_DOUBLE_EQ(row("NVIDIA GeForce RTX 4080").flops(Precision::FP8), 194.9e12);
  EXPECT_DOUBLE_EQ(row("NVIDIA RTX 6000 Ada Generation").flops(Precision::FP8), 728.5e12);  // 1,457* halved
  const Ceilings& mi210 = row("AMD Instinct MI210");
  EXPECT_DOUBLE_EQ(mi210.flops(Precision::FP16), 181e12);
  EXPECT_DOUBLE_EQ(mi210.flops(Precision::FP32), 45.3e12);  // the matrix rate
  EXPECT_EQ(mi210.sm_count, 104);
}

TEST(DatasheetTable, DerivedRowsSayTheyAre) {
  for (const char* name : {"NVIDIA GeForce RTX 4070", "NVIDIA GeForce RTX 4070 Ti", "NVIDIA GeForce RTX 4060 Ti",
                           "NVIDIA GeForce RTX 4060", "NVIDIA GeForce RTX 3090 Ti", "NVIDIA RTX A5000",
                           "NVIDIA RTX A6000", "NVIDIA RTX 6000 Ada Generation"})
    EXPECT_NE(row(name).source.find("derived"), std::string::npos) << name;
}

TEST(DatasheetTable, NamesThatCoverTwoPartsGetNoRow) {
  // One driver name for boards with different SM counts or bandwidths: no row can be right for both.
  for (const char* name : {"NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3060", "AMD Instinct MI250X/MI250"})
    EXPECT_EQ(datasheet_ceilings(name), nullptr) << name;
}

}  // namespace
}  // namespace whyslow
