// Ops that only move data: copy_ (and so .to(), .contiguous(), .clone(), whose kernels run inside
// their aten::copy_), clone, gather, index_select, embedding. No arithmetic: FLOPs = 0.
//
//   copy_(dst, src)              dst written + src's stored elements read (each in its own dtype)
//   clone(x)                     x read + x written
//   gather(x, dim, index[, out]) out has index's shape: index read, out's elements read from x,
//                                out written; an expanded index (stride 0) counts its stored part
//   index_select(x, dim, index)  out = x with dims[dim] = numel(index): index read, out read, written
//   embedding(weight, indices)   out = indices' shape × embedding width: indices read, rows read, out written
//   cat(tensors, dim)            every input read once, the output (as many elements) written once:
//                                2 · Σ numel(input) · element size. The profiler writes no dtype for a
//                                TensorList: the element size is the kernel's (CatArrayBatchedCopy is
//                                templated on OpaqueType<bytes>); without it, no model.
// aten::index (x[idx]) has no model: the profiler does not record the index tensors' shapes.
#include <fmt/core.h>

#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

OpModel moved(double bytes, std::string formula) {
  OpModel r;
  r.ok = true;
  r.cost.bytes = bytes;
  r.cost.working_set = bytes;
  r.cost.precision = Precision::FP32;
  r.cost.unit = MathUnit::Vector;
  r.cost.formula = std::move(formula);
  return r;
}

int64_t axis(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

}  // namespace

OpModel model_memory(std::string_view name, const std::vector<OpInput>& in) {
  const auto bad = [&] { return no_model(NoModelReason::UnrecognisedArguments, fmt::format("aten::{}", name)); };
  if (name == "index") return no_model(NoModelReason::IndexShapesNotRecorded, "aten::index");
  if (in.empty() || !in[0].is_tensor()) return bad();
  const OpInput& x = in[0];
  if (name == "copy_") {
    if (in.size() < 2 || !in[1].is_tensor()) return bad();
    const double dst = static_cast<double>(x.numel()) * x.element_bytes();
    return moved(dst + tensor_bytes(in[1]),
                 fmt::format("aten::copy_: {} written + {} read", dims_text(x.dims), dims_text(in[1].dims)));
  }
  if (name == "clone")
    return moved(tensor_bytes(x) + static_cast<double>(x.numel()) * x.element_bytes(),
                 fmt::format("aten::clone: {} read and written", dims_text(x.dims)));
  if (name == "gather") {
    if (in.size() < 3 || !in[2].is_tensor()) return bad();
    const OpInput& index = in[2];
    const double out = static_cast<double>(index.numel()) * x.element_bytes();
    return moved(tensor_bytes(index) + 2 * out,
                 fmt::format("aten::gather: index {} read, {} elements gathered and written", dims_text(index.dims),
                             index.numel()));
  }
  if (name == "index_select") {
    if (in.size() < 3 || !in[2].is_tensor() || in[1].concrete.empty()) return bad();
    const std::optional<int64_t> dim = parse_int(in[1].concrete);
    if (!dim) return bad();  // not an integer, or one beyond int64 ("1" followed by 29 zeros)
    const int64_t d = axis(*dim, x.dims.size());
    if (d < 0 || d >= static_cast<int64_t>(x.dims.size()))
      return no_model(NoModelReason::DimOutOfRange, "aten::index_select", {}, *dim);
    std::vector<int64_t> out_dims = x.dims;
    out_dims[d] = in[2].numel();
    const double out = static_cast<double>(product(out_dims)) * x.element_bytes();
    return moved(tensor_bytes(in[2]) + 2 * out,
                 fmt::format("aten::index_select: {} selected and written", dims_text(out_dims)));
  }
  if (name == "embedding") {
    if (in.size() < 2 || !in[1].is_tensor() || x.dims.size() != 2) return bad();
    const double out = static_cast<double>(in[1].numel()) * x.dims[1] * x.element_bytes();
    return moved(tensor_bytes(in[1]) + 2 * out,
                 fmt::format("aten::embedding: {} rows of {} read and written", in[1].numel(), x.dims[1]));
  }
  return bad();
}

OpModel model_cat(std::string_view name, const std::vector<OpInput>& in) {
  if (in.empty() || !in[0].list || in[0].list_dims.empty())
    return no_model(NoModelReason::UnrecognisedArguments, fmt::format("aten::{}", name));
  const OpInput& list = in[0];
  if (list.list_element_bytes <= 0)
    return no_model(NoModelReason::ListElementSizeUnknown, fmt::format("aten::{}", name));
  double elements = 0;
  for (const std::vector<int64_t>& dims : list.list_dims) elements += static_cast<double>(product(dims));
  OpModel r = moved(2 * elements * list.list_element_bytes,
                    fmt::format("aten::{}: {} tensors, {} elements read and written, {} B each", name,
                                list.list_dims.size(), static_cast<int64_t>(elements), list.list_element_bytes));
  return r;
}

}  // namespace whyslow
