// What the datasheet files share: the constructor of one row's ceilings and the per-vendor lists
// that gpu_peaks.cpp joins into the table. Internal to src/analysis/roofline.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/roofline/gpu_peaks.hpp"

namespace whyslow::datasheet {

inline constexpr int64_t MB = 1'000'000, MiB = 1 << 20;

// Rates in TFLOP/s (TOP/s for int8), dense; 0 = not supported or not published. fp16 and bf16
// share the one `half` rate (without_bf16 below for parts whose tensor cores lack bf16).
Ceilings make(std::string_view name, double fp32, double tf32, double half, double fp8, double int8, double tb_per_s,
              int64_t l2_bytes, int32_t sms, std::string_view source);

// Volta's and Turing's tensor cores multiply fp16 only: the row's half rate is fp16's, and bf16
// (emulated by frameworks on these parts, if at all) gets no roof.
inline Ceilings without_bf16(Ceilings c) {
  c.flop_per_s[static_cast<size_t>(Precision::BF16)] = 0;
  return c;
}

std::vector<DatasheetRow> nvidia_datacenter_rows();
std::vector<DatasheetRow> nvidia_rtx_rows();  // GeForce RTX and RTX workstation cards
std::vector<DatasheetRow> amd_rows();

}  // namespace whyslow::datasheet
