// Which model answers for which op, and the helpers the models share.
#include "analysis/roofline/op_cost.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <utility>

namespace whyslow {
namespace {

using Family = OpModel (*)(std::string_view, const std::vector<OpInput>&);

// Op names (without "aten::") → the family that models them. The families check the argument
// layout of each name themselves.
constexpr std::array<std::pair<std::string_view, Family>, 40> kFamilies{{
    {"mm", model_matmul}, {"addmm", model_matmul}, {"bmm", model_matmul}, {"baddbmm", model_matmul},
    {"matmul", model_matmul}, {"linear", model_matmul}, {"_scaled_mm", model_matmul},
    {"_int_mm", model_matmul},
    {"conv1d", model_conv}, {"conv2d", model_conv}, {"conv3d", model_conv}, {"convolution", model_conv},
    {"_convolution", model_conv}, {"cudnn_convolution", model_conv},
    {"scaled_dot_product_attention", model_attention}, {"_scaled_dot_product_flash_attention", model_attention},
    {"_scaled_dot_product_efficient_attention", model_attention},
    {"_scaled_dot_product_cudnn_attention", model_attention}, {"_flash_attention_forward", model_attention},
    {"_efficient_attention_forward", model_attention}, {"_cudnn_attention_forward", model_attention},
    {"_scaled_dot_product_flash_attention_backward", model_attention},
    {"_scaled_dot_product_efficient_attention_backward", model_attention},
    {"_scaled_dot_product_cudnn_attention_backward", model_attention},
    {"_flash_attention_backward", model_attention}, {"_efficient_attention_backward", model_attention},
    {"_cudnn_attention_backward", model_attention}, {"cat", model_cat},
    {"sum", model_rowwise}, {"mean", model_rowwise}, {"amax", model_rowwise}, {"amin", model_rowwise},
    {"native_layer_norm", model_rowwise}, {"layer_norm", model_rowwise}, {"_fused_rms_norm", model_rowwise},
    {"rms_norm", model_rowwise}, {"_softmax", model_rowwise}, {"softmax", model_rowwise},
    {"_log_softmax", model_rowwise},
}};

Family memory_family(std::string_view n) {
  for (std::string_view m : {"copy_", "clone", "gather", "index_select", "embedding", "index"})
    if (n == m) return model_memory;
  return nullptr;
}

}  // namespace

OpModel model_op(std::string_view op_name, const std::vector<OpInput>& inputs) {
  // The families multiply dims freely: a shape no tensor has is refused here, for every caller.
  if (impossible_shapes(inputs)) return no_model(NoModelReason::ImpossibleShapes, std::string(op_name));
  if (!op_name.starts_with("aten::")) return no_model(NoModelReason::UnknownOp, std::string(op_name));
  const std::string_view name = op_name.substr(6);
  for (const auto& [n, family] : kFamilies)
    if (n == name) return family(name, inputs);
  if (Family f = memory_family(name)) return f(name, inputs);
  if (is_pointwise_op(op_name)) return model_pointwise(name, inputs);
  return no_model(NoModelReason::UnknownOp, std::string(op_name));
}

const ModelledOp& OpModelCache::of(EventId op, EventId kernel) {
  const bool shapes = trace_.detail[op] != UINT32_MAX && trace_.kind[op] == EventKind::CpuOp;
  const OpShapes s = shapes ? trace_.op_shapes[trace_.detail[op]] : OpShapes{};
  // A TensorList's dtype is not recorded: the kernel's name is part of what the model depends on.
  const bool lists = shapes && trace_.names.view(s.input_type).find("TensorList") != std::string_view::npos;
  const NameId kernel_name = lists && kernel != kNoEvent ? trace_.name[kernel] : kNoName;
  auto [it, inserted] =
      cache_.try_emplace({trace_.name[op], s.input_dims, s.input_type, s.input_strides, s.concrete_inputs, kernel_name});
  if (inserted) {
    ModelledOp& m = it->second;
    m.inputs = op_inputs(trace_, op);
    if (m.inputs && kernel_name != kNoName)
      for (OpInput& in : *m.inputs)
        if (in.list) in.list_element_bytes = element_bytes_from_kernel_name(trace_.names.view(kernel_name));
    if (!m.inputs) m.model = no_model(NoModelReason::ShapesNotRecorded, std::string(trace_.name_of(op)));
    else m.model = model_op(trace_.name_of(op), *m.inputs);
  }
  return it->second;
}

OpModel no_model(NoModelReason reason, std::string op, std::string detail, int64_t value) {
  OpModel m;
  m.why_not = NoModel{reason, std::move(op), std::move(detail), value};
  return m;
}

double tensor_bytes(const OpInput& t) {
  return static_cast<double>(t.stored_numel()) * t.element_bytes();
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : "×") + std::to_string(d);
  return out.empty() ? "scalar" : out;
}

// numpy/torch broadcasting: align shapes at the right; each pair of sizes must be equal or 1.
std::optional<std::vector<int64_t>> broadcast_shape(const std::vector<const OpInput*>& tensors) {
  size_t rank = 0;
  for (const OpInput* t : tensors) rank = std::max(rank, t->dims.size());
  std::vector<int64_t> out(rank, 1);
  for (const OpInput* t : tensors) {
    const size_t offset = rank - t->dims.size();
    for (size_t i = 0; i < t->dims.size(); ++i) {
      const int64_t d = t->dims[i];
      int64_t& o = out[offset + i];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  }
  // Each operand is within kMaxTensorElements, the result of broadcasting them may not be.
  if (!element_count(out)) return std::nullopt;
  return out;
}

}  // namespace whyslow
