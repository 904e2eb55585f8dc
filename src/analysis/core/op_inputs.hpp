// An op's inputs as record_shapes wrote them: one entry per argument, from the raw JSON text of
// "Input Dims", "Input type", "Input Strides" and "Concrete Inputs" that the loader keeps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

// What the roofline needs to know about a tensor's element type.
enum class Precision : uint8_t { FP64, FP32, TF32, FP16, BF16, FP8, INT8, Other };
inline constexpr int kPrecisions = 8;
std::string_view to_string(Precision p);

struct OpInput {
  std::string type;              // "float", "c10::BFloat16", "Scalar", "ScalarList", "" (None) …
  std::vector<int64_t> dims;     // [] for scalars, None, and lists the profiler does not expand
  std::vector<int64_t> strides;  // empty when not recorded
  std::string concrete;          // the value of a scalar argument ("[1, 1]", "False", "0.125"), or ""
  bool list = false;             // a TensorList: dims hold nothing usable
  std::vector<std::vector<int64_t>> list_dims;  // a TensorList's tensors' dims
  // A TensorList's element size: the profiler writes no dtype for it ("TensorList"), so it comes
  // from the kernel the op launched where its name says (OpModelCache::of); 0 when unknown.
  int list_element_bytes = 0;

  // Bytes of one element for tensor types ("float" 4, "c10::BFloat16" 2, …); 0 when the type
  // is not a tensor dtype whyslow knows (then no model may guess a size).
  int element_bytes() const;
  Precision precision() const;
  int64_t numel() const;
  // Elements stored in memory: an expanded dimension (stride 0, from .expand() or broadcasting)
  // repeats one element, so it counts once. Without strides, every element counts.
  int64_t stored_numel() const;
  bool is_tensor() const { return element_bytes() > 0 && !list; }
};

// The most elements a tensor can hold, as far as the models are concerned: 2^40 is 1 TiB of
// one-byte elements, several times the largest GPU's memory (H200: 141 GB), and products of a
// few such counts (M·N·K) still fit a double exactly enough and int64 where two are multiplied.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// The product of `dims`, or nothing when a dim is negative or the product exceeds
// kMaxTensorElements (checked, so a hostile trace's INT64_MAX dims cannot wrap it).
std::optional<int64_t> element_count(const std::vector<int64_t>& dims);

// True when a tensor (or a TensorList's tensor) among `inputs` has a shape no tensor has: a
// negative dim, or more than kMaxTensorElements elements. The models multiply dims freely; such
// shapes get no model ("-128 FLOP" and "-8388608 TiB" otherwise).
bool impossible_shapes(const std::vector<OpInput>& inputs);

// The inputs of a CPU op, or nothing when the trace has no shapes for it (record_shapes off) or
// the text cannot be read.
std::optional<std::vector<OpInput>> op_inputs(const Trace& trace, EventId op);

// The element size a kernel's name spells out: ATen's copy kernels (cat's CatArrayBatchedCopy…)
// are templated on OpaqueType<N>, N bytes per element; 0 when the name does not say.
int element_bytes_from_kernel_name(std::string_view kernel);

// Parses a Concrete Inputs list such as "[1, 1]" or "[-1]"; nothing when it is not one.
std::optional<std::vector<int64_t>> parse_int_list(std::string_view text);

// A Concrete Inputs integer ("2", "-1") as int64; nothing when the text is not one whole integer
// or does not fit (a 30-digit value). Never throws, unlike std::stoll, which aborted the run.
std::optional<int64_t> parse_int(std::string_view text);

// The first tensor's shape in an Input Dims text ("[[56, 512], [512, 2048]]" → "[56, 512]"), as
// written; "" when the first argument is not a tensor (a scalar "[]" or a list).
std::string first_tensor_shape(std::string_view input_dims);

}  // namespace whyslow
