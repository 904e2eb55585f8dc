// The datasheet table: dense peak rates (no 2:4 sparsity: datasheets print the sparse figure
// with an asterisk, twice the dense one), memory bandwidth, L2 size and SM count per GPU, each
// entry with its source. The rows are in datasheet_nvidia_datacenter.cpp, datasheet_nvidia_rtx.cpp
// and datasheet_amd.cpp. GPUs are matched by the exact name their driver reports (case, spaces
// around it and the "NVIDIA " older drivers left off aside); a name not here gets no roofline
// rather than a neighbour's numbers.
#include <algorithm>
#include <cctype>

#include "analysis/roofline/datasheet_rows.hpp"
#include "analysis/roofline/gpu_peaks.hpp"

namespace whyslow {

namespace datasheet {

Ceilings make(std::string_view name, double fp32, double tf32, double half, double fp8, double int8, double tb_per_s,
              int64_t l2_bytes, int32_t sms, std::string_view source) {
  constexpr double T = 1e12;
  Ceilings c;
  c.name = std::string(name);
  c.source = std::string(source);
  c.flop_per_s[static_cast<size_t>(Precision::FP32)] = fp32 * T;
  c.flop_per_s[static_cast<size_t>(Precision::TF32)] = tf32 * T;
  c.flop_per_s[static_cast<size_t>(Precision::FP16)] = half * T;
  c.flop_per_s[static_cast<size_t>(Precision::BF16)] = half * T;
  c.flop_per_s[static_cast<size_t>(Precision::FP8)] = fp8 * T;
  c.flop_per_s[static_cast<size_t>(Precision::INT8)] = int8 * T;
  c.bytes_per_s = tb_per_s * T;
  c.l2_bytes = l2_bytes;
  c.sm_count = sms;
  return c;
}

}  // namespace datasheet

const std::vector<DatasheetRow>& datasheet_table() {
  static const std::vector<DatasheetRow> rows = [] {
    std::vector<DatasheetRow> all;
    for (auto part : {datasheet::nvidia_datacenter_rows(), datasheet::nvidia_rtx_rows(), datasheet::amd_rows()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return rows;
}

namespace {

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool same_gpu_name(std::string_view a, std::string_view b) {
  // Older drivers named GeForce cards without the vendor: "GeForce RTX 3090" in PyTorch's
  // collect_env reports with drivers 455.23.05 and 457.85, "NVIDIA GeForce RTX 3090" with 510.47.03
  // (pytorch/pytorch#75198). The same card either way, so the prefix is dropped before comparing.
  const auto canonical = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    constexpr std::string_view vendor = "NVIDIA ";
    if (s.size() > vendor.size() && equal_ignoring_case(s.substr(0, vendor.size()), vendor))
      s.remove_prefix(vendor.size());
    return s;
  };
  return equal_ignoring_case(canonical(a), canonical(b));
}

const Ceilings* datasheet_ceilings(std::string_view device_name) {
  for (const DatasheetRow& row : datasheet_table())
    for (std::string_view n : row.names)
      if (same_gpu_name(n, device_name)) return &row.ceilings;
  return nullptr;
}

}  // namespace whyslow
