// Attention: scaled_dot_product_attention and the kernels' own ops (_flash_attention_forward,
// _efficient_attention_forward, _cudnn_attention_forward, _scaled_dot_product_{flash,efficient,
// cudnn}_attention) and their backward ops (…_backward), with the argument positions of ATen's
// native_functions.yaml.
//
// FLOPs = 2·B·H·Sq·Sk·Dqk (Q·Kᵀ) + 2·B·H·Sq·Sk·Dv (P·V), as torch.utils.flop_counter's
// sdpa_flop_count has it; the softmax's few operations per score are left out, as there. A
// causal mask halves it: the kernels skip the blocks above the diagonal (FlashAttention's own
// benchmarks count causal attention as half the work, and so does whyslow). Bytes: Q, K, V and
// a mask read once, the output written once; the log-sum-exp (B·H·Sq floats, 1/Dv of the
// output) is left out.
//
// Backward (torch.utils.flop_counter's sdpa_backward_flop_count): the kernels recompute the scores
// (Q·Kᵀ, 2·Dqk) and run four more GEMMs: dO·Vᵀ (Dv), Pᵀ·dO (Dv), dS·K (Dqk), dSᵀ·Q (Dqk), so
// FLOPs = 2·B·H·Sq·Sk·(3·Dqk + 2·Dv), halved when causal. Bytes: Q, K, V, O, dO (and a mask) read
// once, dQ, dK, dV written once.
#include <fmt/core.h>

#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

struct AttentionArgs {
  bool bshd = false;  // (batch, seq, heads, dim) layout; else (batch, heads, seq, dim)
  int is_causal = -1;  // position of a boolean is_causal
  int mask_type = -1;  // _efficient_attention_forward's custom_mask_type: 0 none, else causal
  int mask = -1;       // an attention mask / bias tensor
  int query = 0;       // position of Q (K and V follow): 1 in the backward ops, after grad_out
  bool backward = false;
};

std::optional<AttentionArgs> attention_layout(std::string_view n) {
  if (n == "scaled_dot_product_attention") return AttentionArgs{false, 5, -1, 3};
  if (n == "_scaled_dot_product_flash_attention") return AttentionArgs{false, 4, -1, -1};
  if (n == "_scaled_dot_product_efficient_attention") return AttentionArgs{false, 6, -1, 3};
  if (n == "_scaled_dot_product_cudnn_attention") return AttentionArgs{false, 6, -1, 3};
  if (n == "_flash_attention_forward") return AttentionArgs{true, 8, -1, -1};
  if (n == "_efficient_attention_forward") return AttentionArgs{true, -1, 9, 3};
  // (q, k, v, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, compute_log_sumexp, dropout_p, is_causal, …)
  if (n == "_cudnn_attention_forward") return AttentionArgs{false, 10, -1, 3};
  // (grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, …)
  if (n == "_scaled_dot_product_flash_attention_backward") return AttentionArgs{false, 11, -1, -1, 1, true};
  if (n == "_flash_attention_backward") return AttentionArgs{true, 11, -1, -1, 1, true};
  // (grad_out, q, k, v, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal)
  if (n == "_scaled_dot_product_efficient_attention_backward") return AttentionArgs{false, 11, -1, 4, 1, true};
  // (grad_out, q, k, v, bias, out, cu_seqlens_q, cu_seqlens_k, max_q, max_k, logsumexp, dropout_p,
  //  philox_seed, philox_offset, custom_mask_type, …)
  if (n == "_efficient_attention_backward") return AttentionArgs{true, -1, 14, 4, 1, true};
  // (grad_out, q, k, v, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k,
  //  max_q, max_k, dropout_p, is_causal): _cudnn_attention_backward has the same schema
  if (n == "_scaled_dot_product_cudnn_attention_backward" || n == "_cudnn_attention_backward")
    return AttentionArgs{false, 14, -1, 8, 1, true};
  return std::nullopt;
}

}  // namespace

OpModel model_attention(std::string_view name, const std::vector<OpInput>& in) {
  const auto args = attention_layout(name);
  if (!args || in.size() < static_cast<size_t>(args->query) + 3)
    return no_model(NoModelReason::UnrecognisedArguments, fmt::format("aten::{}", name));
  const size_t qi = static_cast<size_t>(args->query);
  const OpInput &q = in[qi], &k = in[qi + 1], &v = in[qi + 2];
  for (const OpInput* t : {&q, &k, &v})
    if (!t->is_tensor() || t->dims.size() != 4)
      // The variable-length form packs sequences into (total, heads, dim): per-sequence lengths
      // are in a tensor's values, which the trace does not hold.
      return no_model(NoModelReason::PackedSequences, fmt::format("aten::{}", name));
  const auto dim = [&](const OpInput& t, char what) {
    const size_t seq = args->bshd ? 1 : 2, heads = args->bshd ? 2 : 1;
    return what == 'b' ? t.dims[0] : what == 's' ? t.dims[seq] : what == 'h' ? t.dims[heads] : t.dims[3];
  };
  const int64_t b = dim(q, 'b'), h = dim(q, 'h'), sq = dim(q, 's'), sk = dim(k, 's'), dqk = dim(q, 'd'),
                dv = dim(v, 'd');
  bool causal = false;
  if (args->is_causal >= 0 && static_cast<size_t>(args->is_causal) < in.size())
    causal = in[args->is_causal].concrete == "True";
  if (args->mask_type >= 0 && static_cast<size_t>(args->mask_type) < in.size())
    causal = !in[args->mask_type].concrete.empty() && in[args->mask_type].concrete != "0";
  OpModel r;
  r.ok = true;
  const double scores = static_cast<double>(b) * h * sq * sk;
  const int64_t width = args->backward ? 3 * dqk + 2 * dv : dqk + dv;  // the GEMMs' summed inner sizes
  r.cost.flops = 2.0 * scores * static_cast<double>(width) * (causal ? 0.5 : 1.0);
  const double qkv = tensor_bytes(q) + tensor_bytes(k) + tensor_bytes(v);
  const double out = static_cast<double>(b) * h * sq * dv * q.element_bytes();
  // Forward: Q, K, V read, O written. Backward: Q, K, V, O, dO read, dQ, dK, dV written.
  double bytes = args->backward ? 2 * qkv + 2 * out : qkv + out;
  if (args->mask >= 0 && static_cast<size_t>(args->mask) < in.size() && in[args->mask].is_tensor())
    bytes += tensor_bytes(in[args->mask]);
  r.cost.bytes = bytes;
  r.cost.working_set = bytes;
  r.cost.precision = q.precision();
  r.cost.unit = MathUnit::Matrix;
  if (args->backward)
    r.cost.formula = fmt::format("aten::{}: 2·B·H·Sq·Sk·(3·Dqk+2·Dv){} = 2·{}·{}·{}·{}·(3·{}+2·{}){}", name,
                                 causal ? "·½ (causal)" : "", b, h, sq, sk, dqk, dv, causal ? "·½" : "");
  else
    r.cost.formula = fmt::format("aten::{}: 2·B·H·Sq·Sk·(Dqk+Dv){} = 2·{}·{}·{}·{}·({}+{}){}", name,
                                 causal ? "·½ (causal)" : "", b, h, sq, sk, dqk, dv, causal ? "·½" : "");
  return r;
}

}  // namespace whyslow
