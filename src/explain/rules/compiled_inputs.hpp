// What the compiled calls of some steps were given (CompiledCall::input_dims: the first op with
// recorded shapes inside each call), for the rules that explain recompilation and CUDA graphs
// that never replay: both follow from shapes that change from call to call.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

struct ChangingInputs {
  std::vector<std::string> shapes;  // the first input tensor's shape of each distinct call, in time order ("[56, 512]")
  std::string varying;              // "dim 0: 56, 72, 88" when the shapes share a rank; "" otherwise
  std::vector<size_t> varying_dims;  // the dims that change, when the shapes share a rank
  bool changes() const { return shapes.size() >= 2; }
};

// Over the compiled calls made inside the steps `in_step` says yes to.
template <typename InStep>
ChangingInputs changing_inputs(const Trace& t, const CompileFacts& c, InStep in_step);

ChangingInputs changing_inputs_of(const Trace& t, const std::vector<const CompiledCall*>& calls);

template <typename InStep>
ChangingInputs changing_inputs(const Trace& t, const CompileFacts& c, InStep in_step) {
  std::vector<const CompiledCall*> calls;
  for (const CompiledCall& call : c.calls)
    if (call.step >= 0 && in_step(call.step)) calls.push_back(&call);
  return changing_inputs_of(t, calls);
}

// "[56, 512] → [72, 512] → [88, 512] (dim 0: 56, 72, 88)", at most `max_shapes` shapes named.
std::string describe_changing_inputs(const ChangingInputs& in, size_t max_shapes = 4);

}  // namespace whyslow
