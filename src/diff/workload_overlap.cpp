// Do A and B run the same workload? Two measures of the GPU work of their steady steps, each
// weighted by GPU time, each the smaller of the two sides' shares spent on something the other
// side also has:
//  - kernels, by name: survives a change of input data, not a change of kernels (torch.compile
//    fuses and renames them; another GPU or vendor has other libraries);
//  - the tensor shapes the launching ops were called with ("[256, 1024]"): survives a change of
//    kernels (eager vs compiled, H100 vs MI300 run the same shapes), not a change of problem
//    size (a 32-token decode step and a 15,360-token prefill step share no activation shape).
// Work of the same program shares one or the other; a decode step and a prefill step share
// neither. A share is of time, not of names: a few shared small kernels (copies, a norm) do not
// make a 15,360-token GEMM comparable with a 32-token one.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/steps/steady_steps.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// Time per shape of the GPU work launched in the steady steps; an activity's time is shared
// equally among the distinct shapes its op was called with. Work whose op has no shapes
// (record_shapes off, CUDA graph replays) is left out.
std::map<std::string, double> time_by_shape(const Trace& t, const Facts& f) {
  std::vector<StepFacts> steps;
  for (const StepFacts* s : steady_steps(f)) steps.push_back(*s);
  std::sort(steps.begin(), steps.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  std::map<std::string, double> out;
  std::set<std::string> shapes;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    if (step_containing(steps, t.start_ns[t.launch_link[e]]) < 0) continue;
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

WorkloadOverlap measure_overlap(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, const Diff& d) {
  WorkloadOverlap o;
  // Kernel time per step by name, from the kernel comparison: matched names are on both sides.
  std::map<std::string, int64_t> ka, kb;
  for (const KernelDelta& k : d.matched) {
    ka[k.name] = k.a_ns;
    kb[k.name] = k.b_ns;
  }
  for (const KernelDelta& k : d.only_a) ka[k.name] = k.a_ns;
  for (const KernelDelta& k : d.only_b) kb[k.name] = k.b_ns;
  auto positive = [](const std::map<std::string, int64_t>& m) {
    return std::any_of(m.begin(), m.end(), [](const auto& kv) { return kv.second > 0; });
  };
  if (!positive(ka) || !positive(kb)) return o;
  o.measured = true;
  auto has = [](const auto& m, const std::string& key) { return m.count(key) > 0; };
  o.kernel_share = shared_share(ka, kb, has);
  const std::map<std::string, double> sa = time_by_shape(a, fa), sb = time_by_shape(b, fb);
  if (!sa.empty() && !sb.empty()) o.shape_share = shared_share(sa, sb, has);
  o.share = std::max(o.kernel_share, o.shape_share);
  o.basis = o.shape_share > o.kernel_share ? "shapes" : "kernels";
  return o;
}

}  // namespace whyslow
