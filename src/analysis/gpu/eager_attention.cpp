// Eager attention: softmax(Q·Kᵀ)·V written as three ops (matmul → softmax → matmul) instead of
// one scaled_dot_product_attention. The scores [B, H, Tq, Tk] go to device memory and back
// several times (written by the first GEMM, read and written by the scale/mask/softmax kernels,
// read by the second GEMM); a fused kernel (FlashAttention, cuDNN, memory-efficient) keeps them on
// chip and moves only Q, K, V and the output.
//
// Recognised, per CPU thread, from the ops' names and shapes alone: among the outermost
// matmul-family (aten::matmul, bmm, baddbmm) and softmax-family (aten::softmax, _softmax,
// _safe_softmax) ops in time order, three consecutive ones — a matmul whose output is the
// scores, a softmax over a tensor of that shape, and a matmul whose first operand has that shape.
// Pointwise ops between them (scale, mask, dropout, casts) are allowed: they are neither family.
// Batched GEMMs flatten batch and heads ([B·H, Tq, Tk]), so shapes match on their last two sizes
// and the product of the others.
//
// Cost: one pass over each CPU track's events, one over the kernels.
#include <algorithm>
#include <map>

#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/core/op_inputs.hpp"
#include "analysis/passes.hpp"

namespace whyslow {
namespace {

bool is_matmul_family(std::string_view n) { return n == "aten::matmul" || n == "aten::bmm" || n == "aten::baddbmm"; }
bool is_softmax_family(std::string_view n) {
  return n == "aten::softmax" || n == "aten::_softmax" || n == "aten::_safe_softmax";
}
bool is_family(std::string_view n) { return is_matmul_family(n) || is_softmax_family(n); }

// Inside another op of either family (aten::matmul's own aten::bmm, softmax's _softmax), within
// the ops directly around it: the nearest ancestor that is such an op or no op at all says,
// memoized, so a chain of 90,000 nested ops is walked once.
class Nested {
 public:
  explicit Nested(const Trace& t)
      : t_(t), stop_(t, [&t](EventId a) { return t.kind[a] != EventKind::CpuOp || is_family(t.name_of(a)); }) {}
  bool of(EventId e) {
    const EventId a = stop_.of(t_.parent[e]);
    return a != kNoEvent && t_.kind[a] == EventKind::CpuOp;
  }

 private:
  const Trace& t_;
  NearestAncestor stop_;
};

// A shape as (product of the leading sizes, second-last, last): [B, H, T, T] and [B·H, T, T] agree.
// The callers pass only shapes impossible_shapes() accepts: every product here is within 2^40.
struct Flat {
  int64_t batch = 0, rows = 0, cols = 0;
  bool operator==(const Flat&) const = default;
};
std::optional<Flat> flat(const std::vector<int64_t>& d) {
  if (d.size() < 3) return std::nullopt;  // a plain 2-D GEMM is not attention over heads
  Flat f{1, d[d.size() - 2], d.back()};
  for (size_t i = 0; i + 2 < d.size(); ++i) f.batch *= d[i];
  return f;
}

// The GEMM operands of a matmul-family op: baddbmm(self, a, b) multiplies its 2nd and 3rd.
std::optional<std::pair<OpInput, OpInput>> operands(const Trace& t, EventId op) {
  auto in = op_inputs(t, op);
  const size_t first = t.name_of(op) == "aten::baddbmm" ? 1 : 0;
  // Shapes no tensor has (2^40 × 2^40) would overflow the products below.
  if (!in || impossible_shapes(*in) || in->size() < first + 2 || !(*in)[first].is_tensor() || !(*in)[first + 1].is_tensor()) return std::nullopt;
  return std::make_pair((*in)[first], (*in)[first + 1]);
}

std::optional<Flat> product_shape(const OpInput& a, const OpInput& b) {
  auto fa = flat(a.dims), fb = flat(b.dims);
  if (!fa || !fb || fa->cols != fb->rows) return std::nullopt;
  return Flat{std::max(fa->batch, fb->batch), fa->rows, fb->cols};
}

}  // namespace

std::vector<EagerAttention> eager_attention(const Trace& t, const RooflineFacts& roofline) {
  // GPU kernels by the track and start of their launch, to sum what each instance launched.
  struct Launched {
    TrackId track;
    int64_t launch_ns;
    int64_t dur_ns;
  };
  std::vector<Launched> kernels;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == EventKind::Kernel && t.launch_link[e] != kNoEvent)
      kernels.push_back({t.track[t.launch_link[e]], t.start_ns[t.launch_link[e]], t.dur_ns[e]});
  std::sort(kernels.begin(), kernels.end(), [](const Launched& a, const Launched& b) {
    return a.track != b.track ? a.track < b.track : a.launch_ns < b.launch_ns;
  });

  std::map<std::vector<int64_t>, EagerAttention> groups;  // by the scores' dims
  Nested nested(t);
  for (TrackId tr = 0; tr < t.tracks.size(); ++tr) {
    if (t.tracks[tr].kind != TrackKind::Cpu) continue;
    std::vector<EventId> seq;  // outermost family ops, in time order
    for (EventId e : t.tracks[tr].events)
      if (t.kind[e] == EventKind::CpuOp && is_family(t.name_of(e)) && !nested.of(e)) seq.push_back(e);
    for (size_t i = 1; i + 1 < seq.size(); ++i) {
      const EventId qk = seq[i - 1], sm = seq[i], pv = seq[i + 1];
      if (!is_softmax_family(t.name_of(sm)) || !is_matmul_family(t.name_of(qk)) || !is_matmul_family(t.name_of(pv)))
        continue;
      const auto sm_in = op_inputs(t, sm);
      const auto a = operands(t, qk), b = operands(t, pv);
      if (!sm_in || sm_in->empty() || impossible_shapes(*sm_in) || !(*sm_in)[0].is_tensor() || !a || !b) continue;
      const OpInput& scores = (*sm_in)[0];
      const auto s = flat(scores.dims);
      const auto produced = product_shape(a->first, a->second);
      const auto consumed = flat(b->first.dims);
      const auto out = product_shape(b->first, b->second);
      if (!s || !produced || !consumed || !out || !(*produced == *s) || !(*consumed == *s)) continue;
      EagerAttention& g = groups[scores.dims];
      if (g.calls == 0) {
        g.qk = qk;
        g.softmax = sm;
        g.pv = pv;
        g.scores_dims = scores.dims;
        g.precision = a->first.precision();
        g.scores_bytes = tensor_bytes(scores);
        // 2·N·Tq·D·Tk for Q·Kᵀ and 2·N·Tq·Tk·Dv for P·V.
        g.flops = 2.0 * static_cast<double>(s->batch) * s->rows * s->cols * (a->first.dims.back() + out->cols);
        g.fused_bytes = tensor_bytes(a->first) + tensor_bytes(a->second) + tensor_bytes(b->second) +
                        static_cast<double>(out->batch) * out->rows * out->cols * a->first.element_bytes();
      }
      ++g.calls;
      const int64_t from = t.start_ns[qk], to = t.end_ns(pv);
      auto it = std::lower_bound(kernels.begin(), kernels.end(), std::make_pair(tr, from),
                                 [](const Launched& k, const std::pair<TrackId, int64_t>& key) {
                                   return k.track != key.first ? k.track < key.first : k.launch_ns < key.second;
                                 });
      for (; it != kernels.end() && it->track == tr && it->launch_ns <= to; ++it) {
        g.gpu_ns += it->dur_ns;
        ++g.kernels;
      }
    }
  }
  std::vector<EagerAttention> out;
  for (auto& [dims, g] : groups) {
    // The fused kernel's floor on the first GPU whose datasheet has a rate for this precision.
    for (const DeviceCeilings& d : roofline.devices) {
      if (!d.datasheet || d.datasheet->flops(g.precision) <= 0 || d.datasheet->bytes_per_s <= 0) continue;
      const double seconds = std::max(g.flops / d.datasheet->flops(g.precision), g.fused_bytes / d.datasheet->bytes_per_s);
      g.fused_floor_ns = static_cast<int64_t>(seconds * 1e9);
      break;
    }
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const EagerAttention& a, const EagerAttention& b) { return a.gpu_ns > b.gpu_ns; });
  return out;
}

}  // namespace whyslow
