// FLOPs and bytes of an ATen op, from its input shapes (record_shapes). One model per op family,
// each citing its formula; an op without a model says so instead of guessing.
//
// Conventions, for every model:
// - FLOPs count a multiply-accumulate as 2 (one multiply, one add), as vendors' peak rates do.
// - `bytes` is the fewest bytes the op must move through device memory: every input read once,
//   every output written once. Expanded inputs (stride 0) count their stored elements only.
// - `working_set` is the distinct bytes it touches: an in-place op's output is its input, so
//   it counts once. The L2 verdict compares this with the L2 size.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/core/op_inputs.hpp"

namespace whyslow {

// Which of the GPU's compute roofs bounds the op's arithmetic.
enum class MathUnit : uint8_t {
  Vector,  // plain CUDA-core / vector ALU arithmetic: the fp32 (or fp64) rate
  Matrix,  // GEMM-like work that tensor cores run where the dtype has them
};

struct OpCost {
  double flops = 0;
  double bytes = 0;
  double working_set = 0;
  Precision precision = Precision::Other;  // the dtype the arithmetic runs in
  MathUnit unit = MathUnit::Vector;
  std::string formula;  // for people: "2·M·N·K = 2·4096·4096·4096"
  // Set by the pointwise models, for the fusion analysis: the output's shape and bytes.
  std::vector<int64_t> output_dims;
  double output_bytes = 0;
};

// Why calls have no cost model: a fact, worded by report/roofline_words.hpp (describe_no_model).
enum class NoModelReason : uint8_t {
  None,                     // there is a model
  UnknownOp,                // no model for this op name
  ShapesNotRecorded,        // record_shapes=False
  UnrecognisedArguments,    // the op's argument layout is not one its family knows
  ScalarMatmul,             // aten::matmul of a 0-d tensor
  BatchDimsDoNotBroadcast,  // aten::matmul's batch dims
  ReducedDimsNotRecorded,   // a reduction's dims argument
  DimOutOfRange,            // a reduction's dim (`value`) outside the tensor's rank
  NormalizedShapeNotRecorded,
  NoTensorInput,
  IndexShapesNotRecorded,   // aten::index: the profiler records no index tensors' shapes
  ListElementSizeUnknown,   // a TensorList's dtype is not recorded and the kernel's name does not give it
  PackedSequences,          // attention over packed variable-length sequences
  ConvParamsNotRecorded,    // stride, padding or dilation
  ImpossibleConvParams,     // `detail`: what no convolution has ("stride 0", "padding -1", an overflowing output)
  UnsupportedTensorType,    // `detail`: the tensor type
  NoTensorOperands,
  ShapesDoNotBroadcast,
  NoLinkedOp,               // a kernel whose launch names no op (no External id)
  NotLaunchedByAtenOp,      // a kernel launched inside `op` (an annotation), not by an ATen op
  ImpossibleShapes,         // a negative dim, or more elements than any tensor holds (impossible_shapes())
};
struct NoModel {
  NoModelReason reason = NoModelReason::None;
  std::string op;      // the op's full name ("aten::sort"), or the annotation for NotLaunchedByAtenOp
  std::string detail;  // UnsupportedTensorType: the type
  int64_t value = 0;   // DimOutOfRange: the dim
  bool empty() const { return reason == NoModelReason::None; }
};

struct OpModel {
  bool ok = false;
  OpCost cost;
  NoModel why_not;  // when !ok
};

// Any arguments: shapes no tensor has (impossible_shapes()) and values out of range get a no_model
// saying why, never a throw or an overflow.
OpModel model_op(std::string_view op_name, const std::vector<OpInput>& inputs);

// An op call's inputs and model, computed once per distinct (name, shapes, types, strides,
// scalar arguments): a trace repeats the same op on the same shapes thousands of times.
struct ModelledOp {
  std::optional<std::vector<OpInput>> inputs;  // nothing when the trace has no shapes for it
  OpModel model;
};
class OpModelCache {
 public:
  explicit OpModelCache(const Trace& trace) : trace_(trace) {}
  // `kernel`: a kernel the op launched, whose name gives a TensorList's element size (aten::cat).
  const ModelledOp& of(EventId op, EventId kernel = kNoEvent);

 private:
  const Trace& trace_;
  std::map<std::array<NameId, 6>, ModelledOp> cache_;
};

// ---- the families, one file each; `name` is the op name without the "aten::" prefix ----
OpModel model_matmul(std::string_view name, const std::vector<OpInput>& in);     // op_cost_matmul.cpp
OpModel model_conv(std::string_view name, const std::vector<OpInput>& in);       // op_cost_conv.cpp
OpModel model_attention(std::string_view name, const std::vector<OpInput>& in);  // op_cost_attention.cpp
OpModel model_pointwise(std::string_view name, const std::vector<OpInput>& in);  // op_cost_pointwise.cpp
OpModel model_rowwise(std::string_view name, const std::vector<OpInput>& in);    // op_cost_rowwise.cpp
OpModel model_memory(std::string_view name, const std::vector<OpInput>& in);     // op_cost_memory.cpp
OpModel model_cat(std::string_view name, const std::vector<OpInput>& in);        // op_cost_memory.cpp

// Whether an op is a pointwise (elementwise) op that model_pointwise knows: fusion candidates.
bool is_pointwise_op(std::string_view op_name);

// ---- helpers shared by the families ----
OpModel no_model(NoModelReason reason, std::string op, std::string detail = {}, int64_t value = 0);
double tensor_bytes(const OpInput& t);  // stored elements × element size
// The broadcast shape of tensors (numpy rules); nothing when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shape(const std::vector<const OpInput*>& tensors);
int64_t product(const std::vector<int64_t>& dims);
std::string dims_text(const std::vector<int64_t>& dims);  // "4096×4096"

}  // namespace whyslow
