// NVIDIA's GeForce RTX and RTX workstation cards. GeForce parts run the fp16/bf16 tensor math
// frameworks use (FP32 accumulate) at half the FP16-accumulate rate their spec sheets lead with:
// that half rate is the one here.
#include "analysis/roofline/datasheet_rows.hpp"

namespace whyslow::datasheet {

std::vector<DatasheetRow> nvidia_rtx_rows() {
  // "NVIDIA Turing GPU Architecture" whitepaper
  // (https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf),
  // GeForce RTX 2080 Ti Founders Edition (the reference board, 1,545 against 1,635 MHz boost, in
  // brackets): 68 SMs, FP32 14.2 [13.4], FP16 tensor with FP32 accumulate 56.9 [53.8], INT8
  // tensor 227.7 [215.2] TOPS, 616 GB/s, 5,632 KB L2. The Founders Edition's figures, since boards
  // boost past their rated clock: cuBLAS fp16 GEMMs with fp32 accumulate measure 55.7 TFLOPS on a
  // 2080 Ti (github.com/nlzy/turing-unlock), above the reference 53.8. Turing has no tf32, bf16,
  // fp8 or sparsity: 0.
  static const char* rtx2080ti = "NVIDIA Turing GPU Architecture whitepaper (GeForce RTX 2080 Ti Founders Edition)";
  // "NVIDIA Ampere GA102 GPU Architecture" whitepaper, Appendix A (GeForce RTX 3090, 3080, 3070
  // columns): RTX 3090: 82 SMs, FP32 35.6, TF32 35.6 | 71*, FP16 with FP32 accumulate 71 | 142*,
  // INT8 284 | 568*, 936 GB/s, 6,144 KB L2; RTX 3070 (GA104): 46 SMs, FP32 20.3, TF32 20.3 | 40.6*,
  // FP16 with FP32 accumulate 40.6 | 81.3*, INT8 162.6 | 325.2*, 448 GB/s, 4,096 KB L2. No fp8
  // before Ada. (The RTX 3080 is left out: its 10 GB and 12 GB boards report the same name with
  // 68 and 70 SMs, 760 and 912 GB/s.)
  static const char* ga102 = "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A";
  // GeForce RTX 3090 Ti (https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/):
  // 10,752 CUDA cores (84 SMs, the full GA102 and its 6 MB L2) at 1.86 GHz boost, 24 GB GDDR6X
  // at 21 Gbps on 384 bits = 1,008 GB/s. No tensor rates are published: they are the RTX 3090's
  // per-SM-per-clock rates (71 TFLOPS over 82 SMs × 1.695 GHz = 512 FP16 FLOPs per SM per clock)
  // at 84 SMs × 1.86 GHz: FP32 40.0, TF32 40.0, FP16/BF16 80.0, INT8 320.0.
  static const char* rtx3090ti = "NVIDIA RTX 3090 Ti specifications and GA102 whitepaper per-SM rates (derived, see datasheet_nvidia_rtx.cpp)";
  // "NVIDIA Ada GPU Architecture" whitepaper, GeForce RTX 4080 column: 76 SMs, FP32 48.7, TF32
  // 48.7 | 97.5*, FP16 with FP32 accumulate 97.5 | 194.9*, FP8 with FP32 accumulate 194.9 | 389.9*,
  // INT8 389.9 | 779.8*, 716.8 GB/s, 64 MB L2.
  static const char* rtx4080 = "NVIDIA Ada GPU Architecture whitepaper (GeForce RTX 4080)";
  // GeForce RTX 4070 Ti, 4060 Ti and 4060 (https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/):
  // 4070 Ti: 7,680 CUDA cores (60 SMs) at 2.61 GHz, 504 GB/s, AD104's 48 MB L2; 4060 Ti: 4,352
  // cores (34 SMs) at 2.54 GHz, 288 GB/s, 32 MB L2 (8 GB and 16 GB boards alike); 4060: 3,072
  // cores (24 SMs) at 2.46 GHz, 272 GB/s, 24 MB L2. Rates as the RTX 4070 row derives them
  // (per SM per clock: 256 FP32 and TF32, 512 FP16/BF16, 1,024 FP8, 2,048 INT8 FLOPs):
  // 4070 Ti 40.1 / 40.1 / 80.2 / 160.4 / 320.7; 4060 Ti 22.1 / 22.1 / 44.2 / 88.4 / 176.9;
  // 4060 15.1 / 15.1 / 30.2 / 60.5 / 120.9.
  static const char* ada_derived = "NVIDIA RTX 40 series specifications and Ada whitepaper per-SM rates (derived, see datasheet_nvidia_rtx.cpp)";
  // Workstation Ampere (GA102) runs fp16/bf16 with FP32 accumulate at the full rate (the A40
  // datasheet: BF16, which always accumulates in fp32, 149.7 = FP16 149.7), and its datasheets
  // print one tensor figure, the sparse fp16 one: dense half = figure / 2, tf32 = half / 2,
  // int8 = 2 × half (the A40's ratios). NVIDIA RTX A5000 datasheet
  // (https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/rtx/nvidia-rtx-a5000-datasheet.pdf):
  // 8,192 CUDA cores (64 SMs), FP32 27.8, tensor 222.2, 768 GB/s; NVIDIA RTX A6000 datasheet
  // (https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/proviz-print-nvidia-rtx-a6000-datasheet-us-nvidia-1454980-r9-web.pdf):
  // 10,752 CUDA cores (84 SMs), FP32 38.7, tensor 309.7, 768 GB/s. GA102's 6 MB L2.
  static const char* rtx_ampere = "NVIDIA RTX A5000/A6000 datasheets, tensor figure split as the A40's (derived, see datasheet_nvidia_rtx.cpp)";
  // NVIDIA RTX 6000 Ada Generation datasheet
  // (https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/rtx-6000/proviz-print-rtx6000-datasheet-web-2504660.pdf):
  // 18,176 CUDA cores (142 SMs), FP32 91.1, tensor 1,457.0 (fp8, sparse), 960 GB/s, AD102's 96 MB
  // L2 (Ada whitepaper). Split as the L40's datasheet splits the same AD102 (fp8 = int8 = 2 ×
  // half, tf32 = half / 2): FP8/INT8 728.5, FP16/BF16 364.25, TF32 182.1.
  static const char* rtx6000ada = "NVIDIA RTX 6000 Ada datasheet, tensor figure split as the L40's (derived, see datasheet_nvidia_rtx.cpp)";
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
  static const char* rtx4070 = "NVIDIA RTX 4070 specifications and Ada whitepaper per-SM rates (derived, see datasheet_nvidia_rtx.cpp)";
  // GeForce RTX 4090 D (https://www.nvidia.cn/geforce/graphics-cards/40-series/rtx-4090-d/, sold
  // in China from December 2023): 14,592 CUDA cores (114 SMs) at 2.52 GHz boost, 24 GB GDDR6X on
  // 384 bits; at 21 Gbps, the RTX 4090's memory, as launch coverage reports it (pcmasters.de,
  // "GeForce RTX 4090D ist offiziell verfügbar"): 1,008 GB/s. No tensor rates are published: the
  // RTX 4090's per-SM-per-clock rates (256 FP32 and TF32, 512 FP16/BF16, 1,024 FP8, 2,048 INT8
  // FLOPs) at 114 SMs × 2.52 GHz: FP32 73.5, TF32 73.5, FP16/BF16 147.1, FP8 294.2, INT8 588.3.
  // NVIDIA gives no L2 size for it (the 4090's 72 MB is a cut of AD102's 96 MB, so the D's need
  // not match): 0.
  static const char* rtx4090d = "NVIDIA RTX 4090 D specifications and RTX 4090 per-SM rates (derived, see datasheet_nvidia_rtx.cpp)";
  // Left out, each a name that covers parts no one row fits (as the RTX 3080 above):
  // - "NVIDIA GeForce RTX 2060": the 6 GB card (1,920 CUDA cores, 30 SMs), the 12 GB card of
  //   December 2021 (2,176 cores, 34 SMs, as its launch coverage reports) and the laptop RTX 2060
  //   (30 SMs at the laptop's clocks) all report it (NVIDIA/open-gpu-kernel-modules README,
  //   compatible GPUs: devices 1F08, 1F03 and 1F11/1F15, which pci.ids names "RTX 2060 Rev. A",
  //   "RTX 2060 12GB" and "RTX 2060 Mobile").
  // - "NVIDIA GeForce RTX 4080 Laptop GPU": 7,424 CUDA cores (58 SMs) boosting from 1,350 to
  //   2,280 MHz as the laptop's maker sets its power (60 to 150 W), 12 GB GDDR6 on 192 bits
  //   (nvidia.com/geforce/gaming-laptops/compare). The lowest boost clock would be a roof every
  //   such laptop reaches, but NVIDIA gives no memory data rate (third parties say 16, 18 or
  //   20 Gbps), so there is no sourced memory roof and no ridge point.
  // - "NVIDIA RTX 500 Ada Generation Laptop GPU": no NVIDIA figure for its clocks or memory rate
  //   could be found, and its clocks too vary with the laptop's power limit.
  return {
      {{"NVIDIA GeForce RTX 2080 Ti"},
       without_bf16(make("NVIDIA GeForce RTX 2080 Ti", 14.2, 0, 56.9, 0, 227.7, 0.616, 5632 * 1024, 68, rtx2080ti))},
      {{"NVIDIA GeForce RTX 3090"}, make("NVIDIA GeForce RTX 3090", 35.6, 35.6, 71, 0, 284, 0.936, 6 * MiB, 82, ga102)},
      {{"NVIDIA GeForce RTX 3090 Ti"},
       make("NVIDIA GeForce RTX 3090 Ti", 40.0, 40.0, 80.0, 0, 320.0, 1.008, 6 * MiB, 84, rtx3090ti)},
      {{"NVIDIA GeForce RTX 3070"}, make("NVIDIA GeForce RTX 3070", 20.3, 20.3, 40.6, 0, 162.6, 0.448, 4 * MiB, 46, ga102)},
      {{"NVIDIA GeForce RTX 4080"},
       make("NVIDIA GeForce RTX 4080", 48.7, 48.7, 97.5, 194.9, 389.9, 0.7168, 64 * MB, 76, rtx4080)},
      {{"NVIDIA GeForce RTX 4070 Ti"},
       make("NVIDIA GeForce RTX 4070 Ti", 40.1, 40.1, 80.2, 160.4, 320.7, 0.504, 48 * MB, 60, ada_derived)},
      {{"NVIDIA GeForce RTX 4060 Ti"},
       make("NVIDIA GeForce RTX 4060 Ti", 22.1, 22.1, 44.2, 88.4, 176.9, 0.288, 32 * MB, 34, ada_derived)},
      {{"NVIDIA GeForce RTX 4060"},
       make("NVIDIA GeForce RTX 4060", 15.1, 15.1, 30.2, 60.5, 120.9, 0.272, 24 * MB, 24, ada_derived)},
      {{"NVIDIA RTX A5000"}, make("NVIDIA RTX A5000", 27.8, 55.55, 111.1, 0, 222.2, 0.768, 6 * MiB, 64, rtx_ampere)},
      {{"NVIDIA RTX A6000"}, make("NVIDIA RTX A6000", 38.7, 77.4, 154.85, 0, 309.7, 0.768, 6 * MiB, 84, rtx_ampere)},
      {{"NVIDIA RTX 6000 Ada Generation"},
       make("NVIDIA RTX 6000 Ada Generation", 91.1, 182.1, 364.25, 728.5, 728.5, 0.96, 96 * MB, 142, rtx6000ada)},
      {{"NVIDIA GeForce RTX 4090"},
       make("NVIDIA GeForce RTX 4090", 82.6, 82.6, 165.2, 330.3, 660.6, 1.008, 72 * MB, 128, rtx4090)},
      {{"NVIDIA GeForce RTX 4090 D"},
       make("NVIDIA GeForce RTX 4090 D", 73.5, 73.5, 147.1, 294.2, 588.3, 1.008, 0, 114, rtx4090d)},
      {{"NVIDIA GeForce RTX 4070"},
       make("NVIDIA GeForce RTX 4070", 29.1, 29.1, 58.3, 116.6, 233.2, 0.504, 36 * MB, 46, rtx4070)},
  };
}

}  // namespace whyslow::datasheet
