// The datasheet table: dense peak rates (no 2:4 sparsity: datasheets print the sparse figure
// with an asterisk, twice the dense one), memory bandwidth, L2 size and SM count per GPU, each
// entry with its source. GPUs are matched by the exact name their driver reports; a name not
// here gets no roofline rather than a neighbour's numbers.
#include <algorithm>
#include <cctype>
#include <vector>

#include "analysis/roofline/gpu_peaks.hpp"

namespace whyslow {
namespace {

constexpr double T = 1e12;
constexpr int64_t MB = 1'000'000, MiB = 1 << 20;

struct Entry {
  std::vector<std::string_view> names;  // as deviceProperties.name reports them
  Ceilings c;
};

// Rates in TFLOP/s (TOP/s for int8); 0 = not supported. fp16 and bf16 share the one rate.
Ceilings make(std::string_view name, double fp32, double tf32, double half, double fp8, double int8, double tb_per_s,
              int64_t l2_bytes, int32_t sms, std::string_view source) {
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

const std::vector<Entry>& table() {
  // NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf,
  // https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf):
  // FP32 19.5, TF32 156, BF16/FP16 312, INT8 624 (dense), no FP8; 1,555 GB/s (40 GB),
  // 2,039 GB/s (80 GB SXM), 1,935 GB/s (80 GB PCIe). 108 SMs and 40 MB L2: "NVIDIA A100 Tensor
  // Core GPU Architecture" whitepaper.
  static const char* a100 = "NVIDIA A100 datasheet (nvidia.com, a100 datasheet r4) and A100 architecture whitepaper";
  // NVIDIA H100 Tensor Core GPU datasheet (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet):
  // SXM: FP32 67, TF32 989*, BF16/FP16 1,979*, FP8/INT8 3,958* (* sparse: dense is half), 3.35 TB/s;
  // PCIe: FP32 51, TF32 756*, BF16 1,513*, FP8/INT8 3,026*, 2 TB/s; NVL: FP32 60, TF32 835*,
  // BF16 1,671*, FP8/INT8 3,341*, 3.9 TB/s. SMs (132 SXM and NVL, 114 PCIe) and the 50 MB L2:
  // "NVIDIA H100 Tensor Core GPU Architecture" whitepaper.
  static const char* h100 = "NVIDIA H100 datasheet (resources.nvidia.com, nvidia-tensor-core-gpu-datasheet) and H100 architecture whitepaper";
  // NVIDIA H200 Tensor Core GPU datasheet (https://www.nvidia.com/en-us/data-center/h200/): SXM:
  // the H100 SXM's rates (FP32 67, TF32 989*, BF16/FP16 1,979*, FP8/INT8 3,958*), 4.8 TB/s;
  // NVL: FP32 60, TF32 835*, BF16 1,671*, FP8/INT8 3,341*, 4.8 TB/s. 132 SMs and a 60 MiB L2
  // as CUDA reports them on an H200 SXM (numSms in tests/fixtures/torch, L2_cache_size =
  // 62,914,560 in data/peaks/h200_measured.json).
  static const char* h200 = "NVIDIA H200 datasheet (nvidia.com/en-us/data-center/h200); SMs and L2 as CUDA reports them";
  // NVIDIA HGX B200 specifications (https://www.nvidia.com/en-us/data-center/hgx/), per GPU
  // (the HGX figures over 8): FP32 75, TF32 2.25 P*, BF16/FP16 4.5 P*, FP8/INT8 9 P*, 8 TB/s.
  // 148 SMs as the B200 trace in ../shared/traces/public reports. The L2 size is not in
  // NVIDIA's specifications: 126 MB is the size CUDA reports per third-party measurements
  // (chipsandcheese.com "Nvidia's B200: Keeping the CUDA Juggernaut Rolling"); treat it as a lead.
  static const char* b200 = "NVIDIA HGX B200 specifications (nvidia.com/en-us/data-center/hgx) per GPU; L2 from third-party measurements";
  // NVIDIA L4 datasheet (https://www.nvidia.com/en-us/data-center/l4/): FP32 30.3, TF32 120*,
  // BF16/FP16 242*, FP8/INT8 485*, 300 GB/s. 58 SMs and 48 MB L2: "NVIDIA Ada GPU Architecture"
  // whitepaper (AD104 as configured for L4).
  static const char* l4 = "NVIDIA L4 datasheet (nvidia.com/en-us/data-center/l4) and Ada architecture whitepaper";
  // NVIDIA L40S datasheet (https://www.nvidia.com/en-us/data-center/l40s/): FP32 91.6, TF32 366*,
  // BF16/FP16 733*, FP8/INT8 1,466*, 864 GB/s. 142 SMs and 96 MB L2: Ada architecture whitepaper (AD102).
  static const char* l40s = "NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s) and Ada architecture whitepaper";
  // "NVIDIA Ada GPU Architecture" whitepaper v2.01, GeForce RTX 4090 column: FP32 82.6, TF32 82.6
  // (dense), FP16/BF16 with FP32 accumulate 165.2, FP8 with FP32 accumulate 330.3, INT8 660.6,
  // 1,008 GB/s, 72 MB L2, 128 SMs. (GeForce parts run FP32-accumulate tensor math, what
  // frameworks use, at half the FP16-accumulate rate.)
  static const char* rtx4090 = "NVIDIA Ada GPU Architecture whitepaper v2.01 (GeForce RTX 4090)";
  // GeForce RTX 4070 (https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/):
  // 5,888 CUDA cores (46 SMs) at 2.475 GHz boost, 504 GB/s, 36 MB L2 (Ada whitepaper, AD104).
  // The whitepaper lists no tensor rates for it: they are the RTX 4090's per-SM-per-clock rates
  // (its 165.2 TFLOPS over 128 SMs × 2.52 GHz = 512 FP16 FLOPs per SM per clock) scaled to 46 SMs
  // at 2.475 GHz: FP32 29.1, TF32 29.1, FP16/BF16 58.3, FP8 116.6, INT8 233.2.
  static const char* rtx4070 = "NVIDIA RTX 4070 specifications and Ada whitepaper per-SM rates (derived, see gpu_peaks.cpp)";
  // AMD Instinct MI300X data sheet (https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf):
  // FP32 matrix 163.4 (vector 81.7), TF32 653.7, FP16/BF16 1,307.4, FP8 2,614.9, INT8 2,614.9
  // (dense), 5.3 TB/s, 304 CUs. The cache in front of HBM is the 256 MB Infinity Cache (the L2
  // is 4 MB per XCD): it is what a working set has to fit in. The fp32 roof is the matrix rate,
  // since fp32 GEMMs are the only fp32 work that approaches it.
  static const char* mi300x = "AMD Instinct MI300X data sheet (amd.com)";
  static const std::vector<Entry> entries = {
      {{"NVIDIA A100-SXM4-40GB"}, make("NVIDIA A100-SXM4-40GB", 19.5, 156, 312, 0, 624, 1.555, 40 * MB, 108, a100)},
      {{"NVIDIA A100-SXM4-80GB"}, make("NVIDIA A100-SXM4-80GB", 19.5, 156, 312, 0, 624, 2.039, 40 * MB, 108, a100)},
      {{"NVIDIA A100-PCIE-40GB"}, make("NVIDIA A100-PCIE-40GB", 19.5, 156, 312, 0, 624, 1.555, 40 * MB, 108, a100)},
      {{"NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB"},
       make("NVIDIA A100 80GB PCIe", 19.5, 156, 312, 0, 624, 1.935, 40 * MB, 108, a100)},
      {{"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
       make("NVIDIA H100 80GB HBM3", 67, 494.5, 989.5, 1979, 1979, 3.35, 50 * MB, 132, h100)},
      {{"NVIDIA H100 PCIe"}, make("NVIDIA H100 PCIe", 51, 378, 756.5, 1513, 1513, 2.0, 50 * MB, 114, h100)},
      {{"NVIDIA H100 NVL"}, make("NVIDIA H100 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, 3.9, 50 * MB, 132, h100)},
      {{"NVIDIA H200"}, make("NVIDIA H200", 67, 494.5, 989.5, 1979, 1979, 4.8, 60 * MiB, 132, h200)},
      {{"NVIDIA H200 NVL"}, make("NVIDIA H200 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, 4.8, 60 * MiB, 132, h200)},
      {{"NVIDIA B200"}, make("NVIDIA B200", 75, 1125, 2250, 4500, 4500, 8.0, 126 * MB, 148, b200)},
      {{"NVIDIA L4"}, make("NVIDIA L4", 30.3, 60, 121, 242.5, 242.5, 0.3, 48 * MB, 58, l4)},
      {{"NVIDIA L40S"}, make("NVIDIA L40S", 91.6, 183, 366.5, 733, 733, 0.864, 96 * MB, 142, l40s)},
      {{"NVIDIA GeForce RTX 4090"},
       make("NVIDIA GeForce RTX 4090", 82.6, 82.6, 165.2, 330.3, 660.6, 1.008, 72 * MB, 128, rtx4090)},
      {{"NVIDIA GeForce RTX 4070"},
       make("NVIDIA GeForce RTX 4070", 29.1, 29.1, 58.3, 116.6, 233.2, 0.504, 36 * MB, 46, rtx4070)},
      // "VF": the virtual function a VM sees, the same chip.
      {{"AMD Instinct MI300X", "AMD Instinct MI300X VF"},
       make("AMD Instinct MI300X", 163.4, 653.7, 1307.4, 2614.9, 2614.9, 5.3, 256 * MB, 304, mi300x)},
  };
  return entries;
}

}  // namespace

bool same_gpu_name(std::string_view a, std::string_view b) {
  const auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  a = trim(a);
  b = trim(b);
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

const Ceilings* datasheet_ceilings(std::string_view device_name) {
  for (const Entry& e : table())
    for (std::string_view n : e.names)
      if (same_gpu_name(n, device_name)) return &e.c;
  return nullptr;
}

}  // namespace whyslow
