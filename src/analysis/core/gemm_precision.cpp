// The name rules, each from kernel names in the fixtures and the public trace corpus (the examples
// in tests/gemm_precision_test.cpp), each decoding only what the library's naming scheme says.
#include "analysis/core/gemm_precision.hpp"

#include <cctype>
#include <vector>

#include "analysis/core/event_names.hpp"
#include "analysis/core/op_inputs.hpp"

namespace whyslow {
namespace {

bool name_has(std::string_view name, std::string_view part) { return name.find(part) != std::string_view::npos; }

bool name_has_ignoring_case(std::string_view name, std::string_view lower_part) {
  if (lower_part.size() > name.size()) return false;
  for (size_t i = 0; i + lower_part.size() <= name.size(); ++i) {
    size_t j = 0;
    while (j < lower_part.size() &&
           std::tolower(static_cast<unsigned char>(name[i + j])) == static_cast<unsigned char>(lower_part[j]))
      ++j;
    if (j == lower_part.size()) return true;
  }
  return false;
}

// The name's runs of letters and digits: "cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4" →
// cutlass, 80, tensorop, s1688gemm, 64x64, …; "__nv_bfloat16" → nv, bfloat16.
std::vector<std::string_view> name_tokens(std::string_view name) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && std::isalnum(static_cast<unsigned char>(name[i]))) continue;
    if (i > start) out.push_back(name.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

// Convolutions, whose names say GEMM because they are computed as one: out of scope.
bool is_convolution(std::string_view name) {
  return name_has(name, "convolve") ||       // cuDNN's implicit_convolve_sgemm / explicit_convolve_sgemm
         name_has(name, "Convolution") ||    // CUTLASS's conv::kernel::ImplicitGemmConvolution (cuDNN's copy)
         name_has(name, "_conv_") ||         // Composable Kernel's kernel_grouped_conv_fwd_xdl_…
         name_has(name, "implicit_gemm") ||  // cuDNN's xmma fprop/dgrad/wgrad kernels and their workspace setup
         name.starts_with("igemm_") ||       // MIOpen's igemm_fwd/bwd/wrw_gtc… implicit-GEMM convolutions
         name_has(name, "bwd_weight");       // Composable Kernel's kernel_batched_gemm_xdlops_bwd_weight
}

// An element type as CUTLASS, cuBLAS and xmma spell it at the start of a name part.
GemmUnit unit_of_element(std::string_view type) {
  if (type.starts_with("tf32")) return GemmUnit::Tf32TensorCore;
  if (type.starts_with("bf16")) return GemmUnit::Bf16TensorCore;
  if (type.starts_with("f16") || type.starts_with("fp16")) return GemmUnit::Fp16TensorCore;
  return GemmUnit::UnknownGemm;
}

// TensorRT-LLM's trtllm-gen batched GEMMs: bmm_<out>_<A><B>_<accumulator>_…_sm100f. e4m3 among the
// inputs (MxE2m1MxE4m3: mxfp4 weights, mxfp8 activations) is Blackwell's f8f6f4 MMA, FP8's rate.
GemmUnit trtllm_bmm_unit(const std::vector<std::string_view>& tok) {
  if (tok.size() < 3) return GemmUnit::UnknownGemm;
  return name_has_ignoring_case(tok[2], "e4m3") || name_has_ignoring_case(tok[2], "e5m2") ? GemmUnit::Fp8TensorCore
                                                                                           : GemmUnit::UnknownGemm;
}

// cuBLASLt's nvjet_[smNN_]<types>_… (Hopper, Blackwell): the types are letters, the A/B inputs' first.
GemmUnit nvjet_unit(const std::vector<std::string_view>& tok) {
  size_t i = 1;
  // The architecture, sm90 or sm100; Blackwell's names may leave it out.
  const auto architecture = [](std::string_view t) {
    return t.size() > 2 && t.starts_with("sm") && std::isdigit(static_cast<unsigned char>(t[2]));
  };
  if (i < tok.size() && architecture(tok[i])) ++i;
  if (i >= tok.size()) return GemmUnit::UnknownGemm;
  const std::string_view types = tok[i];
  if (types.starts_with("qq")) return GemmUnit::Fp8TensorCore;  // q: e4m3 A and B (qqtst: e4m3 in, bf16 out)
  if (types.starts_with("t")) return GemmUnit::Bf16TensorCore;  // t: bf16 (tst: bf16 in, fp32 math, bf16 out)
  if (types.starts_with("h")) return GemmUnit::Fp16TensorCore;  // h: fp16 (hsh)
  return GemmUnit::UnknownGemm;                                  // s (fp32): TF32 or not, the name does not say
}

// hipBLASLt/Tensile's Cijk_<A indices>_<B indices>_<types>_…: the part after B's indices starts with
// the A/B data type (Tensile's DataType.toChar()): "BBS" (bf16 in, bf16 out, fp32 math; older
// names), "B" then "BS" (newer), "SB" / "S" (fp32 in, then B for beta). A part MI<M>x<N>x… names the
// matrix instruction (MFMA): without one the math runs on the vector ALUs. MX: fp32 run as xf32.
GemmUnit tensile_unit(const std::vector<std::string_view>& tok) {
  if (tok.size() < 4) return GemmUnit::UnknownGemm;
  bool matrix_instruction = false, xf32 = false;
  for (std::string_view t : tok) {
    matrix_instruction |= t.size() > 2 && t.starts_with("MI") && std::isdigit(static_cast<unsigned char>(t[2]));
    xf32 |= t == "MX";
  }
  const std::string_view types = tok[3];
  if (types.starts_with("F8") || types.starts_with("B8")) return GemmUnit::Fp8TensorCore;  // F8 e4m3, B8 e5m2, F8B8…
  if (types.starts_with("I8")) return GemmUnit::Int8TensorCore;                           // I8: int8
  if (types.starts_with("B")) return GemmUnit::Bf16TensorCore;                            // B: bf16
  if (types.starts_with("H")) return GemmUnit::Fp16TensorCore;                            // H: half
  if (types.starts_with("D")) return GemmUnit::Fp64;                                      // D: double
  if (!types.starts_with("S")) return GemmUnit::UnknownGemm;                              // C, Z: complex; I: int32
  if (xf32) return GemmUnit::Tf32TensorCore;                                              // S as xf32
  return matrix_instruction ? GemmUnit::Fp32MatrixCore : GemmUnit::Fp32Simt;              // S: single
}

// cuBLAS's xmma kernels: smNN_xmma_gemm_<A><B>_<math in><accumulate>_<epilogue>_…: the math
// input type says the unit ("f32f32_f32f32_f32…_ffma": FFMA; "f32f32_tf32f32": TF32; "bf16bf16_bf16f32").
GemmUnit xmma_unit(const std::vector<std::string_view>& tok) {
  for (size_t i = 0; i + 2 < tok.size(); ++i)
    if (tok[i] == "gemm") {
      const std::string_view math = tok[i + 2];
      return math.starts_with("f32") ? GemmUnit::Fp32Simt : unit_of_element(math);
    }
  return GemmUnit::UnknownGemm;
}

// cuBLAS's SIMT kernels for thin products (gemv2T/gemv2N/gemvNSP/gemvx, gemmSN, gemmk1) are
// templated on their data types: half types mean fp16/bf16 data multiplied in fp32 on CUDA cores.
GemmUnit simt_unit_by_data_type(std::string_view name) {
  if (name_has(name, "bfloat16") || name_has(name, "__half")) return GemmUnit::HalfSimt;
  if (name_has(name, "double")) return GemmUnit::Fp64;
  return GemmUnit::Fp32Simt;
}

// BLAS/CUTLASS names: [element_]<accumulator letter>[instruction shape]gemm, the element type before
// it where it is not fp32 ("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16", "ampere_fp16_s16816gemm_
// fp16"). The letter is BLAS's: s single, h half, d double; an instruction shape (1688, 16816, 884)
// means a tensor-op MMA, so s with a shape is fp32 data on TF32 tensor cores, s without one is FFMA.
GemmUnit blas_unit(std::string_view name, const std::vector<std::string_view>& tok) {
  for (size_t i = 0; i < tok.size(); ++i) {
    const std::string_view t = tok[i];
    if (t.starts_with("gemv") || t == "gemmSN" || t == "gemmk1") return simt_unit_by_data_type(name);
    const size_t at = t.find("gemm");
    if (at == std::string_view::npos || at == 0) continue;
    const GemmUnit element = i > 0 ? unit_of_element(tok[i - 1]) : GemmUnit::UnknownGemm;
    if (element != GemmUnit::UnknownGemm) return element;  // bf16_s16816gemm, f16_s161616gemm, fp16_s16816gemm
    const bool shape = std::isdigit(static_cast<unsigned char>(t[at - 1]));
    if (t[0] == 's') return shape ? GemmUnit::Tf32TensorCore : GemmUnit::Fp32Simt;  // s1688gemm / sgemm, sgemmEx
    if (t[0] == 'h') return shape ? GemmUnit::Fp16TensorCore : GemmUnit::HalfSimt;  // h884gemm / hgemm
    if (t[0] == 'd') return GemmUnit::Fp64;                                         // dgemm
    // Other letters (gcgemm, fbgemm) are not decoded.
  }
  return GemmUnit::UnknownGemm;
}

// "gemm" in any case, except in "fbgemm" (the FBGEMM library's embedding and quantization kernels).
bool says_gemm(std::string_view name) {
  for (size_t at = 0; at + 4 <= name.size(); ++at)
    if (name_has_ignoring_case(name.substr(at, 4), "gemm") &&
        !(at >= 2 && name_has_ignoring_case(name.substr(at - 2, 2), "fb")))
      return true;
  return false;
}

GemmUnit unit_of_precision(Precision p) {
  switch (p) {
    case Precision::BF16: return GemmUnit::Bf16TensorCore;
    case Precision::FP16: return GemmUnit::Fp16TensorCore;
    case Precision::FP8: return GemmUnit::Fp8TensorCore;
    case Precision::INT8: return GemmUnit::Int8TensorCore;
    case Precision::FP64: return GemmUnit::Fp64;
    case Precision::FP32:  // TF32 or FFMA: torch's allow_tf32 is not in the trace
    case Precision::TF32:
    case Precision::Other: return GemmUnit::UnknownGemm;
  }
  return GemmUnit::UnknownGemm;
}

}  // namespace

std::string_view to_string(GemmUnit u) {
  switch (u) {
    case GemmUnit::NotGemm: return "not_gemm";
    case GemmUnit::Fp32Simt: return "fp32_simt";
    case GemmUnit::Fp32MatrixCore: return "fp32_matrix_core";
    case GemmUnit::HalfSimt: return "half_simt";
    case GemmUnit::Tf32TensorCore: return "tf32_tensor_core";
    case GemmUnit::Bf16TensorCore: return "bf16_tensor_core";
    case GemmUnit::Fp16TensorCore: return "fp16_tensor_core";
    case GemmUnit::Fp8TensorCore: return "fp8_tensor_core";
    case GemmUnit::Int8TensorCore: return "int8_tensor_core";
    case GemmUnit::Fp64: return "fp64";
    case GemmUnit::UnknownGemm: return "unknown_gemm";
  }
  return "unknown_gemm";
}

std::string_view describe(GemmUnit u) {
  switch (u) {
    case GemmUnit::NotGemm: return "not a GEMM";
    case GemmUnit::Fp32Simt: return "FP32 on CUDA cores (FFMA)";
    case GemmUnit::Fp32MatrixCore: return "FP32 on matrix cores (MFMA)";
    case GemmUnit::HalfSimt: return "fp16/bf16 data on CUDA cores (FP32 math)";
    case GemmUnit::Tf32TensorCore: return "TF32 tensor cores";
    case GemmUnit::Bf16TensorCore: return "bf16 tensor cores";
    case GemmUnit::Fp16TensorCore: return "fp16 tensor cores";
    case GemmUnit::Fp8TensorCore: return "FP8 tensor cores";
    case GemmUnit::Int8TensorCore: return "int8 tensor cores";
    case GemmUnit::Fp64: return "FP64";
    case GemmUnit::UnknownGemm: return "a GEMM of unknown precision";
  }
  return "a GEMM of unknown precision";
}

GemmUnit gemm_unit_of_name(std::string_view name) {
  if (is_convolution(name)) return GemmUnit::NotGemm;
  const std::vector<std::string_view> tok = name_tokens(name);
  if (name.starts_with("nvjet_")) return nvjet_unit(tok);
  if (name.starts_with("Cijk_")) return tensile_unit(tok);
  if (name_has(name, "xmma_gemm")) return xmma_unit(tok);
  if (name.starts_with("bmm_")) return trtllm_bmm_unit(tok);
  // triton_kernels' matmul_ogs (gpt-oss's MoE GEMMs, bf16 activations × mxfp4 weights): which MMA runs
  // depends on the GPU, so the launching op's dtype decides.
  if (name.starts_with("_matmul_ogs_")) return GemmUnit::UnknownGemm;
  if (is_triton_kernel(name)) {
    // Inductor's GEMM templates are triton_tem_fused_<ops> with mm/addmm/bmm among the ops; its
    // pointwise and reduction kernels name the addmm whose epilogue they fused, not a GEMM.
    if (!name.starts_with("triton_tem_")) return GemmUnit::NotGemm;
    for (std::string_view t : tok)
      if (t == "mm" || t == "addmm" || t == "bmm" || t == "baddbmm") return GemmUnit::UnknownGemm;
    return GemmUnit::NotGemm;
  }
  // Any other GEMM whose name says its inputs are 8-bit floats: DeepGEMM's fp8_gemm, DeepSeek's
  // grouped GEMMs (cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::…>),
  // CUTLASS's e4m3 kernels.
  if (says_gemm(name))
    for (std::string_view t : tok)
      if (t == "fp8" || t.starts_with("e4m3") || t.starts_with("e5m2")) return GemmUnit::Fp8TensorCore;
  const GemmUnit blas = blas_unit(name, tok);
  if (blas != GemmUnit::UnknownGemm) return blas;
  return says_gemm(name) ? GemmUnit::UnknownGemm : GemmUnit::NotGemm;  // a GEMM of a library not decoded above
}

GemmUnit gemm_unit(const Trace& t, EventId kernel) {
  const GemmUnit by_name = gemm_unit_of_name(t.name_of(kernel));
  const EventId launch = t.launch_link[kernel];
  if (by_name != GemmUnit::UnknownGemm || launch == kNoEvent) return by_name;
  for (EventId op = t.parent[launch]; op != kNoEvent; op = t.parent[op]) {
    const std::optional<std::vector<OpInput>> inputs = op_inputs(t, op);
    if (!inputs) continue;
    for (const OpInput& in : *inputs)
      if (in.is_tensor()) return unit_of_precision(in.precision());
  }
  return GemmUnit::UnknownGemm;
}

}  // namespace whyslow
