// eager_attention: attention written as matmul → softmax → matmul (analysis/gpu/eager_attention.cpp).
// The scores [B, H, Tq, Tk] make round trips through device memory between the kernels; one
// scaled_dot_product_attention call runs a fused kernel (FlashAttention, cuDNN, memory-efficient)
// that keeps them on chip.
//
// What SDPA would take is estimated from the roofline: one call of a fused kernel cannot beat
// max(FLOPs / the matrix peak, (Q + K + V + O bytes) / bandwidth) (EagerAttention::fused_floor_ns),
// and fused attention kernels reach a fraction of it (kFusedShareOfRoof).
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Fused attention kernels on Hopper reach 35–75 % of the bf16 tensor-core peak in their forward
// pass (FlashAttention-2 ~35 %, FlashAttention-3 ~75 %: Shah et al., "FlashAttention-3", 2024,
// fig. 5); the cuDNN kernel torch 2.11 picks on the H200 reaches 39 % on [4, 8, 1024, 64] bf16
// (tests/fixtures/blocks/attention_sdpa: 8.59 GFLOP in ~22.3 µs). The low end, so the saving is
// not overstated.
constexpr double kFusedShareOfRoof = 0.35;
// …and a call takes at least one kernel's fixed cost, however small the shapes: an empty kernel
// takes about 2 µs from start to end on an H100/H200 (analysis/roofline/roofline.hpp, kShortKernelNs).
constexpr int64_t kFusedCallMinNs = 2'000;
// Worth a finding when the saving is real time: 10 µs over the trace and 2 % of GPU busy time
// (the unfused_elementwise rule's bar for the same kind of saving: intermediates kept on chip).
constexpr int64_t kMinSavingNs = 10'000;
constexpr double kMinShareOfGpu = 0.02;

std::string dims(const std::vector<int64_t>& d) {
  std::string out;
  for (int64_t x : d) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return "[" + out + "]";
}

// The SDPA op around an attention's first matmul: its math fallback (aten::_scaled_dot_product_
// attention_math) runs the same matmul → softmax → matmul as hand-written attention.
EventId sdpa_around(const Trace& t, EventId op) {
  for (EventId a = t.parent[op]; a != kNoEvent; a = t.parent[a])
    if (t.kind[a] == EventKind::CpuOp && t.name_of(a).find("scaled_dot_product_attention") != std::string_view::npos)
      return a;
  return kNoEvent;
}

}  // namespace

void rule_eager_attention(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.eager_attention.empty()) return;
  uint64_t calls = 0, kernels = 0;
  int64_t ns = 0, estimate = 0;
  bool every_group_estimated = true;
  for (const EagerAttention& a : f.eager_attention) {
    calls += a.calls;
    kernels += a.kernels;
    ns += a.gpu_ns;
    every_group_estimated &= a.fused_floor_ns > 0;
    const int64_t per_call =
        std::max(kFusedCallMinNs, static_cast<int64_t>(static_cast<double>(a.fused_floor_ns) / kFusedShareOfRoof));
    estimate += per_call * static_cast<int64_t>(a.calls);
  }
  if (!every_group_estimated) return;  // a GPU not in the datasheet table: no roof to estimate from
  const int64_t saving = ns - estimate;
  if (saving < kMinSavingNs || static_cast<double>(saving) < kMinShareOfGpu * static_cast<double>(f.gpu_busy_ns)) return;
  const EagerAttention& top = f.eager_attention.front();
  const EventId sdpa = sdpa_around(t, top.qk);
  Finding x = make_finding(FindingId::eager_attention);
  x.title = sdpa != kNoEvent
                ? fmt::format("SDPA runs its math fallback, matmul → softmax → matmul ({} call{}, {} of GPU time): a "
                              "fused backend would take about {}",
                              calls, calls == 1 ? "" : "s", human_duration(ns), human_duration(estimate))
                : fmt::format("Attention written as matmul → softmax → matmul ({} call{}, {} of GPU time): SDPA would "
                              "take about {}",
                              calls, calls == 1 ? "" : "s", human_duration(ns), human_duration(estimate));
  x.detail = fmt::format(
      "{} → {} → {} over scores of {} ({} of the {} calls; {} per call, {}): the first GEMM writes the scores to device memory, the "
      "scale/mask/softmax kernels read and write them again, the second GEMM reads them back; {} kernels take {} "
      "in all. torch.nn.functional.scaled_dot_product_attention computes the same in one fused kernel that keeps "
      "the scores on chip and moves only Q, K, V and the output ({} per call). At the roofline one call needs at "
      "least {} ({} at the matrix peak, or those bytes at full bandwidth, whichever is longer); fused attention "
      "kernels reach about {} of that (and no call takes under {}), so about {} for the {} calls, saving about {}.",
      t.name_of(top.qk), t.name_of(top.softmax), t.name_of(top.pv), dims(top.scores_dims), top.calls, calls,
      human_bytes(static_cast<int64_t>(top.scores_bytes)), to_string(top.precision), kernels, human_duration(ns),
      human_bytes(static_cast<int64_t>(top.fused_bytes)), human_duration(top.fused_floor_ns), human_flops(top.flops),
      human_percent(kFusedShareOfRoof), human_duration(kFusedCallMinNs), human_duration(estimate), calls,
      human_duration(saving));
  x.evidence = {count("calls", calls), us("attention_us", ns), {"scores_bytes", top.scores_bytes, "bytes"},
                {"flops", top.flops, "FLOP"}, us("sdpa_floor_us", top.fused_floor_ns), us("sdpa_estimate_us", estimate),
                us("possible_saving_us", saving)};
  x.events = {{top.qk, "Q·Kᵀ matmul"}, {top.softmax, "softmax over the scores"}, {top.pv, "scores·V matmul"}};
  if (sdpa != kNoEvent) {
    x.detail += fmt::format(
        " These are not your matmuls: they run inside {}, the path scaled_dot_product_attention takes when no fused "
        "backend (flash, memory-efficient, cuDNN) accepts the call or all are turned off.",
        t.name_of(sdpa));
    x.try_next = {"Ask for a fused backend to learn why it was refused: with torch.nn.attention.sdpa_kernel("
                  "[SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]): the call raises, and torch warns "
                  "with each backend's reason.",
                  "The usual reasons: fp32 inputs (flash needs fp16/bf16), a head dimension over 256, an attention "
                  "mask or dropout the backend does not take, or torch.backends.cuda.enable_flash_sdp(False) and "
                  "friends set somewhere."};
  } else {
    x.try_next = {"Call torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=…, is_causal=…) "
                  "instead of the matmul/softmax/matmul (in Hugging Face models: attn_implementation=\"sdpa\" or "
                  "\"flash_attention_2\").",
                  "If the scores are needed (attention maps), compute them only where they are read; torch.compile "
                  "can also fuse the scale/mask/softmax kernels, though not the two GEMMs around them."};
  }
  x.impact_ns = saving;
  x.impact_what = "the attention's GPU time beyond a fused attention kernel";
  x.impact_is_gpu_time = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
