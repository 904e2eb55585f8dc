// libFuzzer target: the op models (src/analysis/roofline/op_cost*.cpp) and the shape reader
// (src/analysis/core/op_inputs.cpp) with hostile arguments. The bytes choose ops the models
// answer for and their "Input Dims", "Input type", "Input Strides" and "Concrete Inputs": dims of
// 2^62, negative or zero strides, 30-digit scalars, shapes nested deeper than any tensor, lists
// where a tensor belongs. Each op launches a kernel, so the roofline holds the model against it;
// model_op is also called on the same arguments directly. A model answers "no model: <reason>"
// to what it cannot compute, never a throw, a division by zero or an overflow (issue 45 item 1).
#include <string>
#include <vector>

#include "analysis/core/op_inputs.hpp"
#include "analysis/roofline/op_cost.hpp"
#include "fuzz_structured.hpp"

namespace {

using whyslow::fuzz::Choices;
using whyslow::fuzz::quoted;

// Ops of every family op_cost.cpp dispatches to, and one it does not know.
const std::vector<std::string> kOps = {
    "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear", "aten::_scaled_mm",
    "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution", "aten::_convolution",
    "aten::cudnn_convolution", "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_efficient_attention_backward", "aten::_flash_attention_forward", "aten::cat",
    "aten::sum", "aten::mean", "aten::native_layer_norm", "aten::_softmax", "aten::rms_norm", "aten::copy_",
    "aten::index_select", "aten::embedding", "aten::gather", "aten::index", "aten::add", "aten::mul", "aten::relu",
    "aten::where", "aten::sort"};
const std::vector<std::string> kTypes = {"float", "c10::Half", "c10::BFloat16", "double", "int", "long int",
                                         "c10::Float8_e4m3fn", "signed char", "bool", "Scalar", "ScalarList",
                                         "TensorList", "GenericList", "", "c10::complex<float>"};
const std::vector<std::string> kConcrete = {"", "0", "1", "-1", "2", "[1, 1]", "[0, 0]", "[-1, 1]", "[2, 2, 2]", "[]",
                                            "False", "True", "0.125", "abc", "[1, x]",
                                            "99999999999999999999999999999", "[4611686018427387904, 1]",
                                            "[9223372036854775807]", "-9223372036854775808"};

// A dims list as JSON text: up to 6 dims, hostile values.
std::string dims_text(Choices& c, std::vector<int64_t>& dims) {
  std::string s = "[";
  const size_t n = c.below(7);
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = c.below(3) == 0 ? c.hostile_int() : static_cast<int64_t>(c.below(9));
    dims.push_back(d);
    s += (i ? ", " : "") + std::to_string(d);
  }
  return s + "]";
}

// One argument's dims: a tensor's list, [] (a scalar), a list of lists (a TensorList), or a
// nesting deeper than any shape.
std::string argument_dims(Choices& c, std::vector<int64_t>& dims) {
  switch (c.below(8)) {
    case 0: return "[]";
    case 1: {
      std::vector<int64_t> ignored;
      return "[" + dims_text(c, ignored) + ", " + dims_text(c, ignored) + "]";
    }
    case 2: {
      const size_t depth = 1 + c.below(64) * c.below(64);
      return std::string(depth, '[') + std::string(depth, ']');
    }
    default: return dims_text(c, dims);
  }
}

whyslow::OpInput op_input(const std::string& type, const std::vector<int64_t>& dims, const std::string& concrete) {
  whyslow::OpInput in;
  in.type = type;
  in.dims = dims;
  in.concrete = concrete;
  in.list = type == "TensorList";
  return in;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices c(data, size);
  std::vector<std::string> events;
  const size_t ops = 1 + c.below(8);
  for (size_t k = 0; k < ops && !c.done(); ++k) {
    const std::string& op = c.pick(kOps);
    const size_t args = c.below(9);
    std::string dims = "[", types = "[", strides = "[", concrete = "[";
    std::vector<whyslow::OpInput> inputs;
    for (size_t a = 0; a < args; ++a) {
      std::vector<int64_t> d, st;
      const std::string& type = c.pick(kTypes);
      const std::string& value = c.pick(kConcrete);
      const std::string sep = a ? ", " : "";
      dims += sep + argument_dims(c, d);
      types += sep + quoted(type);
      strides += sep + dims_text(c, st);
      concrete += sep + quoted(value);
      inputs.push_back(op_input(type, d, value));
    }
    dims += "]", types += "]", strides += "]", concrete += "]";
    // A string in place of the list, as a hostile writer gives it ("[[[[…" read as shapes).
    if (c.below(16) == 0) dims = quoted(dims);
    const std::string ts = std::to_string(100 * k), id = std::to_string(k + 1);
    events.push_back(R"({"ph":"X","cat":"cpu_op","name":")" + op + R"(","pid":1,"tid":1,"ts":)" + ts +
                     R"(,"dur":50,"args":{"External id":)" + id + R"(,"Input Dims":)" + dims + R"(,"Input type":)" +
                     types + R"(,"Input Strides":)" + strides + R"(,"Concrete Inputs":)" + concrete + "}}");
    events.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + ts +
                     R"(.5,"dur":5,"args":{"correlation":)" + id + R"(,"External id":)" + id + "}}");
    events.push_back(R"({"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":)" + ts +
                     R"(.8,"dur":40,"args":{"correlation":)" + id + R"(,"External id":)" + id +
                     R"(,"device":0,"stream":7,"grid":[8,1,1],"block":[128,1,1]}})");
    volatile bool ok = whyslow::model_op(op, inputs).ok;  // the models alone, on the same arguments
    static_cast<void>(ok);
  }
  whyslow::fuzz::run_pipeline(whyslow::fuzz::trace_of(events));
  return 0;
}
