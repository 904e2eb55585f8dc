// Attention: scaled_dot_product_attention and the kernels' own ops (_flash_attention_forward,
// _efficient_attention_forward, _scaled_dot_product_{flash,efficient,cudnn}_attention).
//
// FLOPs = 2·B·H·Sq·Sk·Dqk (Q·Kᵀ) + 2·B·H·Sq·Sk·Dv (P·V), as torch.utils.flop_counter's
// sdpa_flop_count has it; the softmax's few operations per score are left out, as there. A
// causal mask halves it: the kernels skip the blocks above the diagonal (FlashAttention's own
// benchmarks count causal attention as half the work, and so does whyslow). Bytes: Q, K, V and
// a mask read once, the output written once; the log-sum-exp (B·H·Sq floats, 1/Dv of the
// output) is left out.
#include <fmt/core.h>

#include "analysis/op_cost.hpp"

namespace whyslow {
namespace {

struct AttentionArgs {
  bool bshd = false;  // (batch, seq, heads, dim) layout; else (batch, heads, seq, dim)
  int is_causal = -1;  // position of a boolean is_causal
  int mask_type = -1;  // _efficient_attention_forward's custom_mask_type: 0 none, else causal
  int mask = -1;       // an attention mask / bias tensor
};

std::optional<AttentionArgs> layout(std::string_view n) {
  if (n == "scaled_dot_product_attention") return AttentionArgs{false, 5, -1, 3};
  if (n == "_scaled_dot_product_flash_attention") return AttentionArgs{false, 4, -1, -1};
  if (n == "_scaled_dot_product_efficient_attention") return AttentionArgs{false, 6, -1, 3};
  if (n == "_scaled_dot_product_cudnn_attention") return AttentionArgs{false, 6, -1, 3};
  if (n == "_flash_attention_forward") return AttentionArgs{true, 8, -1, -1};
  if (n == "_efficient_attention_forward") return AttentionArgs{true, -1, 9, 3};
  return std::nullopt;
}

}  // namespace

OpModel model_attention(std::string_view name, const std::vector<OpInput>& in) {
  const auto args = layout(name);
  if (!args || in.size() < 3) return no_model(fmt::format("aten::{} with arguments whyslow does not recognise", name));
  const OpInput &q = in[0], &k = in[1], &v = in[2];
  for (const OpInput* t : {&q, &k, &v})
    if (!t->is_tensor() || t->dims.size() != 4)
      // The variable-length form packs sequences into (total, heads, dim): per-sequence lengths
      // are in a tensor's values, which the trace does not hold.
      return no_model(fmt::format("aten::{} on packed variable-length sequences (lengths not in the trace)", name));
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
  r.cost.flops = 2.0 * scores * (dqk + dv) * (causal ? 0.5 : 1.0);
  double bytes = tensor_bytes(q) + tensor_bytes(k) + tensor_bytes(v) + static_cast<double>(b) * h * sq * dv * q.element_bytes();
  if (args->mask >= 0 && static_cast<size_t>(args->mask) < in.size() && in[args->mask].is_tensor())
    bytes += tensor_bytes(in[args->mask]);
  r.cost.bytes = bytes;
  r.cost.working_set = bytes;
  r.cost.precision = q.precision();
  r.cost.unit = MathUnit::Matrix;
  r.cost.formula = fmt::format("aten::{}: 2·B·H·Sq·Sk·(Dqk+Dv){} = 2·{}·{}·{}·{}·({}+{}){}", name,
                               causal ? "·½ (causal)" : "", b, h, sq, sk, dqk, dv, causal ? "·½" : "");
  return r;
}

}  // namespace whyslow
