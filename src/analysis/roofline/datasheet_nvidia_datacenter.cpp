// NVIDIA's data-center GPUs. Each block cites its datasheet and the figures read off it; the
// table's rates are the dense ones (half the asterisked sparse figures).
#include "analysis/roofline/datasheet_rows.hpp"

namespace whyslow::datasheet {

std::vector<DatasheetRow> nvidia_datacenter_rows() {
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
  return {
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
  };
}

}  // namespace whyslow::datasheet
