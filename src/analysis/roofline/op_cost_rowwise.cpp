// Ops that combine the elements of a row: reductions (sum, mean, amax, amin), layer_norm,
// rms_norm, softmax and log_softmax.
//
// FLOPs per input element, counting each operation of the definition once:
//   sum/mean/amax/amin  1  (one add or compare per element; mean's one divide per output is left out)
//   layer_norm          7  mean 1, variance (x−μ)² 2, normalise (x−μ)·rstd 2, affine γ·x̂+β 2
//                          (5 without weight and bias)
//   rms_norm            4  square 1, sum 1, normalise 1, scale by γ 1 (3 without weight)
//   softmax             5  max 1, x−max 1, exp 1, sum 1, divide 1 (log_softmax: the same count)
// Bytes: the input read once, the output written once (an ideal single pass; torch's kernels may
// read a row twice from cache), weights read once; layer_norm and rms_norm also write their
// per-row statistics (fp32 mean and rstd) for the backward pass.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

OpModel cost(double flops, double bytes, Precision p, std::string formula) {
  OpModel r;
  r.ok = true;
  r.cost.flops = flops;
  r.cost.bytes = bytes;
  r.cost.working_set = bytes;
  r.cost.precision = p == Precision::FP64 ? p : Precision::FP32;  // half types accumulate in fp32
  r.cost.unit = MathUnit::Vector;
  r.cost.formula = std::move(formula);
  return r;
}

// sum/mean/amax/amin(self, dim, keepdim, …): the output has the input's size with the reduced
// dims removed; an empty dim list, or no dim argument at all, reduces everything.
OpModel reduction(std::string_view name, const std::vector<OpInput>& in) {
  const OpInput& x = in[0];
  int64_t out_elements = 1;
  if (in.size() > 1 && in[1].type != "" && in[1].type != "ScalarType") {
    auto dims = parse_int_list(in[1].concrete);
    if (!dims) return no_model(NoModelReason::ReducedDimsNotRecorded, fmt::format("aten::{}", name));
    if (!dims->empty()) {
      std::vector<int64_t> kept = x.dims;
      for (int64_t d : *dims) {
        const int64_t axis = d < 0 ? d + static_cast<int64_t>(x.dims.size()) : d;
        if (axis < 0 || axis >= static_cast<int64_t>(kept.size())) return no_model(NoModelReason::DimOutOfRange, fmt::format("aten::{}", name), {}, d);
        kept[axis] = 1;
      }
      out_elements = product(kept);
    }
  }
  const double n = static_cast<double>(x.numel());
  return cost(n, tensor_bytes(x) + static_cast<double>(out_elements) * x.element_bytes(), x.precision(),
              fmt::format("aten::{}: 1 FLOP per input element × {}", name, dims_text(x.dims)));
}

// The rows a norm or softmax works on: elements / the normalized (or softmax) extent.
// `stats`: fp32 numbers per row the op returns besides its output (native_layer_norm: mean and
// rstd; _fused_rms_norm: rstd; the composite layer_norm and rms_norm return none).
OpModel norm(std::string_view name, const std::vector<OpInput>& in, int flops_affine, int flops_plain,
             int weight_at, int bias_at, int stats) {
  const OpInput& x = in[0];
  auto normalized = in.size() > 1 ? parse_int_list(in[1].concrete) : std::nullopt;
  if (!normalized || normalized->empty()) return no_model(NoModelReason::NormalizedShapeNotRecorded, fmt::format("aten::{}", name));
  const double n = static_cast<double>(x.numel());
  const double rows = n / static_cast<double>(std::max<int64_t>(1, product(*normalized)));
  const bool weight = weight_at >= 0 && static_cast<size_t>(weight_at) < in.size() && in[weight_at].is_tensor();
  const bool bias = bias_at >= 0 && static_cast<size_t>(bias_at) < in.size() && in[bias_at].is_tensor();
  const int per = weight || bias ? flops_affine : flops_plain;
  double bytes = 2 * tensor_bytes(x) + rows * 4 * stats;  // x in, y out, the statistics
  if (weight) bytes += tensor_bytes(in[weight_at]);
  if (bias) bytes += tensor_bytes(in[bias_at]);
  return cost(n * per, bytes, x.precision(),
              fmt::format("aten::{}: {} FLOPs per element × {}", name, per, dims_text(x.dims)));
}

}  // namespace

OpModel model_rowwise(std::string_view name, const std::vector<OpInput>& in) {
  if (in.empty() || !in[0].is_tensor()) return no_model(NoModelReason::NoTensorInput, fmt::format("aten::{}", name));
  if (name == "sum" || name == "mean" || name == "amax" || name == "amin") return reduction(name, in);
  // native_layer_norm / layer_norm(input, normalized_shape, weight, bias, eps, …)
  if (name == "native_layer_norm" || name == "layer_norm")
    return norm(name, in, 7, 5, 2, 3, name == "native_layer_norm" ? 2 : 0);
  // _fused_rms_norm / rms_norm(input, normalized_shape, weight, eps)
  if (name == "_fused_rms_norm" || name == "rms_norm")
    return norm(name, in, 4, 3, 2, -1, name == "_fused_rms_norm" ? 1 : 0);
  // _softmax / _log_softmax(self, dim, half_to_float), softmax(self, dim, dtype): input read,
  // output written (in fp32 when half_to_float is set).
  const OpInput& x = in[0];
  const double n = static_cast<double>(x.numel());
  const bool to_float = name != "softmax" && in.size() > 2 && in[2].concrete == "True";
  return cost(5 * n, tensor_bytes(x) + n * (to_float ? 4 : x.element_bytes()), x.precision(),
              fmt::format("aten::{}: 5 FLOPs per element × {}", name, dims_text(x.dims)));
}

}  // namespace whyslow
