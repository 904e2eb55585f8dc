// Do A and B run the same workload? Two measures of the GPU work of their steady steps, each
// weighted by GPU time, each the smaller of the two sides' shares spent on something the other
// side also has:
//  - kernels, by name: survives a change of input data, not a change of kernels (torch.compile
//    fuses and renames them; another GPU or vendor has other libraries);
//  - the tensor shapes the launching ops were called with ("[256, 1024]"): survives a change of
//    kernels (eager vs compiled, H100 vs MI300 run the same shapes), not a change of problem
//    size (a 32-token decode step and a 15,360-token prefill step share no activation shape).
// And one that survives a change of both (an op swap: eager attention → SDPA runs other kernels
// on other op shapes): the same record_function blocks, each given the same first input shape.
// Work of the same program shares one or the other; a decode step and a prefill step share
// neither. A share is of time, not of names: a few shared small kernels (copies, a norm) do not
// make a 15,360-token GEMM comparable with a 32-token one.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/core/op_inputs.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// The steady steps in time order, and whether a time falls in one of them outside torch.compile's
// compilations: work launched while compiling (Inductor's autotuning benchmarks, tracing with fake
// tensors) is the compiler's, not the workload's.
class WorkloadTime {
 public:
  WorkloadTime(const Facts& f, const StepProfile& p) : compilations_(f.compile.compilations) {
    for (const StepFacts* s : compared_steps(f, p)) steps_.push_back(*s);
    std::sort(steps_.begin(), steps_.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  }
  bool holds(int64_t ts) const {
    if (step_containing(steps_, ts) < 0) return false;
    auto it = std::upper_bound(compilations_.begin(), compilations_.end(), ts,
                               [](int64_t x, const Compilation& c) { return x < c.start_ns; });
    return it == compilations_.begin() || std::prev(it)->end_ns < ts;
  }

 private:
  std::vector<StepFacts> steps_;
  const std::vector<Compilation>& compilations_;  // in time order, not overlapping
};

// GPU time per kernel (copy, memset) name of the work launched in the steady steps.
std::map<std::string, int64_t> time_by_kernel(const Trace& t, const Facts& f, const StepProfile& p) {
  const WorkloadTime workload(f, p);
  std::map<std::string, int64_t> out;
  for (EventId e = 0; e < t.size(); ++e)
    if (is_gpu_activity(t.kind[e]) && t.launch_link[e] != kNoEvent && workload.holds(t.start_ns[t.launch_link[e]]))
      out[std::string(t.name_of(e))] += t.dur_ns[e];
  return out;
}

// Time per shape of the GPU work launched in the steady steps; an activity's time is shared
// equally among the distinct shapes its op was called with. Work whose op has no shapes
// (record_shapes off, CUDA graph replays) is left out.
std::map<std::string, double> time_by_shape(const Trace& t, const Facts& f, const StepProfile& p) {
  const WorkloadTime workload(f, p);
  std::map<std::string, double> out;
  std::set<std::string> shapes;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    if (!workload.holds(t.start_ns[t.launch_link[e]])) continue;
    EventId op = t.op_link[e];
    if (op == kNoEvent) op = t.parent[t.launch_link[e]];
    if (op == kNoEvent || t.kind[op] != EventKind::CpuOp || t.detail[op] == UINT32_MAX) continue;  // no shapes
    // Each innermost "[…]" of Input Dims is one tensor's shape ("[64, 64]"); "[]" is a scalar.
    const std::string_view dims = t.names.view(t.op_shapes[t.detail[op]].input_dims);
    shapes.clear();
    for (size_t open = dims.find('['); open != std::string_view::npos; open = dims.find('[', open + 1)) {
      const size_t close = dims.find(']', open);
      if (close == std::string_view::npos) break;
      const std::string_view shape = dims.substr(open, close - open + 1);
      if (shape.find('[', 1) == std::string_view::npos && shape != "[]") shapes.insert(std::string(shape));
    }
    for (const std::string& s : shapes) out[s] += static_cast<double>(t.dur_ns[e]) / static_cast<double>(shapes.size());
  }
  return out;
}

// What each record_function block at the top of the first steady step is given: the first tensor
// shape of the first op with recorded shapes inside it ("attention" → "[8, 16, 1024, 64]"); a block
// without one maps to "". An op swap inside a block (eager attention → SDPA) keeps it.
std::map<std::string, std::string> block_inputs(const Trace& t, const Facts& f, const StepProfile& p) {
  std::map<std::string, std::string> out;
  const StepFacts* first = nullptr;
  for (const StepFacts* s : compared_steps(f, p))
    if (s->event != kNoEvent && (!first || s->start_ns < first->start_ns)) first = s;
  if (!first) return out;
  const EventId step = first->event;
  const WorkloadTime workload(f, p);
  std::map<EventId, std::pair<int64_t, std::string>> earliest;  // top-level block → (start, shape) of its first shaped op
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.track[e] != t.track[step] || t.start_ns[e] < first->start_ns || t.start_ns[e] > first->end_ns) continue;
    if (t.parent[e] == step && t.kind[e] == EventKind::UserAnnotation) out.try_emplace(block_key(t.name_of(e)), "");
    if (t.kind[e] != EventKind::CpuOp || t.detail[e] == UINT32_MAX || !workload.holds(t.start_ns[e])) continue;
    EventId top = e;
    while (top != kNoEvent && t.parent[top] != step) top = t.parent[top];
    if (top == kNoEvent || t.kind[top] != EventKind::UserAnnotation) continue;
    const NameId dims = t.op_shapes[t.detail[e]].input_dims;
    if (dims == kNoName) continue;
    std::string shape = first_tensor_shape(t.names.view(dims));
    if (shape.empty()) continue;
    auto [it, inserted] = earliest.try_emplace(top, t.start_ns[e], shape);
    if (!inserted && t.start_ns[e] < it->second.first) it->second = {t.start_ns[e], std::move(shape)};
  }
  for (const auto& [block, first_op] : earliest) {
    std::string& shape = out[block_key(t.name_of(block))];
    if (shape.empty()) shape = first_op.second;
  }
  return out;
}

// Each GPU activity launched in the compared steps with the input shapes of the outermost op above
// its launch (the call the user's code made: aten::matmul, not the bmm it became) and its time.
// Activities under no op with shapes are left out.
std::vector<std::pair<std::set<std::string>, int64_t>> work_by_top_op(const Trace& t, const Facts& f, const StepProfile& p) {
  const WorkloadTime workload(f, p);
  std::vector<EventId> outer(t.size(), kNoEvent - 1);  // memo: the outermost CPU op at or above an event
  std::vector<EventId> path;
  auto outermost = [&](EventId e) {
    path.clear();
    EventId found = kNoEvent;
    for (EventId x = e; x != kNoEvent; x = t.parent[x]) {
      if (outer[x] != kNoEvent - 1) {
        found = outer[x];
        break;
      }
      path.push_back(x);
    }
    for (size_t i = path.size(); i-- > 0;) {  // from the top down
      if (found == kNoEvent && t.kind[path[i]] == EventKind::CpuOp) found = path[i];
      outer[path[i]] = found;
    }
    return e == kNoEvent ? kNoEvent : outer[e];
  };
  std::vector<std::pair<std::set<std::string>, int64_t>> out;
  std::map<EventId, size_t> index_of;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent || !workload.holds(t.start_ns[t.launch_link[e]])) continue;
    const EventId op = outermost(t.launch_link[e]);
    if (op == kNoEvent || t.detail[op] == UINT32_MAX || t.op_shapes[t.detail[op]].input_dims == kNoName) continue;
    auto [it, inserted] = index_of.try_emplace(op, out.size());
    if (inserted) {
      std::set<std::string> shapes;
      const std::string_view dims = t.names.view(t.op_shapes[t.detail[op]].input_dims);
      for (size_t open = dims.find('['); open != std::string_view::npos; open = dims.find('[', open + 1)) {
        const size_t close = dims.find(']', open);
        if (close == std::string_view::npos) break;
        const std::string_view shape = dims.substr(open, close - open + 1);
        if (shape.find('[', 1) == std::string_view::npos && shape != "[]") shapes.insert(std::string(shape));
      }
      out.emplace_back(std::move(shapes), 0);
    }
    out[it->second].second += t.dur_ns[e];
  }
  return out;
}

// The smaller of the two sides' shares of GPU time launched by top-level ops that take an input
// shape a top-level op of the other side takes: the same inputs, whatever ops solve it (eager
// attention's matmul, softmax, matmul against one scaled_dot_product_attention on q, k, v).
double top_input_share(const std::vector<std::pair<std::set<std::string>, int64_t>>& a,
                       const std::vector<std::pair<std::set<std::string>, int64_t>>& b) {
  auto share = [](const auto& x, const auto& y) {
    std::set<std::string> other;
    for (const auto& [shapes, ns] : y) other.insert(shapes.begin(), shapes.end());
    double all = 0, shared = 0;
    for (const auto& [shapes, ns] : x) {
      all += static_cast<double>(ns);
      if (std::any_of(shapes.begin(), shapes.end(), [&](const std::string& s) { return other.count(s) > 0; }))
        shared += static_cast<double>(ns);
    }
    return all > 0 ? shared / all : 0.0;
  };
  return std::min(share(a, b), share(b, a));
}

// The shapes with dimension `dim` written "N" where it is `size` ("[64, 512]" → "[N, 512]"): the
// same work at another batch (or sequence length) then has the same shapes on both sides.
std::map<std::string, double> scaled_shapes(const std::map<std::string, double>& by_shape, size_t dim, int64_t size) {
  std::map<std::string, double> out;
  const std::string want = std::to_string(size);
  for (const auto& [shape, ns] : by_shape) {
    std::string key = "[";
    size_t i = 0, start = 1;
    while (start < shape.size()) {
      size_t end = shape.find_first_of(",]", start);
      if (end == std::string::npos) end = shape.size();
      std::string part = shape.substr(start, end - start);
      if (!part.empty() && part.front() == ' ') part.erase(0, 1);
      key += (i ? ", " : "") + (i == dim && part == want ? std::string("N") : part);
      ++i;
      start = end + 1;
    }
    out[key + "]"] += ns;
  }
  return out;
}

// The smaller of the two sides' shares of their total on keys the other side also has.
template <typename Map, typename Has>
double shared_share(const Map& a, const Map& b, Has has) {
  auto share = [&](const Map& x, const Map& y) {
    double all = 0, shared = 0;
    for (const auto& [key, v] : x) {
      all += static_cast<double>(v);
      if (has(y, key)) shared += static_cast<double>(v);
    }
    return all > 0 ? shared / all : 0.0;
  };
  return std::min(share(a, b), share(b, a));
}

}  // namespace

WorkloadOverlap measure_overlap(const Trace& a, const Facts& fa, const StepProfile& pa, const Trace& b, const Facts& fb,
                                const StepProfile& pb, const PerUnit& unit) {
  WorkloadOverlap o;
  const std::map<std::string, int64_t> ka = time_by_kernel(a, fa, pa), kb = time_by_kernel(b, fb, pb);
  auto positive = [](const std::map<std::string, int64_t>& m) {
    return std::any_of(m.begin(), m.end(), [](const auto& kv) { return kv.second > 0; });
  };
  if (!positive(ka) || !positive(kb)) return o;
  o.measured = true;
  auto has = [](const auto& m, const std::string& key) { return m.count(key) > 0; };
  o.kernel_share = shared_share(ka, kb, has);
  const std::map<std::string, double> sa = time_by_shape(a, fa, pa), sb = time_by_shape(b, fb, pb);
  if (!sa.empty() && !sb.empty()) o.shape_share = shared_share(sa, sb, has);
  const auto ta = work_by_top_op(a, fa, pa), tb = work_by_top_op(b, fb, pb);
  if (!ta.empty() && !tb.empty()) o.top_input_share = top_input_share(ta, tb);
  if (!sa.empty() && !sb.empty() && !unit.unit.empty()) {
    const size_t dim = unit.unit == "sample" ? 0 : 1;
    o.scaled_shape_share = shared_share(scaled_shapes(sa, dim, static_cast<int64_t>(unit.a_units)),
                                        scaled_shapes(sb, dim, static_cast<int64_t>(unit.b_units)), has);
  }
  o.share = std::max(o.kernel_share, o.shape_share);
  o.basis = o.shape_share > o.kernel_share ? "shapes" : "kernels";
  // The same blocks, each given the same first input shape.
  const auto ia = block_inputs(a, fa, pa), ib = block_inputs(b, fb, pb);
  if (!ia.empty() && ia.size() == ib.size()) {
    bool all = true;
    for (const auto& [block, shape] : ia) {
      const auto it = ib.find(block);
      if (it == ib.end() || it->second != shape) all = false;
      else if (!shape.empty()) o.agreeing_inputs.push_back(block + ": " + shape);
    }
    o.inputs_agree = all && !o.agreeing_inputs.empty();
  }
  return o;
}

}  // namespace whyslow
