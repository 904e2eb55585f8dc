#include "explain/rules/compiled_inputs.hpp"

#include <fmt/core.h>

#include "analysis/core/op_inputs.hpp"

namespace whyslow {
namespace {

// The sizes a changing dim takes, named up to this many and then counted: enough to show how it
// changes (a sequence length growing, batch sizes alternating); 20,000 recompilations named every
// size, a finding of 131 kB.
constexpr size_t kMaxListedSizes = 8;
// The changing dims named in words, up to this many: a real model's calls change one or two (batch,
// sequence length); a hostile trace can change thousands.
constexpr size_t kMaxListedDims = 3;

}  // namespace

ChangingInputs changing_inputs_of(const Trace& t, const std::vector<const CompiledCall*>& calls) {
  ChangingInputs out;
  for (const CompiledCall* call : calls) {
    if (call->input_dims == kNoName) continue;
    std::string shape = first_tensor_shape(t.names.view(call->input_dims));
    if (shape.empty() || (!out.shapes.empty() && out.shapes.back() == shape)) continue;
    out.shapes.push_back(std::move(shape));
  }
  if (!out.changes()) return out;
  std::vector<std::vector<int64_t>> sizes;
  for (const std::string& s : out.shapes) sizes.push_back(parse_int_list(s).value_or(std::vector<int64_t>{}));
  for (const auto& s : sizes)
    if (s.size() != sizes.front().size()) return out;
  for (size_t d = 0; d < sizes.front().size(); ++d) {
    bool differs = false;
    for (const auto& s : sizes) differs |= s[d] != sizes.front()[d];
    if (!differs) continue;
    out.varying_dims.push_back(d);
    if (out.varying_dims.size() > kMaxListedDims) continue;
    if (!out.varying.empty()) out.varying += "; ";
    out.varying += fmt::format("dim {}:", d);
    for (size_t i = 0; i < sizes.size() && i < kMaxListedSizes; ++i)
      out.varying += fmt::format("{} {}", i ? "," : "", sizes[i][d]);
    if (sizes.size() > kMaxListedSizes) out.varying += fmt::format(", … ({} sizes)", sizes.size());
  }
  if (out.varying_dims.size() > kMaxListedDims)
    out.varying += fmt::format("; {} more dims change", out.varying_dims.size() - kMaxListedDims);
  return out;
}

std::string describe_changing_inputs(const ChangingInputs& in, size_t max_shapes) {
  std::string out;
  for (size_t i = 0; i < in.shapes.size() && i < max_shapes; ++i) out += (i ? " → " : "") + in.shapes[i];
  if (in.shapes.size() > max_shapes) out += fmt::format(" → … ({} shapes)", in.shapes.size());
  if (!in.varying.empty()) out += fmt::format(" ({})", in.varying);
  return out;
}

}  // namespace whyslow
