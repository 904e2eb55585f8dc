// NVIDIA's GeForce RTX and RTX workstation cards. GeForce parts run the fp16/bf16 tensor math
// frameworks use (FP32 accumulate) at half the FP16-accumulate rate their spec sheets lead with:
// that half rate is the one here.
#include "analysis/roofline/datasheet_rows.hpp"

namespace whyslow::datasheet {

std::vector<DatasheetRow> nvidia_rtx_rows() {
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
  return {
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
      {{"NVIDIA GeForce RTX 4070"},
       make("NVIDIA GeForce RTX 4070", 29.1, 29.1, 58.3, 116.6, 233.2, 0.504, 36 * MB, 46, rtx4070)},
  };
}

}  // namespace whyslow::datasheet
