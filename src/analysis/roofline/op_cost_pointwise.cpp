// Pointwise (elementwise) ops: add, mul, gelu, silu, … and their in-place forms (add_, …).
//
// The output has the broadcast shape of the tensor operands (numpy rules). FLOPs = output
// elements × the operations in the op's definition, an exp/erf/tanh counted as one (table
// below); these ops sit far left of any GPU's ridge point, so the count only has to be right in
// magnitude. Bytes: each operand's stored elements read once (a broadcast bias is read once, not
// once per row), the output written once. In place (name ending in "_"): the output is the first
// operand, so the working set counts it once. A tensor after the operands is an `out=` tensor:
// it is the output, not an input. The trace holds no tensor addresses, so an operand passed twice
// (x * x) is counted twice: such a kernel can show more than 100 % of the memory roof.
#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

struct Pointwise {
  std::string_view name;
  int operands;  // leading arguments that may be tensors
  int flops;     // per output element
};

constexpr std::array<Pointwise, 38> kOps{{
    {"add", 2, 1}, {"sub", 2, 1}, {"rsub", 2, 1}, {"mul", 2, 1}, {"div", 2, 1},
    {"neg", 1, 1}, {"abs", 1, 1}, {"relu", 1, 1}, {"clamp", 3, 2}, {"clamp_min", 2, 1},
    {"clamp_max", 2, 1}, {"maximum", 2, 1}, {"minimum", 2, 1}, {"where", 3, 1}, {"masked_fill", 3, 1},
    {"exp", 1, 1}, {"log", 1, 1}, {"sqrt", 1, 1}, {"rsqrt", 1, 1}, {"tanh", 1, 1},
    {"sin", 1, 1}, {"cos", 1, 1}, {"erf", 1, 1}, {"log1p", 1, 1}, {"expm1", 1, 1},
    {"reciprocal", 1, 1}, {"floor", 1, 1}, {"ceil", 1, 1}, {"round", 1, 1}, {"trunc", 1, 1},
    {"pow", 2, 1},
    {"sigmoid", 1, 3},     // 1 / (1 + e^−x)
    {"silu", 1, 4},        // x · σ(x) = x / (1 + e^−x)
    {"gelu", 1, 5},        // 0.5 · x · (1 + erf(x / √2)); the tanh form has 9, counted as 5
    {"hardtanh", 1, 2}, {"leaky_relu", 1, 2}, {"threshold", 1, 1},
    {"addcmul", 3, 3},     // a + v · b · c
}};

const Pointwise* find(std::string_view name) {
  if (name.ends_with("_")) name.remove_suffix(1);
  for (const Pointwise& p : kOps)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

bool is_pointwise_op(std::string_view op_name) {
  return op_name.starts_with("aten::") && find(op_name.substr(6)) != nullptr;
}

OpModel model_pointwise(std::string_view name, const std::vector<OpInput>& in) {
  const Pointwise* p = find(name);
  const bool in_place = name.ends_with("_");
  std::vector<const OpInput*> operands;
  const OpInput* out = nullptr;
  Precision precision = Precision::FP32;  // torch computes half-precision pointwise math in fp32
  for (size_t i = 0; i < in.size(); ++i) {
    const OpInput& t = in[i];
    if (t.list || (!t.dims.empty() && t.element_bytes() == 0))
      return no_model(NoModelReason::UnsupportedTensorType, fmt::format("aten::{}", name), t.type);
    // A Python number arrives typed but without dims ("double", []), like a 0-dim tensor; either
    // is one element, which changes neither the output's shape nor the bytes that matter.
    if (!t.is_tensor() || t.dims.empty()) continue;
    if (static_cast<int>(i) < p->operands) operands.push_back(&t);
    else out = &t;
    if (t.precision() == Precision::FP64) precision = Precision::FP64;
  }
  if (operands.empty()) return no_model(NoModelReason::NoTensorOperands, fmt::format("aten::{}", name));
  const auto shape = broadcast_shape(operands);
  if (!shape) return no_model(NoModelReason::ShapesDoNotBroadcast, fmt::format("aten::{}", name));
  const double elements = static_cast<double>(product(*shape));
  double read = 0;
  for (const OpInput* t : operands) read += tensor_bytes(*t);
  // The output's dtype: the out= tensor's, the first operand's in place, else the widest operand's
  // (type promotion among tensors).
  int out_size = 0;
  if (out) out_size = out->element_bytes();
  else if (in_place) out_size = operands[0]->element_bytes();
  else for (const OpInput* t : operands) out_size = std::max(out_size, t->element_bytes());
  const double written = elements * out_size;
  OpModel r;
  r.ok = true;
  r.cost.flops = elements * p->flops;
  r.cost.bytes = read + written;
  r.cost.working_set = in_place ? read : read + written;
  r.cost.precision = precision;
  r.cost.unit = MathUnit::Vector;
  r.cost.formula = fmt::format("aten::{}: {} FLOP{} per output element × {}", name, p->flops, p->flops == 1 ? "" : "s",
                               dims_text(*shape));
  r.cost.output_dims = *shape;
  r.cost.output_bytes = written;
  return r;
}

}  // namespace whyslow
