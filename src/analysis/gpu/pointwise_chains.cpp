// Unfused pointwise chains: y = relu(x * 2 + 1) in eager mode runs three kernels, and each one
// writes its whole result to device memory for the next to read back. A chain here is a run of
// kernels on one stream with no other GPU work between them, each launched by a pointwise op
// (model_pointwise) that takes a tensor of the shape the previous kernel wrote. The trace holds
// no tensor addresses, so "reads what the last one wrote" is inferred from the shapes.
#include <algorithm>

#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/roofline/roofline.hpp"
#include "trace/steps.hpp"

namespace whyslow {
namespace {

// Smaller intermediates stay in L2 between the kernels, and the chain costs launches rather than
// bytes: the 1 MiB floor keeps this about memory traffic.
constexpr double kMinIntermediateBytes = 1 << 20;

struct Member {
  EventId kernel;
  EventId step;
  OpCost cost;
  std::vector<std::vector<int64_t>> operand_dims;
};

// The ProfilerStep#N an op ran in (the outermost of nested ones, as profiler_steps counts steps),
// or kNoEvent; memoized, so ops deep in long chains of nested events stay linear. A chain never
// crosses steps: the next step starts again from its inputs, whatever shapes they share with the
// last step's results.
class StepOf {
 public:
  explicit StepOf(const Trace& t)
      : steps_(sorted(profiler_steps(t))),
        nearest_(t, [this](EventId e) { return std::binary_search(steps_.begin(), steps_.end(), e); }) {}
  EventId of(EventId op) { return nearest_.of(op); }

 private:
  static std::vector<EventId> sorted(std::vector<EventId> v) {
    std::sort(v.begin(), v.end());
    return v;
  }
  std::vector<EventId> steps_;  // by id
  NearestAncestor nearest_;
};

std::optional<Member> pointwise_member(const Trace& t, EventId kernel, OpModelCache& models, StepOf& step_of) {
  const EventId op = t.op_link[kernel];
  if (op == kNoEvent || t.kind[op] != EventKind::CpuOp || !is_pointwise_op(t.name_of(op))) return std::nullopt;
  const ModelledOp& m = models.of(op);
  if (!m.model.ok || m.model.cost.output_bytes < kMinIntermediateBytes) return std::nullopt;
  Member out{kernel, step_of.of(op), m.model.cost, {}};
  for (const OpInput& x : *m.inputs)
    if (x.is_tensor() && !x.dims.empty()) out.operand_dims.push_back(x.dims);
  return out;
}

bool reads_output_of(const Member& next, const Member& prev) {
  return std::find(next.operand_dims.begin(), next.operand_dims.end(), prev.cost.output_dims) != next.operand_dims.end();
}

void close(std::vector<Member>& run, const Trace& t, std::vector<PointwiseChain>& out) {
  if (run.size() >= 2) {
    PointwiseChain c;
    double largest = 0, intermediates = 0;
    for (size_t i = 0; i < run.size(); ++i) {
      c.kernels.push_back(run[i].kernel);
      c.ns += t.dur_ns[run[i].kernel];
      c.bytes += run[i].cost.bytes;
      largest = std::max(largest, run[i].cost.bytes);
      if (i + 1 < run.size()) intermediates += 2 * run[i].cost.output_bytes;  // written, then read back
    }
    // A fused kernel still moves at least what the largest member moves.
    c.saved_bytes = std::min(intermediates, c.bytes - largest);
    out.push_back(std::move(c));
  }
  run.clear();
}

}  // namespace

std::vector<PointwiseChain> pointwise_chains(const Trace& t, OpModelCache& models) {
  std::vector<PointwiseChain> out;
  StepOf step_of(t);
  for (const Track& track : t.tracks) {
    if (track.kind != TrackKind::Gpu) continue;
    std::vector<Member> run;
    for (EventId e : track.events) {
      if (!is_gpu_activity(t.kind[e])) continue;
      std::optional<Member> m;
      if (t.kind[e] == EventKind::Kernel) m = pointwise_member(t, e, models, step_of);
      if (!m) {
        close(run, t, out);
        continue;
      }
      if (!run.empty() && (!reads_output_of(*m, run.back()) || m->step != run.back().step)) close(run, t, out);
      run.push_back(std::move(*m));
    }
    close(run, t, out);
  }
  std::sort(out.begin(), out.end(), [&](const PointwiseChain& a, const PointwiseChain& b) {
    return t.start_ns[a.kernels.front()] < t.start_ns[b.kernels.front()];
  });
  return out;
}

}  // namespace whyslow
