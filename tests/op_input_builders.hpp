// An op's inputs as the op models read them (analysis/core/op_inputs.hpp), built by hand: the
// roofline models' tests and the hostile-argument tests give the same shapes and scalars.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/core/op_inputs.hpp"

namespace whyslow::testing {

inline OpInput tensor(std::string type, std::vector<int64_t> dims, std::vector<int64_t> strides = {}) {
  OpInput t;
  t.type = std::move(type);
  t.dims = std::move(dims);
  t.strides = std::move(strides);
  return t;
}
inline OpInput scalar(std::string concrete, std::string type = "Scalar") {
  OpInput s;
  s.type = std::move(type);
  s.concrete = std::move(concrete);
  return s;
}
inline OpInput none() { return scalar(""); }

}  // namespace whyslow::testing
