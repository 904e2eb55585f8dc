// Attention (issue 13, item 6): the roofline models of every SDPA variant torch records and of
// aten::cat, against hand counts; the cuDNN SDPA op of the H200 fixture against the hand formula
// 4·B·H·T²·D; and the eager matmul → softmax → matmul pattern, found on attention_eager and not on
// attention_sdpa (tests/fixtures/blocks/README.md).
#include <gtest/gtest.h>

#include "analysis/roofline/op_cost.hpp"
#include "op_input_builders.hpp"
#include "report/roofline_words.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

OpInput tensor(std::vector<int64_t> dims, std::string type = "c10::BFloat16") {
  return testing::tensor(std::move(type), std::move(dims));
}
using testing::none;
using testing::scalar;

std::string blocks_fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/blocks/" + name; }

constexpr double B = 4, H = 8, T = 1024, D = 64;
const double kForwardFlops = 4 * B * H * T * T * D;  // Q·Kᵀ + P·V: 8,589,934,592
const double kTensorBytes = B * H * T * D * 2;       // one of Q, K, V, O in bf16

// _cudnn_attention_forward(q, k, v, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k,
// compute_log_sumexp, dropout_p, is_causal, return_debug_mask, scale), as the H200 fixture records it.
std::vector<OpInput> cudnn_forward_args(const std::string& causal) {
  const OpInput q = tensor({4, 8, 1024, 64});
  return {q, q, q, none(), none(), none(), scalar("1024"), scalar("1024"), scalar("False"), scalar("0."),
          scalar(causal), scalar("False"), none()};
}

TEST(AttentionModels, CudnnForwardIsFourBHT2D) {
  const OpModel m = model_op("aten::_cudnn_attention_forward", cudnn_forward_args("False"));
  ASSERT_TRUE(m.ok) << report::describe_no_model(m.why_not);
  EXPECT_DOUBLE_EQ(m.cost.flops, 8'589'934'592.0);
  EXPECT_DOUBLE_EQ(m.cost.flops, kForwardFlops);
  EXPECT_DOUBLE_EQ(m.cost.bytes, 4 * kTensorBytes);  // Q, K, V read, O written
  EXPECT_EQ(m.cost.unit, MathUnit::Matrix);
  EXPECT_EQ(m.cost.precision, Precision::BF16);
  const OpModel causal = model_op("aten::_cudnn_attention_forward", cudnn_forward_args("True"));
  ASSERT_TRUE(causal.ok);
  EXPECT_DOUBLE_EQ(causal.cost.flops, kForwardFlops / 2);
}

// Backward: 2·B·H·Sq·Sk·(3·Dqk + 2·Dv) (torch.utils.flop_counter's sdpa_backward_flop_count: the
// scores recomputed, then dO·Vᵀ, Pᵀ·dO, dS·K, dSᵀ·Q); Q, K, V, O, dO read, dQ, dK, dV written.
TEST(AttentionModels, EveryBackwardVariant) {
  const double flops = 2 * B * H * T * T * (3 * D + 2 * D);
  const double bytes = 8 * kTensorBytes;
  const OpInput bhsd = tensor({4, 8, 1024, 64}), bshd = tensor({4, 1024, 8, 64}), lse = tensor({4, 8, 1024}, "float");
  struct Variant {
    const char* op;
    std::vector<OpInput> args;
    double flops;
  };
  const std::vector<Variant> variants = {
      // (grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, …)
      {"aten::_scaled_dot_product_flash_attention_backward",
       {bhsd, bhsd, bhsd, bhsd, bhsd, lse, none(), none(), scalar("1024"), scalar("1024"), scalar("0."),
        scalar("False"), none(), none(), none()},
       flops},
      {"aten::_flash_attention_backward",
       {bshd, bshd, bshd, bshd, bshd, lse, none(), none(), scalar("1024"), scalar("1024"), scalar("0."),
        scalar("True"), none(), none(), none()},
       flops / 2},
      // (grad_out, q, k, v, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal)
      {"aten::_scaled_dot_product_efficient_attention_backward",
       {bhsd, bhsd, bhsd, bhsd, none(), bhsd, lse, none(), none(), scalar("0."), scalar("[True, True, True, False]"),
        scalar("False")},
       flops},
      // (grad_out, q, k, v, bias, out, cu_seqlens_q, cu_seqlens_k, max_q, max_k, logsumexp, dropout_p,
      //  philox_seed, philox_offset, custom_mask_type, bias_requires_grad)
      {"aten::_efficient_attention_backward",
       {bshd, bshd, bshd, bshd, none(), bshd, none(), none(), scalar("1024"), scalar("1024"), lse, scalar("0."), none(),
        none(), scalar("1"), scalar("False")},
       flops / 2},
      // (grad_out, q, k, v, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k,
      //  max_q, max_k, dropout_p, is_causal)
      {"aten::_scaled_dot_product_cudnn_attention_backward",
       {bhsd, bhsd, bhsd, bhsd, bhsd, lse, none(), none(), none(), none(), none(), scalar("1024"), scalar("1024"),
        scalar("0."), scalar("False")},
       flops},
      {"aten::_cudnn_attention_backward",
       {bhsd, bhsd, bhsd, bhsd, bhsd, lse, none(), none(), none(), none(), none(), scalar("1024"), scalar("1024"),
        scalar("0."), scalar("True")},
       flops / 2},
  };
  for (const Variant& v : variants) {
    const OpModel m = model_op(v.op, v.args);
    ASSERT_TRUE(m.ok) << v.op << ": " << report::describe_no_model(m.why_not);
    EXPECT_DOUBLE_EQ(m.cost.flops, v.flops) << v.op;
    EXPECT_DOUBLE_EQ(m.cost.bytes, bytes) << v.op;
  }
}

// cat: every input read, the output written: 2·Σ numel · element size, the size from the kernel's
// OpaqueType<N> (a TensorList records no dtype).
TEST(AttentionModels, CatMovesItsInputsTwice) {
  OpInput list;
  list.type = "TensorList";
  list.list = true;
  list.list_dims = {{2, 16, 32}, {2, 16, 32}};
  list.list_element_bytes = 2;
  const OpModel m = model_op("aten::cat", {list, scalar("-1")});
  ASSERT_TRUE(m.ok) << report::describe_no_model(m.why_not);
  EXPECT_DOUBLE_EQ(m.cost.flops, 0);
  EXPECT_DOUBLE_EQ(m.cost.bytes, 2.0 * (2 * 16 * 32 * 2) * 2);
  list.list_element_bytes = 0;
  EXPECT_FALSE(model_op("aten::cat", {list, scalar("-1")}).ok);
  EXPECT_EQ(element_bytes_from_kernel_name(
                "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
                "namespace)::OpaqueType<2u>, unsigned int, 3, 64, 64>(…)"),
            2);
  EXPECT_EQ(element_bytes_from_kernel_name("ampere_sgemm_128x64_nn"), 0);
}

// The llama fixture's aten::cat calls (rotary halves, the KV cache) all get a model in the roofline.
TEST(AttentionModels, CatOnTheLlamaFixtureIsModelled) {
  const auto e = testing::explain_file(blocks_fixture("llama_generate_eager.json.gz"));
  int cat_groups = 0;
  for (size_t i = 0; i < e.facts.kernels.size(); ++i)
    for (const RooflineGroup& g : e.facts.roofline.kernels[i].groups)
      if (e.trace.name_of(g.op) == "aten::cat") {
        ++cat_groups;
        EXPECT_GT(g.cost.bytes, 0);
      }
  EXPECT_GT(cat_groups, 0);
  for (size_t i = 0; i < e.facts.kernels.size(); ++i) {
    if (e.trace.names.view(e.facts.kernels[i].name).find("CatArrayBatchedCopy") != std::string_view::npos) {
      EXPECT_EQ(e.facts.roofline.kernels[i].modelled_calls, e.facts.kernels[i].calls);
    }
  }
}

TEST(Attention, CudnnSdpaFixtureMatchesTheHandFormula) {
  const auto e = testing::explain_file(blocks_fixture("attention_sdpa.json.gz"));
  int found = 0;
  for (const KernelRoofline& kr : e.facts.roofline.kernels)
    for (const RooflineGroup& g : kr.groups)
      if (e.trace.name_of(g.op) == "aten::_cudnn_attention_forward") {
        ++found;
        EXPECT_DOUBLE_EQ(g.cost.flops, kForwardFlops);
        EXPECT_EQ(g.calls, 3u);  // one per step, 3 steps
      }
  EXPECT_EQ(found, 1);
  EXPECT_TRUE(e.facts.eager_attention.empty());
  for (const Finding& f : e.findings) EXPECT_NE(f.id, FindingId::eager_attention);
}

TEST(Attention, EagerFixtureIsFound) {
  const auto e = testing::explain_file(blocks_fixture("attention_eager.json.gz"));
  ASSERT_EQ(e.facts.eager_attention.size(), 1u);
  const EagerAttention& a = e.facts.eager_attention.front();
  EXPECT_EQ(a.scores_dims, (std::vector<int64_t>{4, 8, 1024, 1024}));
  EXPECT_EQ(a.calls, 3u);
  EXPECT_EQ(a.kernels, 12u);  // bmm, mul, softmax, bmm per call
  EXPECT_DOUBLE_EQ(a.scores_bytes, 67'108'864.0);
  EXPECT_DOUBLE_EQ(a.flops, kForwardFlops);
  EXPECT_DOUBLE_EQ(a.fused_bytes, 4 * kTensorBytes);
  // The H200's bf16 roof: 989.5 TFLOP/s dense (above the bytes' 16.8 MB / 4.8 TB/s = 3.5 µs).
  EXPECT_EQ(a.fused_floor_ns, static_cast<int64_t>(kForwardFlops / 989.5e12 * 1e9));
  // Every kernel of the three calls is attention: 4 kernels each, ~133 µs a call.
  int64_t kernel_ns = 0;
  for (EventId ev = 0; ev < e.trace.size(); ++ev)
    if (e.trace.kind[ev] == EventKind::Kernel) kernel_ns += e.trace.dur_ns[ev];
  EXPECT_EQ(a.gpu_ns, kernel_ns);
  bool fired = false;
  for (const Finding& f : e.findings) fired |= f.id == FindingId::eager_attention;
  EXPECT_TRUE(fired);
}

}  // namespace
}  // namespace whyslow
