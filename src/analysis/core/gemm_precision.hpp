// What precision and unit a GEMM (matrix-multiply) kernel runs on: from the words its library puts
// in its name (cuBLAS, cuBLASLt, CUTLASS, hipBLASLt/Tensile, Triton, TensorRT-LLM), and where the
// name does not say, from the dtype of the op that launched it. For `whyslow diff` ("the GEMMs moved
// from FP32 FFMA to bf16 tensor cores") and the fp32_matmul finding (which FP32 GEMMs could use
// tensor cores).
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/trace.hpp"

namespace whyslow {

enum class GemmUnit : uint8_t {
  NotGemm,
  Fp32Simt,        // FP32 on CUDA cores (or AMD's vector ALUs): sgemm, *_ffma, CUTLASS simt, float gemv
  Fp32MatrixCore,  // FP32 inputs on AMD matrix cores (MFMA f32): neither CUDA cores nor TF32
  HalfSimt,        // fp16/bf16 data multiplied in FP32 on CUDA cores: cuBLAS's gemv and K=1 kernels
  Tf32TensorCore,
  Bf16TensorCore,
  Fp16TensorCore,
  Fp8TensorCore,
  Int8TensorCore,
  Fp64,
  UnknownGemm,  // a GEMM whose name does not say, and whose launching op's dtype does not either
};

std::string_view to_string(GemmUnit u);  // stable snake_case ids: "fp32_simt", "tf32_tensor_core", …
std::string_view describe(GemmUnit u);   // words: "FP32 on CUDA cores (FFMA)", "bf16 tensor cores", …

// The unit the kernel's name spells out; UnknownGemm for a GEMM whose name does not say (cuBLASLt's
// nvjet kernels of an fp32 GEMM, Triton mm templates), NotGemm for everything else, convolutions
// included (cuDNN's and MIOpen's implicit GEMMs are convolutions, out of scope here).
GemmUnit gemm_unit_of_name(std::string_view kernel_name);

// The kernel's unit, from its name, else from the op that launched it: the first tensor input's
// dtype (record_shapes) of the innermost enclosing op of the launch call that has one. For float
// inputs whether TF32 was allowed cannot be seen, so a float GEMM whose name is silent stays
// UnknownGemm.
GemmUnit gemm_unit(const Trace& t, EventId kernel);

}  // namespace whyslow
