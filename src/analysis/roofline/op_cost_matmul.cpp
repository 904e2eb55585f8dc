// GEMM-like ops: mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm (fp8), _int_mm (int8).
//
// An (M×K)·(K×N) product does M·N·K multiply-accumulates: 2·M·N·K FLOPs (as
// torch.utils.flop_counter's mm_flop counts, and as the vendors' peak rates assume). A bias or
// beta·C term adds M·N more, under 1/K of the total: left out, as flop_counter does. Bytes: both
// operands read once, the bias (or C) read once, the product written once.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

// torch's c10::ScalarType numbers, as _scaled_mm's out_dtype shows in Concrete Inputs.
int scalar_type_bytes(std::string_view concrete) {
  if (concrete == "5" || concrete == "15") return 2;  // Half, BFloat16
  if (concrete == "6") return 4;                      // Float
  return 0;
}

// 2·B·M·N·K with the operands and result described for people.
OpModel gemm(int64_t batch, int64_t m, int64_t n, int64_t k, double operand_bytes, double out_bytes,
             Precision precision, std::string what) {
  OpModel r;
  r.ok = true;
  r.cost.flops = 2.0 * static_cast<double>(batch) * m * n * k;
  r.cost.bytes = operand_bytes + out_bytes;
  r.cost.working_set = r.cost.bytes;
  r.cost.precision = precision;
  r.cost.unit = MathUnit::Matrix;
  r.cost.formula = batch == 1 ? fmt::format("{}: 2·M·N·K = 2·{}·{}·{}", what, m, n, k)
                              : fmt::format("{}: 2·B·M·N·K = 2·{}·{}·{}·{}", what, batch, m, n, k);
  return r;
}

bool tensors(const std::vector<OpInput>& in, std::initializer_list<size_t> idx, std::initializer_list<size_t> ranks) {
  auto rank = ranks.begin();
  for (size_t i : idx) {
    if (i >= in.size() || !in[i].is_tensor() || in[i].dims.size() != *rank++) return false;
  }
  return true;
}

OpModel matmul_general(const OpInput& a, const OpInput& b) {
  // torch.matmul: 1-D operands are a row (A) or a column (B); leading dims broadcast as batch.
  if (a.dims.empty() || b.dims.empty()) return no_model(NoModelReason::ScalarMatmul, "aten::matmul");
  const int64_t m = a.dims.size() == 1 ? 1 : a.dims[a.dims.size() - 2];
  const int64_t k = a.dims.back();
  const int64_t n = b.dims.size() == 1 ? 1 : b.dims.back();
  OpInput ba, bb;
  if (a.dims.size() > 2) ba.dims.assign(a.dims.begin(), a.dims.end() - 2);
  if (b.dims.size() > 2) bb.dims.assign(b.dims.begin(), b.dims.end() - 2);
  auto batch = broadcast_shape({&ba, &bb});
  if (!batch) return no_model(NoModelReason::BatchDimsDoNotBroadcast, "aten::matmul");
  const int64_t nb = product(*batch);
  return gemm(nb, m, n, k, tensor_bytes(a) + tensor_bytes(b), static_cast<double>(nb) * m * n * a.element_bytes(),
              a.precision(), "matmul");
}

}  // namespace

OpModel model_matmul(std::string_view name, const std::vector<OpInput>& in) {
  const std::string what = fmt::format("aten::{}", name);
  if (name == "mm" && tensors(in, {0, 1}, {2, 2})) {
    const OpInput &a = in[0], &b = in[1];
    return gemm(1, a.dims[0], b.dims[1], a.dims[1], tensor_bytes(a) + tensor_bytes(b),
                static_cast<double>(a.dims[0]) * b.dims[1] * a.element_bytes(), a.precision(), what);
  }
  if (name == "addmm" && tensors(in, {1, 2}, {2, 2}) && in[0].is_tensor()) {  // addmm(C, A, B, beta, alpha)
    const OpInput &c = in[0], &a = in[1], &b = in[2];
    return gemm(1, a.dims[0], b.dims[1], a.dims[1], tensor_bytes(c) + tensor_bytes(a) + tensor_bytes(b),
                static_cast<double>(a.dims[0]) * b.dims[1] * a.element_bytes(), a.precision(), what);
  }
  if (name == "bmm" && tensors(in, {0, 1}, {3, 3})) {
    const OpInput &a = in[0], &b = in[1];
    return gemm(a.dims[0], a.dims[1], b.dims[2], a.dims[2], tensor_bytes(a) + tensor_bytes(b),
                static_cast<double>(a.dims[0]) * a.dims[1] * b.dims[2] * a.element_bytes(), a.precision(), what);
  }
  if (name == "baddbmm" && tensors(in, {1, 2}, {3, 3}) && in[0].is_tensor()) {  // baddbmm(C, A, B, beta, alpha)
    const OpInput &c = in[0], &a = in[1], &b = in[2];
    return gemm(a.dims[0], a.dims[1], b.dims[2], a.dims[2], tensor_bytes(c) + tensor_bytes(a) + tensor_bytes(b),
                static_cast<double>(a.dims[0]) * a.dims[1] * b.dims[2] * a.element_bytes(), a.precision(), what);
  }
  if (name == "matmul" && in.size() >= 2 && in[0].is_tensor() && in[1].is_tensor()) return matmul_general(in[0], in[1]);
  if (name == "linear" && in.size() >= 2 && in[0].is_tensor() && tensors(in, {1}, {2}) && !in[0].dims.empty()) {
    // linear(x[…, K], W[N, K], b[N]): x flattened to (M, K) times Wᵀ.
    const OpInput &x = in[0], &w = in[1];
    const int64_t k = x.dims.back(), n = w.dims[0], m = x.numel() / std::max<int64_t>(k, 1);
    const double bias = in.size() > 2 && in[2].is_tensor() ? tensor_bytes(in[2]) : 0;
    return gemm(1, m, n, k, tensor_bytes(x) + tensor_bytes(w) + bias, static_cast<double>(m) * n * x.element_bytes(),
                x.precision(), what);
  }
  if (name == "_scaled_mm" && tensors(in, {0, 1}, {2, 2})) {
    // _scaled_mm(A, B, scale_a, scale_b, bias, scale_result, out_dtype, …): fp8 operands; the
    // result has out_dtype, or A's dtype when none is given (torch's rule).
    const OpInput &a = in[0], &b = in[1];
    int out_size = in.size() > 6 ? scalar_type_bytes(in[6].concrete) : 0;
    if (out_size == 0) out_size = a.element_bytes();
    return gemm(1, a.dims[0], b.dims[1], a.dims[1], tensor_bytes(a) + tensor_bytes(b),
                static_cast<double>(a.dims[0]) * b.dims[1] * out_size, a.precision(), what);
  }
  if (name == "_int_mm" && tensors(in, {0, 1}, {2, 2})) {  // int8 × int8 → int32
    const OpInput &a = in[0], &b = in[1];
    return gemm(1, a.dims[0], b.dims[1], a.dims[1], tensor_bytes(a) + tensor_bytes(b),
                static_cast<double>(a.dims[0]) * b.dims[1] * 4, Precision::INT8, what);
  }
  return no_model(NoModelReason::UnrecognisedArguments, fmt::format("aten::{}", name));
}

}  // namespace whyslow
