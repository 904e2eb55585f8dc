// NVIDIA's data-center GPUs. Each block cites its datasheet and the figures read off it; the
// table's rates are the dense ones (half the asterisked sparse figures).
#include "analysis/roofline/datasheet_rows.hpp"

namespace whyslow::datasheet {

std::vector<DatasheetRow> nvidia_datacenter_rows() {
  // NVIDIA Tesla V100 datasheet (https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf):
  // SXM2: FP32 15.7, tensor (fp16 in, fp32 accumulate) 125; PCIe: FP32 14, tensor 112; V100S
  // PCIe: FP32 16.4, tensor 130; 900 GB/s (V100S 1,134 GB/s). No tf32, bf16, fp8 or int8 tensor
  // rate on Volta (the datasheet gives no int8 figure): 0. 80 SMs and the 6,144 KB L2: "NVIDIA
  // Tesla V100 GPU Architecture" whitepaper.
  static const char* v100 = "NVIDIA Tesla V100 datasheet (images.nvidia.com, volta-v100-datasheet r5) and V100 architecture whitepaper";
  // NVIDIA T4 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf):
  // FP32 8.1, mixed precision (fp16/fp32) 65, INT8 130 TOPS (dense: Turing has no sparsity),
  // 320+ GB/s. 40 SMs (2,560 CUDA cores, 64 per Turing SM) and the TU104's 4 MB L2: "NVIDIA
  // Turing GPU Architecture" whitepaper. No tf32, bf16 or fp8 on Turing.
  static const char* t4 = "NVIDIA T4 datasheet (nvidia.com, t4-tensor-core-datasheet-951643) and Turing architecture whitepaper";
  // NVIDIA A10 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/datasheet-new/nvidia-a10-datasheet.pdf):
  // FP32 31.2, TF32 62.5 | 125*, BF16/FP16 125 | 250*, INT8 250 | 500*, 600 GB/s. 72 SMs (9,216
  // CUDA cores, 128 per GA10x SM) and GA102's 6 MB L2: "NVIDIA Ampere GA102 GPU Architecture"
  // whitepaper.
  static const char* a10 = "NVIDIA A10 datasheet (nvidia.com, nvidia-a10-datasheet) and GA102 architecture whitepaper";
  // NVIDIA A30 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf):
  // FP32 10.3, TF32 82 | 165*, BF16/FP16 165 | 330*, INT8 330 | 661*, 933 GB/s. 56 SMs (3,584
  // CUDA cores, 64 per GA100 SM). The datasheet gives no L2 size: 0.
  static const char* a30 = "NVIDIA A30 datasheet (nvidia.com, a30-datasheet)";
  // NVIDIA A40 datasheet (https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf):
  // FP32 37.4, TF32 74.8 | 149.6*, BF16 (fp32 accumulate) and FP16 149.7 | 299.4*, INT8
  // 299.3 | 598.6*, 696 GB/s. 84 SMs (10,752 CUDA cores) and GA102's 6 MB L2: GA102 whitepaper.
  static const char* a40 = "NVIDIA A40 datasheet (images.nvidia.com, nvidia-a40-datasheet) and GA102 architecture whitepaper";
  // NVIDIA A800 datasheet (https://www.nvidia.cn/data-center/a800/): the A100's rates (FP32 19.5,
  // TF32 156 | 312*, BF16/FP16 312 | 624*, INT8 624 | 1,248*), 2,039 GB/s (80 GB SXM),
  // 1,935 GB/s (80 GB PCIe, and its liquid-cooled "LC" variant); only NVLink is cut (400 GB/s).
  // 108 SMs and 40 MB L2 as the A100 (the same GA100 configuration).
  static const char* a800 = "NVIDIA A800 datasheet (nvidia.cn/data-center/a800) and A100 architecture whitepaper";
  // NVIDIA H800 datasheet (https://www.nvidia.cn/data-center/h800/): SXM: FP32 67, TF32 989*,
  // BF16/FP16 1,979*, FP8/INT8 3,958*, 3.35 TB/s; PCIe: FP32 51, TF32 756*, BF16/FP16 1,513*,
  // FP8/INT8 3,026*, 2 TB/s: the H100's compute, with FP64 and NVLink cut. SMs and L2 as the
  // H100 SXM and PCIe (132 and 114 SMs, 50 MB); a public log of an "NVIDIA H800 PCIe" reads
  // 114 SMs and 50 MiB of L2. The SXM part reports itself as plain "NVIDIA H800"
  // (NVIDIA/open-gpu-kernel-modules README, compatible GPUs: device 2324 "NVIDIA H800", 2322
  // "NVIDIA H800 PCIe").
  static const char* h800 = "NVIDIA H800 datasheet (nvidia.cn/data-center/h800) and H100 architecture whitepaper";
  // NVIDIA GH200 Grace Hopper Superchip datasheet (https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip),
  // the Hopper GPU: FP32 67, TF32 494 | 989*, BF16/FP16 990 | 1,979*, FP8/INT8 1,979 | 3,958*;
  // 96 GB HBM3 at 4 TB/s, or 144 GB HBM3e at 4.9 TB/s. "NVIDIA GH200 480GB" and "NVIDIA GH200
  // 120GB" (the size is the Grace side's LPDDR5X) share PCI device 2342, the HBM3 part; "NVIDIA
  // GH200 144G HBM3e" is device 2348 (NVIDIA/open-gpu-kernel-modules README, compatible GPUs).
  // 132 SMs as a public benchmark log of a GH200 480GB reports them; no source gives the L2: 0.
  static const char* gh200 = "NVIDIA GH200 Grace Hopper Superchip datasheet (resources.nvidia.com, grace-hopper-superchip)";
  // NVIDIA L40 datasheet (https://www.nvidia.com/en-us/data-center/l40/): FP32 90.5, TF32
  // 90.5 | 181*, BF16/FP16 181.05 | 362.1*, FP8 362 | 724*, INT8 362 | 724*, 864 GB/s. 142 SMs
  // and 96 MB L2: Ada architecture whitepaper (AD102).
  static const char* l40 = "NVIDIA L40 datasheet (nvidia.com/en-us/data-center/l40) and Ada architecture whitepaper";
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
      {{"Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB"},
       without_bf16(make("Tesla V100-SXM2-16GB", 15.7, 0, 125, 0, 0, 0.9, 6 * MiB, 80, v100))},
      {{"Tesla V100-PCIE-16GB", "Tesla V100-PCIE-32GB"},
       without_bf16(make("Tesla V100-PCIE-16GB", 14, 0, 112, 0, 0, 0.9, 6 * MiB, 80, v100))},
      {{"Tesla V100S-PCIE-32GB"}, without_bf16(make("Tesla V100S-PCIE-32GB", 16.4, 0, 130, 0, 0, 1.134, 6 * MiB, 80, v100))},
      {{"Tesla T4"}, without_bf16(make("Tesla T4", 8.1, 0, 65, 0, 130, 0.32, 4 * MiB, 40, t4))},
      {{"NVIDIA A10"}, make("NVIDIA A10", 31.2, 62.5, 125, 0, 250, 0.6, 6 * MiB, 72, a10)},
      {{"NVIDIA A30"}, make("NVIDIA A30", 10.3, 82, 165, 0, 330, 0.933, 0, 56, a30)},
      {{"NVIDIA A40"}, make("NVIDIA A40", 37.4, 74.8, 149.7, 0, 299.3, 0.696, 6 * MiB, 84, a40)},
      {{"NVIDIA A800-SXM4-80GB"}, make("NVIDIA A800-SXM4-80GB", 19.5, 156, 312, 0, 624, 2.039, 40 * MB, 108, a800)},
      {{"NVIDIA A800 80GB PCIe", "NVIDIA A800 80GB PCIe LC"},
       make("NVIDIA A800 80GB PCIe", 19.5, 156, 312, 0, 624, 1.935, 40 * MB, 108, a800)},
      {{"NVIDIA A100-SXM4-40GB"}, make("NVIDIA A100-SXM4-40GB", 19.5, 156, 312, 0, 624, 1.555, 40 * MB, 108, a100)},
      {{"NVIDIA A100-SXM4-80GB"}, make("NVIDIA A100-SXM4-80GB", 19.5, 156, 312, 0, 624, 2.039, 40 * MB, 108, a100)},
      {{"NVIDIA A100-PCIE-40GB"}, make("NVIDIA A100-PCIE-40GB", 19.5, 156, 312, 0, 624, 1.555, 40 * MB, 108, a100)},
      {{"NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB"},
       make("NVIDIA A100 80GB PCIe", 19.5, 156, 312, 0, 624, 1.935, 40 * MB, 108, a100)},
      {{"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
       make("NVIDIA H100 80GB HBM3", 67, 494.5, 989.5, 1979, 1979, 3.35, 50 * MB, 132, h100)},
      {{"NVIDIA H100 PCIe"}, make("NVIDIA H100 PCIe", 51, 378, 756.5, 1513, 1513, 2.0, 50 * MB, 114, h100)},
      {{"NVIDIA H100 NVL"}, make("NVIDIA H100 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, 3.9, 50 * MB, 132, h100)},
      {{"NVIDIA H800"}, make("NVIDIA H800", 67, 494.5, 989.5, 1979, 1979, 3.35, 50 * MB, 132, h800)},
      {{"NVIDIA H800 PCIe"}, make("NVIDIA H800 PCIe", 51, 378, 756.5, 1513, 1513, 2.0, 50 * MB, 114, h800)},
      {{"NVIDIA GH200 480GB", "NVIDIA GH200 120GB"},
       make("NVIDIA GH200 480GB", 67, 494.5, 989.5, 1979, 1979, 4.0, 0, 132, gh200)},
      {{"NVIDIA GH200 144G HBM3e"}, make("NVIDIA GH200 144G HBM3e", 67, 494.5, 989.5, 1979, 1979, 4.9, 0, 132, gh200)},
      {{"NVIDIA H200"}, make("NVIDIA H200", 67, 494.5, 989.5, 1979, 1979, 4.8, 60 * MiB, 132, h200)},
      {{"NVIDIA H200 NVL"}, make("NVIDIA H200 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, 4.8, 60 * MiB, 132, h200)},
      {{"NVIDIA B200"}, make("NVIDIA B200", 75, 1125, 2250, 4500, 4500, 8.0, 126 * MB, 148, b200)},
      {{"NVIDIA L4"}, make("NVIDIA L4", 30.3, 60, 121, 242.5, 242.5, 0.3, 48 * MB, 58, l4)},
      {{"NVIDIA L40"}, make("NVIDIA L40", 90.5, 90.5, 181.05, 362, 362, 0.864, 96 * MB, 142, l40)},
      {{"NVIDIA L40S"}, make("NVIDIA L40S", 91.6, 183, 366.5, 733, 733, 0.864, 96 * MB, 142, l40s)},
  };
}

}  // namespace whyslow::datasheet
