// FLOPs and bytes of the op models, checked against counts done by hand for concrete shapes, and
// the ops whyslow has no model for. Hand counts follow the formulas cited in src/analysis/roofline/op_cost_*.cpp.
#include <gtest/gtest.h>

#include "analysis/roofline/op_cost.hpp"
#include "op_input_builders.hpp"
#include "report/roofline_words.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::none;
using testing::scalar;
using testing::tensor;

const std::string kF32 = "float", kBF16 = "c10::BFloat16", kI64 = "long int";

OpCost cost(std::string_view op, const std::vector<OpInput>& in) {
  const OpModel m = model_op(op, in);
  EXPECT_TRUE(m.ok) << op << ": " << report::describe_no_model(m.why_not);
  return m.cost;
}

TEST(OpModels, MatrixProducts) {
  // mm: 2·M·N·K; A, B read, C written.
  OpCost c = cost("aten::mm", {tensor(kBF16, {4096, 4096}), tensor(kBF16, {4096, 4096})});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(c.bytes, 3.0 * 4096 * 4096 * 2);
  EXPECT_EQ(c.precision, Precision::BF16);
  EXPECT_EQ(c.unit, MathUnit::Matrix);
  // addmm(bias[N], A[M,K], B[K,N]): the bias is read once; its M·N adds are not counted.
  c = cost("aten::addmm", {tensor(kF32, {4096}), tensor(kF32, {256, 1024}), tensor(kF32, {1024, 4096}), scalar("1"),
                           scalar("1")});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 256 * 4096 * 1024);
  EXPECT_DOUBLE_EQ(c.bytes, (4096.0 + 256 * 1024 + 1024 * 4096 + 256 * 4096) * 4);
  EXPECT_EQ(c.precision, Precision::FP32);
  // bmm and baddbmm: 2·B·M·N·K.
  c = cost("aten::bmm", {tensor(kBF16, {16, 512, 64}), tensor(kBF16, {16, 64, 512})});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 16 * 512 * 512 * 64);
  EXPECT_DOUBLE_EQ(c.bytes, (16.0 * 512 * 64 * 2 + 16.0 * 512 * 512) * 2);
  c = cost("aten::baddbmm", {tensor(kBF16, {16, 512, 512}), tensor(kBF16, {16, 512, 64}), tensor(kBF16, {16, 64, 512}),
                             scalar("1"), scalar("1")});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 16 * 512 * 512 * 64);
  EXPECT_DOUBLE_EQ(c.bytes, (16.0 * 512 * 512 * 2 + 16.0 * 512 * 64 * 2) * 2);
  // linear(x[8,512,1024], W[4096,1024], b): M = 8·512 rows.
  c = cost("aten::linear", {tensor(kBF16, {8, 512, 1024}), tensor(kBF16, {4096, 1024}), tensor(kBF16, {4096})});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4096 * 4096 * 1024);
  // matmul with broadcast batch dims: (2,1,8,16) @ (3,16,4) → batch 2·3.
  c = cost("aten::matmul", {tensor(kF32, {2, 1, 8, 16}), tensor(kF32, {3, 16, 4})});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 6 * 8 * 4 * 16);
}

TEST(OpModels, Convolution) {
  // cudnn_convolution(input, weight, padding, stride, dilation, groups, …), as the ops_zoo trace has it:
  // 3×3, padding 1, stride 1 keeps 56×56. FLOPs = 2·N·∏weight·∏output = 2·32·(128·64·3·3)·56·56.
  const std::vector<OpInput> in = {tensor(kBF16, {32, 64, 56, 56}), tensor(kBF16, {128, 64, 3, 3}),
                                   scalar("[1, 1]", "ScalarList"), scalar("[1, 1]", "ScalarList"),
                                   scalar("[1, 1]", "ScalarList"), scalar("1"), scalar("False"), scalar("False"),
                                   scalar("True")};
  OpCost c = cost("aten::cudnn_convolution", in);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 32 * (128 * 64 * 9) * 56 * 56);
  EXPECT_DOUBLE_EQ(c.bytes, (32.0 * 64 * 56 * 56 + 128 * 64 * 9 + 32.0 * 128 * 56 * 56) * 2);
  // conv2d(input, weight, bias, stride 2, padding 0, dilation 1, groups 1): ⌊(56 − 2 − 1)/2⌋ + 1 = 27.
  c = cost("aten::conv2d", {tensor(kF32, {1, 3, 56, 56}), tensor(kF32, {8, 3, 3, 3}), none(), scalar("[2, 2]"),
                            scalar("[0, 0]"), scalar("[1, 1]"), scalar("1")});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 1 * (8 * 3 * 9) * 27 * 27);
  // Transposed: FLOPs over the input's spatial size (flop_counter's rule).
  c = cost("aten::convolution", {tensor(kF32, {1, 16, 10, 10}), tensor(kF32, {16, 8, 4, 4}), none(), scalar("[2, 2]"),
                                 scalar("[1, 1]"), scalar("[1, 1]"), scalar("True"), scalar("[0, 0]"), scalar("1")});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 1 * (16 * 8 * 16) * 10 * 10);
}

TEST(OpModels, Attention) {
  // _flash_attention_forward takes (batch, seq, heads, dim): 2·B·H·Sq·Sk·(Dqk + Dv), halved when causal.
  std::vector<OpInput> in(15, none());
  for (int i = 0; i < 3; ++i) in[i] = tensor(kBF16, {8, 1024, 16, 64});
  in[8] = scalar("False");
  OpCost c = cost("aten::_flash_attention_forward", in);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 8 * 16 * 1024 * 1024 * (64 + 64));
  EXPECT_DOUBLE_EQ(c.bytes, 4.0 * 8 * 1024 * 16 * 64 * 2);
  in[8] = scalar("True");
  EXPECT_DOUBLE_EQ(cost("aten::_flash_attention_forward", in).flops, 8.0 * 16 * 1024 * 1024 * (64 + 64));
  // _efficient_attention_forward: causal when custom_mask_type (argument 9) is not 0.
  std::vector<OpInput> eff(14, none());
  for (int i = 0; i < 3; ++i) eff[i] = tensor(kBF16, {8, 1024, 16, 64});
  eff[9] = scalar("1");
  EXPECT_DOUBLE_EQ(cost("aten::_efficient_attention_forward", eff).flops, 8.0 * 16 * 1024 * 1024 * (64 + 64));
  // scaled_dot_product_attention takes (batch, heads, seq, dim); grouped-query K/V with fewer heads
  // still costs one score per query head.
  std::vector<OpInput> sdpa = {tensor(kBF16, {2, 32, 128, 64}), tensor(kBF16, {2, 8, 256, 64}),
                               tensor(kBF16, {2, 8, 256, 64}), none(), scalar("0."), scalar("False"), none(),
                               scalar("True")};
  EXPECT_DOUBLE_EQ(cost("aten::scaled_dot_product_attention", sdpa).flops, 2.0 * 2 * 32 * 128 * 256 * (64 + 64));
}

TEST(OpModels, RowwiseOps) {
  const double n = 8192.0 * 4096;
  // native_layer_norm: 7 FLOPs per element; x in, y out, γ and β, fp32 mean and rstd per row.
  OpCost c = cost("aten::native_layer_norm", {tensor(kBF16, {8192, 4096}), scalar("[4096]", "ScalarList"),
                                              tensor(kBF16, {4096}), tensor(kBF16, {4096}), scalar("1e-05")});
  EXPECT_DOUBLE_EQ(c.flops, 7 * n);
  EXPECT_DOUBLE_EQ(c.bytes, 2 * n * 2 + 2 * 4096 * 2 + 8192.0 * 4 * 2);
  // _fused_rms_norm: 4 per element, rstd per row.
  c = cost("aten::_fused_rms_norm", {tensor(kBF16, {8192, 4096}), scalar("[4096]", "ScalarList"),
                                     tensor(kBF16, {4096}), none()});
  EXPECT_DOUBLE_EQ(c.flops, 4 * n);
  EXPECT_DOUBLE_EQ(c.bytes, 2 * n * 2 + 4096 * 2 + 8192.0 * 4);
  // _softmax: 5 per element, read once and written once.
  c = cost("aten::_softmax", {tensor(kBF16, {8192, 4096}), scalar("-1"), scalar("False")});
  EXPECT_DOUBLE_EQ(c.flops, 5 * n);
  EXPECT_DOUBLE_EQ(c.bytes, 2 * n * 2);
  // sum over the last dim: one add per element, an 8192-element result; sum over all dims: one.
  c = cost("aten::sum", {tensor(kBF16, {8192, 4096}), scalar("[-1]", "ScalarList"), scalar("False"), none()});
  EXPECT_DOUBLE_EQ(c.flops, n);
  EXPECT_DOUBLE_EQ(c.bytes, (n + 8192) * 2);
  c = cost("aten::mean", {tensor(kBF16, {8192, 4096}), scalar("[]", "ScalarList"), scalar("False"), none()});
  EXPECT_DOUBLE_EQ(c.bytes, (n + 1) * 2);
}

TEST(OpModels, PointwiseBroadcastInPlaceAndOut) {
  // x + b with b broadcast along the rows: b is read once, not once per row.
  OpCost c = cost("aten::add", {tensor(kF32, {4096, 4096}), tensor(kF32, {4096}), scalar("1")});
  EXPECT_DOUBLE_EQ(c.flops, 4096.0 * 4096);
  EXPECT_DOUBLE_EQ(c.bytes, (2.0 * 4096 * 4096 + 4096) * 4);
  EXPECT_DOUBLE_EQ(c.working_set, c.bytes);
  // An expanded operand (stride 0) counts its stored elements only.
  c = cost("aten::mul", {tensor(kF32, {4096, 4096}, {4096, 1}), tensor(kF32, {4096, 4096}, {0, 1})});
  EXPECT_DOUBLE_EQ(c.bytes, (2.0 * 4096 * 4096 + 4096) * 4);
  // In place: the output is the first operand, so the working set counts it once.
  c = cost("aten::add_", {tensor(kBF16, {32, 128, 56, 56}), tensor(kBF16, {1, 128, 1, 1}), scalar("1")});
  const double x = 32.0 * 128 * 56 * 56;
  EXPECT_DOUBLE_EQ(c.bytes, (2 * x + 128) * 2);
  EXPECT_DOUBLE_EQ(c.working_set, (x + 128) * 2);
  // out=: the trailing tensor is the output, written, not read. A Python number (typed, no dims)
  // is neither an operand that broadcasts nor an input with bytes.
  c = cost("aten::mul", {tensor(kBF16, {1024}), scalar("", "double"), tensor(kF32, {1024})});
  EXPECT_DOUBLE_EQ(c.bytes, 1024.0 * 2 + 1024.0 * 4);
  // gelu: 5 FLOPs per element (0.5·x·(1 + erf(x/√2))).
  EXPECT_DOUBLE_EQ(cost("aten::gelu", {tensor(kBF16, {8, 8}), scalar("none", "")}).flops, 5.0 * 64);
  EXPECT_TRUE(is_pointwise_op("aten::mul_"));
  EXPECT_FALSE(is_pointwise_op("aten::mm"));
}

TEST(OpModels, DataMovement) {
  // copy_(dst fp32, src bf16): dst written in fp32, src read in bf16; no FLOPs.
  OpCost c = cost("aten::copy_", {tensor(kF32, {8192, 4096}), tensor(kBF16, {8192, 4096}), scalar("False")});
  EXPECT_DOUBLE_EQ(c.flops, 0);
  EXPECT_DOUBLE_EQ(c.bytes, 8192.0 * 4096 * (4 + 2));
  // gather(weight, 0, index expanded from (4096, 1) to (4096, 1024), …, out) as embedding runs
  // it: the index is stored once per row; 4096·1024 elements gathered and written.
  c = cost("aten::gather", {tensor(kBF16, {32000, 1024}), scalar("0"), tensor(kI64, {4096, 1024}, {1, 0}),
                            scalar("False"), tensor(kBF16, {4096, 1024})});
  EXPECT_DOUBLE_EQ(c.bytes, 4096.0 * 8 + 2 * 4096.0 * 1024 * 2);
  c = cost("aten::index_select", {tensor(kBF16, {32000, 1024}), scalar("0"), tensor(kI64, {512})});
  EXPECT_DOUBLE_EQ(c.bytes, 512.0 * 8 + 2 * 512.0 * 1024 * 2);
  c = cost("aten::embedding", {tensor(kBF16, {32000, 1024}), tensor(kI64, {8, 512})});
  EXPECT_DOUBLE_EQ(c.bytes, 4096.0 * 8 + 2 * 4096.0 * 1024 * 2);
}

TEST(OpModels, UnknownOpsGetNoModelAndSayWhy) {
  OpModel m = model_op("aten::sort", {tensor(kBF16, {8192, 4096}), scalar("False"), scalar("-1"), scalar("False")});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.why_not.reason, NoModelReason::UnknownOp);
  EXPECT_EQ(report::describe_no_model(m.why_not), "no model for aten::sort");
  m = model_op("my_extension::fused_thing", {tensor(kF32, {16})});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(report::describe_no_model(m.why_not), "no model for my_extension::fused_thing");
  // A known op on a dtype whyslow cannot size: no guess.
  m = model_op("aten::add", {tensor("c10::qint8", {16}), tensor("c10::qint8", {16}), scalar("1")});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.why_not.reason, NoModelReason::UnsupportedTensorType);
  EXPECT_EQ(report::describe_no_model(m.why_not), "aten::add on a tensor of type 'c10::qint8'");
  // x[idx]: the profiler records no shapes for the index tensors.
  m = model_op("aten::index", {tensor(kBF16, {8192, 4096}), none()});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.why_not.reason, NoModelReason::IndexShapesNotRecorded);
  EXPECT_NE(report::describe_no_model(m.why_not).find("index tensors"), std::string::npos);
  // mm with a missing operand shape.
  EXPECT_FALSE(model_op("aten::mm", {tensor(kF32, {16, 16})}).ok);
}

// The same models read from a real trace's "Input Dims" / "Input type" / "Input Strides" /
// "Concrete Inputs" (tests/fixtures/roofline/ops_zoo.json.gz, recorded on an H200).
TEST(OpModels, ReadFromARealTrace) {
  const Trace t = load_trace(std::string(WHYSLOW_FIXTURES) + "/roofline/ops_zoo.json.gz");
  bool conv = false, gather = false;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::CpuOp) continue;
    const auto in = op_inputs(t, e);
    if (t.name_of(e) == "aten::cudnn_convolution") {
      ASSERT_TRUE(in);
      EXPECT_DOUBLE_EQ(model_op(t.name_of(e), *in).cost.flops, 2.0 * 32 * (128 * 64 * 9) * 56 * 56);
      conv = true;
    }
    if (t.name_of(e) == "aten::gather" && in && in->size() == 5) {  // embedding's gather, index expanded
      EXPECT_EQ((*in)[2].strides, (std::vector<int64_t>{1, 0}));
      EXPECT_DOUBLE_EQ(model_op(t.name_of(e), *in).cost.bytes, 4096.0 * 8 + 2 * 4096.0 * 1024 * 2);
      gather = true;
    }
  }
  EXPECT_TRUE(conv);
  EXPECT_TRUE(gather);
}

// Traces re-serialized by Python's json.dump(indent=4) spread each shape list over many lines
// (TraceLens's H100 ViT trace, tests/fixtures/public/README.md): the same numbers must come out.
TEST(OpModels, ReadFromAPrettyPrintedTrace) {
  const Trace t = load_trace(std::string(WHYSLOW_FIXTURES) + "/public/h100_falconsai_vit.json.gz");
  bool found = false;
  for (EventId e = 0; e < t.size() && !found; ++e) {
    if (t.kind[e] != EventKind::CpuOp || t.name_of(e) != "aten::addmm") continue;
    const auto in = op_inputs(t, e);
    ASSERT_TRUE(in);
    ASSERT_EQ((*in)[1].dims, (std::vector<int64_t>{788, 768}));  // the first addmm: 788 tokens × 768
    EXPECT_EQ((*in)[2].strides, (std::vector<int64_t>{1, 768}));   // a transposed weight
    EXPECT_DOUBLE_EQ(model_op("aten::addmm", *in).cost.flops, 2.0 * 788 * 768 * 768);
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace whyslow
