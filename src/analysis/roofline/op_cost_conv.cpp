// Convolutions: conv1d/2d/3d, convolution, _convolution, cudnn_convolution.
//
// FLOPs = 2 · N · C_out · (C_in / groups) · ∏ kernel · ∏ output spatial, i.e.
// 2 · N · ∏ weight dims · ∏ output spatial, as torch.utils.flop_counter's conv_flop_count has
// it; for a transposed convolution the input's spatial size takes the output's place there.
// Output size per spatial dim: ⌊(in + 2·pad − dilation·(k − 1) − 1) / stride⌋ + 1 (PyTorch's
// Conv2d docs); transposed: (in − 1)·stride − 2·pad + dilation·(k − 1) + output_padding + 1.
// Bytes: input, weight and bias read once, output written once. cuDNN may also move the data
// between layouts (NCHW ↔ NHWC) in helper kernels: real traffic the model does not count.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>

#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

struct ConvArgs {
  size_t stride = 0, padding = 0, dilation = 0;  // argument positions
  int transposed = -1, output_padding = -1, groups = -1;
  int bias = -1;
};

// Argument positions per overload (native_functions.yaml). cudnn_convolution has no bias and
// puts padding before stride.
std::optional<ConvArgs> conv_layout(std::string_view name) {
  if (name == "conv1d" || name == "conv2d" || name == "conv3d") return ConvArgs{3, 4, 5, -1, -1, 6, 2};
  if (name == "convolution" || name == "_convolution") return ConvArgs{3, 4, 5, 6, 7, 8, 2};
  if (name == "cudnn_convolution") return ConvArgs{3, 2, 4, -1, -1, 5, -1};
  return std::nullopt;
}

// A list argument ("[1, 1]"), or one int for every spatial dim ("1").
std::optional<std::vector<int64_t>> per_dim(const OpInput& arg, size_t rank) {
  if (auto list = parse_int_list(arg.concrete)) {
    if (list->size() == 1) list->resize(rank, (*list)[0]);
    if (list->size() == rank) return list;
    return std::nullopt;
  }
  if (!arg.concrete.empty() && std::all_of(arg.concrete.begin(), arg.concrete.end(), ::isdigit))
    return std::vector<int64_t>(rank, std::stoll(arg.concrete));
  return std::nullopt;
}

}  // namespace

OpModel model_conv(std::string_view name, const std::vector<OpInput>& in) {
  const auto args = conv_layout(name);
  if (!args || in.size() < 2 || !in[0].is_tensor() || !in[1].is_tensor() || in[0].dims.size() < 3 ||
      in[1].dims.size() != in[0].dims.size() ||
      static_cast<int>(in.size()) <= std::max({static_cast<int>(args->stride), static_cast<int>(args->padding),
                                               static_cast<int>(args->dilation), args->transposed,
                                               args->output_padding, args->groups}))
    return no_model(NoModelReason::UnrecognisedArguments, fmt::format("aten::{}", name));
  const OpInput &x = in[0], &w = in[1];
  const size_t rank = x.dims.size() - 2;
  const bool transposed = args->transposed >= 0 && in[args->transposed].concrete == "True";
  auto stride = per_dim(in[args->stride], rank);
  auto dilation = per_dim(in[args->dilation], rank);
  const std::string& pad_text = in[args->padding].concrete;
  const bool same = pad_text == "same";  // conv2d(padding="same"): the output keeps the input's size
  auto padding = pad_text == "valid" ? std::vector<int64_t>(rank, 0) : per_dim(in[args->padding], rank);
  std::vector<int64_t> output_padding(rank, 0);
  if (args->output_padding >= 0)
    if (auto op = per_dim(in[args->output_padding], rank)) output_padding = *op;
  if (!stride || !dilation || (!same && !padding))
    return no_model(NoModelReason::ConvParamsNotRecorded, fmt::format("aten::{}", name));
  int64_t groups = 1;
  if (args->groups >= 0)
    if (auto g = per_dim(in[args->groups], 1)) groups = (*g)[0];

  std::vector<int64_t> out_spatial(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t len = x.dims[2 + i], k = w.dims[2 + i], s = (*stride)[i], d = (*dilation)[i];
    if (same) out_spatial[i] = len;
    else if (transposed)
      out_spatial[i] = (len - 1) * s - 2 * (*padding)[i] + d * (k - 1) + output_padding[i] + 1;
    else out_spatial[i] = (len + 2 * (*padding)[i] - d * (k - 1) - 1) / s + 1;
  }
  const int64_t c_out = transposed ? w.dims[1] * groups : w.dims[0];
  std::vector<int64_t> flop_spatial(x.dims.begin() + 2, x.dims.end());
  if (!transposed) flop_spatial = out_spatial;
  OpModel r;
  r.ok = true;
  r.cost.flops = 2.0 * static_cast<double>(x.dims[0]) * static_cast<double>(product(w.dims)) *
                 static_cast<double>(product(flop_spatial));
  const double out_bytes = static_cast<double>(x.dims[0]) * c_out * product(out_spatial) * x.element_bytes();
  const double bias = args->bias >= 0 && in[args->bias].is_tensor() ? tensor_bytes(in[args->bias]) : 0;
  r.cost.bytes = tensor_bytes(x) + tensor_bytes(w) + bias + out_bytes;
  r.cost.working_set = r.cost.bytes;
  r.cost.precision = x.precision();
  r.cost.unit = MathUnit::Matrix;
  r.cost.formula = fmt::format("aten::{}: 2·N·∏weight·∏{} = 2·{}·{}·{}", name, transposed ? "input" : "output",
                               x.dims[0], dims_text(w.dims), dims_text(flop_spatial));
  return r;
}

}  // namespace whyslow
