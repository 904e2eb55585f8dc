// NVIDIA's GeForce RTX and RTX workstation cards. GeForce parts run the fp16/bf16 tensor math
// frameworks use (FP32 accumulate) at half the FP16-accumulate rate their spec sheets lead with:
// that half rate is the one here.
#include "analysis/roofline/datasheet_rows.hpp"

namespace whyslow::datasheet {

std::vector<DatasheetRow> nvidia_rtx_rows() {
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
      {{"NVIDIA GeForce RTX 4090"},
       make("NVIDIA GeForce RTX 4090", 82.6, 82.6, 165.2, 330.3, 660.6, 1.008, 72 * MB, 128, rtx4090)},
      {{"NVIDIA GeForce RTX 4070"},
       make("NVIDIA GeForce RTX 4070", 29.1, 29.1, 58.3, 116.6, 233.2, 0.504, 36 * MB, 46, rtx4070)},
  };
}

}  // namespace whyslow::datasheet
