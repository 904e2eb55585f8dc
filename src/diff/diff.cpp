// diff_traces: profile both traces, say first what makes them hard to compare, then compare the
// kernels and judge.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// Two runs of one workload share most of what the smaller one does: a change such as
// torch.compile renames ops and kernels but keeps the blocks and the tensor shapes. Unrelated
// programs still share a few generic ops (aten::add, aten::copy_); under 30 % shared, say so.
constexpr double kMinOverlap = 0.30;

// What says two traces run the same workload at all: ATen ops, record_function blocks and the
// tensor shapes the ops were called with. torch.compile changes the first two (aten::mm +
// aten::add become aten::addmm, or a Triton launcher) but not the data.
std::set<std::string> workload_signature(const Trace& t, const Facts& f) {
  std::set<std::string> out;
  for (const OpRow& r : f.ops)
    if (!r.device_row && r.name.substr(0, 6) == "aten::") out.insert("op " + r.name);
  for (const AnnotationRow& r : f.annotations) out.insert("block " + r.name);
  // Each innermost "[…]" of an op's Input Dims is one tensor's shape ("[64, 64]").
  for (const OpShapes& s : t.op_shapes) {
    const std::string_view dims = t.names.view(s.input_dims);
    for (size_t open = dims.find('['); open != std::string_view::npos; open = dims.find('[', open + 1)) {
      const size_t close = dims.find(']', open);
      if (close == std::string_view::npos) break;
      const std::string_view shape = dims.substr(open, close - open + 1);
      if (shape.find('[', 1) == std::string_view::npos && shape != "[]") out.insert("shape " + std::string(shape));
    }
  }
  return out;
}

void note_mismatches(const Trace& ta, const Facts& fa, const Trace& tb, const Facts& fb, Diff& d) {
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  if (!a.device.empty() && !b.device.empty() && a.device != b.device)
    d.mismatches.push_back(fmt::format("A ran on {}, B on {}: kernel times are not comparable across GPUs.", a.device, b.device));
  if (a.whole_window)
    d.mismatches.push_back("A has no ProfilerStep annotations: its whole trace counts as one step.");
  if (b.whole_window)
    d.mismatches.push_back("B has no ProfilerStep annotations: its whole trace counts as one step.");
  if (!a.whole_window && !b.whole_window && a.steps != b.steps)
    d.mismatches.push_back(fmt::format("A has {} steady step{}, B has {}: comparing medians per step.", a.steps,
                                       a.steps == 1 ? "" : "s", b.steps));
  for (const std::string& s : a.left_out) d.mismatches.push_back("A: " + s + " left out of the comparison.");
  for (const std::string& s : b.left_out) d.mismatches.push_back("B: " + s + " left out of the comparison.");

  const std::set<std::string> sa = workload_signature(ta, fa), sb = workload_signature(tb, fb);
  size_t shared = 0;
  for (const std::string& x : sa) shared += sb.count(x);
  const size_t smaller = std::min(sa.size(), sb.size());
  const double overlap = smaller == 0 ? 0 : static_cast<double>(shared) / static_cast<double>(smaller);
  if (d.matched.empty() && overlap < kMinOverlap) {
    d.verdict.comparable = false;
    d.mismatches.push_back(fmt::format(
        "A and B share no kernels and only {} of the {} ops, record_function blocks and tensor shapes of the "
        "smaller one: they look like different workloads. Only step times are shown, and no verdict is given.",
        shared, smaller));
  }
}

}  // namespace

Diff diff_traces(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb) {
  Diff d;
  d.a = profile_steps(a, fa);
  d.b = profile_steps(b, fb);
  compare_kernels(a, fa, b, fb, d);
  note_mismatches(a, fa, b, fb, d);
  judge(d);
  return d;
}

}  // namespace whyslow
