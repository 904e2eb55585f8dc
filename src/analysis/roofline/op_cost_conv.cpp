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

#include "analysis/roofline/op_cost.hpp"
#include "common/checked_math.hpp"

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
  if (const std::optional<int64_t> n = parse_int(arg.concrete)) return std::vector<int64_t>(rank, *n);
  return std::nullopt;
}

// What makes the parameters ones no convolution has ("stride 0"), or "" when torch would accept
// them: stride and dilation ≥ 1, padding and output_padding ≥ 0, groups ≥ 1.
std::string impossible_params(const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation,
                              const std::vector<int64_t>* padding, const std::vector<int64_t>& output_padding,
                              int64_t groups) {
  for (const int64_t s : stride)
    if (s < 1) return fmt::format("stride {}", s);
  for (const int64_t d : dilation)
    if (d < 1) return fmt::format("dilation {}", d);
  if (padding)
    for (const int64_t p : *padding)
      if (p < 0) return fmt::format("padding {}", p);
  for (const int64_t p : output_padding)
    if (p < 0) return fmt::format("output_padding {}", p);
  if (groups < 1) return fmt::format("groups {}", groups);
  return "";
}

// One spatial dim's output length, in exact arithmetic: nothing when a step overflows int64
// (padding or dilation of 2^62) or the length is below 1 (torch refuses such a convolution).
std::optional<int64_t> out_length(int64_t len, int64_t k, int64_t s, int64_t pad, int64_t d, int64_t out_pad,
                                  bool transposed) {
  const std::optional<int64_t> span = checked_mul(d, k - 1), pads = checked_mul(2, pad);
  if (!span || !pads) return std::nullopt;
  std::optional<int64_t> n;
  if (transposed) {
    const std::optional<int64_t> grown = checked_mul(len - 1, s);
    if (grown) n = checked_sub(*grown, *pads);
    if (n) n = checked_add(*n, *span);
    if (n) n = checked_add(*n, out_pad);
    if (n) n = checked_add(*n, 1);
  } else {
    n = checked_add(len, *pads);
    if (n) n = checked_sub(*n, *span);
    if (n && *n >= 1) n = (*n - 1) / s + 1;
    else n = std::nullopt;
  }
  if (!n || *n < 1) return std::nullopt;
  return n;
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
  const auto impossible = [&](std::string what) {
    return no_model(NoModelReason::ImpossibleConvParams, fmt::format("aten::{}", name), std::move(what));
  };
  // A value written but not read as integers (30 digits, text) is not "not recorded": say which.
  const auto unreadable = [&](const std::optional<std::vector<int64_t>>& value, int arg, const char* what) {
    return !value && arg >= 0 && !in[arg].concrete.empty() ? fmt::format("a {} not made of int64 values", what) : "";
  };
  std::optional<std::vector<int64_t>> output_padding(std::vector<int64_t>(rank, 0));
  if (args->output_padding >= 0 && !in[args->output_padding].concrete.empty())
    output_padding = per_dim(in[args->output_padding], rank);
  std::optional<std::vector<int64_t>> groups(std::vector<int64_t>{1});
  if (args->groups >= 0 && !in[args->groups].concrete.empty()) groups = per_dim(in[args->groups], 1);
  for (std::string bad : {unreadable(stride, static_cast<int>(args->stride), "stride"),
                          unreadable(dilation, static_cast<int>(args->dilation), "dilation"),
                          same ? "" : unreadable(padding, static_cast<int>(args->padding), "padding"),
                          unreadable(output_padding, args->output_padding, "output_padding"),
                          unreadable(groups, args->groups, "groups")})
    if (!bad.empty()) return impossible(std::move(bad));
  if (!stride || !dilation || (!same && !padding))
    return no_model(NoModelReason::ConvParamsNotRecorded, fmt::format("aten::{}", name));
  if (std::string bad =
          impossible_params(*stride, *dilation, same ? nullptr : &*padding, *output_padding, (*groups)[0]);
      !bad.empty())
    return impossible(std::move(bad));

  std::vector<int64_t> out_spatial(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (same) {
      out_spatial[i] = x.dims[2 + i];
      continue;
    }
    const std::optional<int64_t> n = out_length(x.dims[2 + i], w.dims[2 + i], (*stride)[i], (*padding)[i],
                                                (*dilation)[i], (*output_padding)[i], transposed);
    if (!n) return impossible(fmt::format("an output length below 1 or beyond int64 in spatial dim {}", i));
    out_spatial[i] = *n;
  }
  const std::optional<int64_t> c_out = transposed ? checked_mul(w.dims[1], (*groups)[0]) : w.dims[0];
  std::vector<int64_t> out_dims{x.dims[0], c_out.value_or(-1)};
  out_dims.insert(out_dims.end(), out_spatial.begin(), out_spatial.end());
  // The output is a tensor too: more elements than any tensor holds is no convolution that ran.
  if (!element_count(out_dims)) return impossible(fmt::format("an output of {} elements", dims_text(out_dims)));
  std::vector<int64_t> flop_spatial(x.dims.begin() + 2, x.dims.end());
  if (!transposed) flop_spatial = out_spatial;
  OpModel r;
  r.ok = true;
  r.cost.flops = 2.0 * static_cast<double>(x.dims[0]) * static_cast<double>(product(w.dims)) *
                 static_cast<double>(product(flop_spatial));
  const double out_bytes = static_cast<double>(product(out_dims)) * x.element_bytes();
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
