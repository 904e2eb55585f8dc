// Hostile input, third round (issue 45): op-model arguments that crashed or overflowed (item 1).
// Every hostile input is generated here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/core/op_inputs.hpp"
#include "analysis/facts.hpp"
#include "analysis/roofline/op_cost.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "report/roofline_words.hpp"
#include "report/text/text_report.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

OpInput tensor(std::vector<int64_t> dims) {
  OpInput t;
  t.type = "float";
  t.dims = std::move(dims);
  return t;
}
OpInput scalar(std::string concrete) {
  OpInput s;
  s.type = "ScalarList";
  s.concrete = std::move(concrete);
  return s;
}

// conv2d(input, weight, bias, stride, padding, dilation, groups) on a 1×3×56×56 input.
std::string conv2d_no_model(const std::string& stride, const std::string& padding, const std::string& dilation,
                            const std::string& groups = "1") {
  const OpModel m = model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""), scalar(stride),
                                              scalar(padding), scalar(dilation), scalar(groups)});
  EXPECT_FALSE(m.ok) << stride << " " << padding << " " << dilation;
  return report::describe_no_model(m.why_not);
}

TEST(HostileRound3, ConvParametersNoConvolutionHasGetNoModel) {
  EXPECT_EQ(conv2d_no_model("[0, 0]", "[0, 0]", "[1, 1]"), "aten::conv2d: stride 0, which no convolution has");
  EXPECT_EQ(conv2d_no_model("0", "0", "1"), "aten::conv2d: stride 0, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[-1, -1]", "[0, 0]", "[1, 1]"), "aten::conv2d: stride -1, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[1, 1]", "[-2, 0]", "[1, 1]"), "aten::conv2d: padding -2, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[1, 1]", "[0, 0]", "[0, 1]"), "aten::conv2d: dilation 0, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[1, 1]", "[0, 0]", "[1, 1]", "0"), "aten::conv2d: groups 0, which no convolution has");
  // 2^62: 2·padding and dilation·(k − 1) overflow int64.
  const std::string huge = "4611686018427387904";
  EXPECT_NE(conv2d_no_model("[1, 1]", "[" + huge + ", 0]", "[1, 1]").find("an output length below 1 or beyond int64"),
            std::string::npos);
  EXPECT_NE(conv2d_no_model("[1, 1]", "[0, 0]", "[" + huge + ", 1]").find("an output length below 1 or beyond int64"),
            std::string::npos);
  // Padding that fits int64 but gives an output larger than any tensor.
  EXPECT_NE(conv2d_no_model("[1, 1]", "[1099511627776, 0]", "[1, 1]").find("an output of 1×8×"), std::string::npos);
  // A kernel wider than the padded input: torch refuses it.
  EXPECT_NE(conv2d_no_model("[1, 1]", "[0, 0]", "[100, 1]").find("below 1"), std::string::npos);
}

TEST(HostileRound3, ConvIntegersThatAreNotInt64GetNoModelNotAnException) {
  // std::stoll threw on these (out_of_range, invalid_argument): SIGABRT.
  for (const std::string stride : {"123456789012345678901234567890", "2x", "-", "1e3", " 1"}) {
    SCOPED_TRACE(stride);
    const OpModel m = model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""),
                                                scalar(stride), scalar("0"), scalar("1"), scalar("1")});
    EXPECT_FALSE(m.ok);
    EXPECT_EQ(report::describe_no_model(m.why_not), "aten::conv2d: stride, padding or dilation not recorded");
  }
  // A valid conv still has its model: ⌊(56 − 2 − 1)/2⌋ + 1 = 27.
  const OpModel ok = model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""), scalar("2"),
                                               scalar("0"), scalar("1"), scalar("1")});
  ASSERT_TRUE(ok.ok);
  EXPECT_DOUBLE_EQ(ok.cost.flops, 2.0 * 8 * 3 * 3 * 3 * 27 * 27);
}

TEST(HostileRound3, IndexSelectDimThatIsNotInt64GetsNoModel) {
  const auto index_select = [](const std::string& dim) {
    OpInput index = tensor({4});
    index.type = "long int";
    return model_op("aten::index_select", {tensor({8, 16}), scalar(dim), index});
  };
  EXPECT_EQ(report::describe_no_model(index_select("123456789012345678901234567890").why_not),
            "aten::index_select with arguments whyslow does not recognise");
  EXPECT_EQ(report::describe_no_model(index_select("abc").why_not),
            "aten::index_select with arguments whyslow does not recognise");
  EXPECT_EQ(report::describe_no_model(index_select("5").why_not), "aten::index_select: dim 5 out of range");
  EXPECT_EQ(report::describe_no_model(index_select("-9223372036854775808").why_not),
            "aten::index_select: dim -9223372036854775808 out of range");
  EXPECT_TRUE(index_select("-1").ok);
}

TEST(ParseInt, WholeInt64TextOnly) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parse_int("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parse_int(""), std::nullopt);
  EXPECT_EQ(parse_int("1 "), std::nullopt);
  EXPECT_EQ(parse_int("+1"), std::nullopt);
}

// The same values through a whole trace: the kernels table and explain run to the end.
TEST(HostileRound3, ConvAndIndexSelectInATraceDoNotAbort) {
  const auto op = [](const std::string& name, const std::string& args) {
    return trace_json({
        R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":1,"dur":20,"args":{"External id":1)" +
            args + "}}",
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":5,"External id":1}})",
        R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":100,"args":{"correlation":5,"External id":1,"device":0,"stream":7}})",
    });
  };
  const std::string conv =
      op("aten::conv2d", R"(,"Input Dims":[[1,3,56,56],[8,3,3,3],[],[],[],[],[]],)"
                         R"("Input type":["float","float","","ScalarList","ScalarList","ScalarList","Scalar"],)"
                         R"("Concrete Inputs":["","","","123456789012345678901234567890","[0, 0]","[1, 1]","1"])");
  const std::string stride0 =
      op("aten::conv2d", R"(,"Input Dims":[[1,3,56,56],[8,3,3,3],[],[],[],[],[]],)"
                         R"("Input type":["float","float","","ScalarList","ScalarList","ScalarList","Scalar"],)"
                         R"("Concrete Inputs":["","","","[0, 0]","[0, 0]","[1, 1]","1"])");
  const std::string select =
      op("aten::index_select", R"(,"Input Dims":[[8,16],[],[4]],"Input type":["float","Scalar","long int"],)"
                               R"("Concrete Inputs":["","99999999999999999999999999999",""])");
  for (const std::string* text : {&conv, &stride0, &select}) {
    TempDir dir;
    const Trace t = load_trace(dir.write("t.json", *text));
    const Facts f = analyze(t);
    const std::string kernels = render_kernels_text(t, f, TextOptions{});
    EXPECT_NE(kernels.find("calls without a model"), std::string::npos) << kernels;
  }
}

}  // namespace
}  // namespace whyslow
