// The datasheet table's own consistency: every row has a source and names no other row's GPU,
// its rates are ordered as the hardware orders them, precisions a generation lacks are 0, a few
// rows read back the figures their datasheets print (dense: half the sparse figure), and the names
// drivers report, old and new, find their rows.
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
                           "NVIDIA GeForce RTX 3090 Ti", "NVIDIA RTX A6000", "AMD Instinct MI210",
                           "NVIDIA GeForce RTX 2080 Ti"})
    EXPECT_EQ(row(name).flops(Precision::FP8), 0) << name;
  // TF32 starts with Ampere (and CDNA 3); BF16 too.
  for (const char* name : {"Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB", "Tesla V100S-PCIE-32GB", "Tesla T4",
                           "NVIDIA GeForce RTX 2080 Ti"}) {
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
  // Turing whitepaper, RTX 2080 Ti Founders Edition: FP32 14.2, FP16 tensor with FP32 accumulate
  // 56.9 (113.8 with FP16 accumulate), INT8 227.7 TOPS, 616 GB/s, 5,632 KB L2, 68 SMs.
  const Ceilings& rtx2080ti = row("NVIDIA GeForce RTX 2080 Ti");
  EXPECT_DOUBLE_EQ(rtx2080ti.flops(Precision::FP32), 14.2e12);
  EXPECT_DOUBLE_EQ(rtx2080ti.flops(Precision::FP16), 56.9e12);
  EXPECT_DOUBLE_EQ(rtx2080ti.flops(Precision::INT8), 227.7e12);
  EXPECT_DOUBLE_EQ(rtx2080ti.bytes_per_s, 0.616e12);
  EXPECT_EQ(rtx2080ti.l2_bytes, 5632 * 1024);
  EXPECT_EQ(rtx2080ti.sm_count, 68);
  // RTX 4090 D: 114 SMs at the 4090's 2.52 GHz and 512 FP16 FLOPs per SM per clock; its memory.
  const Ceilings& rtx4090d = row("NVIDIA GeForce RTX 4090 D");
  EXPECT_DOUBLE_EQ(rtx4090d.flops(Precision::BF16), 147.1e12);
  EXPECT_DOUBLE_EQ(rtx4090d.flops(Precision::FP8), 294.2e12);
  EXPECT_DOUBLE_EQ(rtx4090d.bytes_per_s, 1.008e12);
  EXPECT_EQ(rtx4090d.sm_count, 114);
  EXPECT_EQ(rtx4090d.l2_bytes, 0);  // NVIDIA gives none
  const Ceilings& mi210 = row("AMD Instinct MI210");
  EXPECT_DOUBLE_EQ(mi210.flops(Precision::FP16), 181e12);
  EXPECT_DOUBLE_EQ(mi210.flops(Precision::FP32), 45.3e12);  // the matrix rate
  EXPECT_EQ(mi210.sm_count, 104);
}

TEST(DatasheetTable, DerivedRowsSayTheyAre) {
  for (const char* name : {"NVIDIA GeForce RTX 4070", "NVIDIA GeForce RTX 4070 Ti", "NVIDIA GeForce RTX 4060 Ti",
                           "NVIDIA GeForce RTX 4060", "NVIDIA GeForce RTX 3090 Ti", "NVIDIA RTX A5000",
                           "NVIDIA RTX A6000", "NVIDIA RTX 6000 Ada Generation", "NVIDIA GeForce RTX 4090 D"})
    EXPECT_NE(row(name).source.find("derived"), std::string::npos) << name;
}

TEST(DatasheetTable, NamesThatCoverTwoPartsGetNoRow) {
  // One driver name for boards with different SM counts or bandwidths: no row can be right for both.
  // The RTX 2060's name covers the 6 GB card (30 SMs), the 12 GB one (34) and the laptop part.
  for (const char* name : {"NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3060", "AMD Instinct MI250X/MI250",
                           "NVIDIA GeForce RTX 2060"})
    EXPECT_EQ(datasheet_ceilings(name), nullptr) << name;
  // Laptop parts boost as far as each laptop's power limit lets them and NVIDIA publishes no memory
  // rate for them: no sourced roof. Nor do they borrow their desktop namesake's.
  for (const char* name : {"NVIDIA GeForce RTX 4080 Laptop GPU", "NVIDIA GeForce RTX 4060 Laptop GPU",
                           "NVIDIA RTX 500 Ada Generation Laptop GPU"})
    EXPECT_EQ(datasheet_ceilings(name), nullptr) << name;
}

TEST(DatasheetTable, TheNamesUsersGpusReportFindTheirRows) {
  // The names CUDA reports (NVIDIA/open-gpu-kernel-modules README, compatible GPUs), each its own row.
  for (const char* name : {"NVIDIA H800", "NVIDIA H800 PCIe", "NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 3090",
                           "NVIDIA GeForce RTX 2080 Ti", "Tesla T4", "NVIDIA RTX A5000", "NVIDIA GeForce RTX 4060"})
    EXPECT_EQ(row(name).name, name);
  // The 4090 D is a cut 4090 (114 SMs of 128), not the 4090.
  EXPECT_NE(&row("NVIDIA GeForce RTX 4090 D"), &row("NVIDIA GeForce RTX 4090"));
  // Older drivers left "NVIDIA " off GeForce names ("GeForce RTX 3090" with driver 455.23.05).
  EXPECT_EQ(&row("GeForce RTX 3090"), &row("NVIDIA GeForce RTX 3090"));
  EXPECT_EQ(&row("GeForce RTX 2080 Ti"), &row("NVIDIA GeForce RTX 2080 Ti"));
  EXPECT_EQ(&row("geforce rtx 4090 "), &row("NVIDIA GeForce RTX 4090"));
  // Only a leading vendor word is dropped, and never the whole name.
  for (const char* name : {"NVIDIA", "NVIDIA ", "NVIDIAGeForce RTX 3090", "GeForce RTX 3090 NVIDIA"})
    EXPECT_EQ(datasheet_ceilings(name), nullptr) << name;
  EXPECT_FALSE(same_gpu_name("NVIDIA", ""));
}

}  // namespace
}  // namespace whyslow
