// Kernels of A and B: the ones both run (time change per step), the ones only one runs, and which
// GPU work of B replaces which of A. Replacements come from aligning a typical step of each trace
// (longest common subsequence of the GPU work in launch order, matched on kernel name and the op
// that launched it): the stretches between the work both run alike are what the change did, and
// the ATen ops that launched each side say why.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/core/event_names.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// Longer steps than this are not aligned (the table is n × m); kernel totals still compare.
constexpr size_t kMaxAlignedWork = 3000;

struct Work {
  std::string name;
  // Name and the innermost ATen op that launched it: the same GEMM kernel launched by aten::addmm
  // instead of aten::mm is doing other work (it absorbed the bias add), while aten::linear →
  // aten::addmm in one trace and a bare aten::addmm in the other run the same work.
  std::string key;
  std::string op;  // the outermost ATen op that launched it (what the user called), else the innermost op
  int64_t ns = 0;
  EventKind kind = EventKind::Kernel;
  bool from_graph = false;  // replayed by a CUDA graph launch
};

// The ATen ops around a launch, innermost and outermost (both the innermost op's name when no
// ATen op encloses it, e.g. an Inductor-generated Triton launcher). `aten`: the ATen ops, memoized
// (launches under a deep chain of ops walked it each).
std::pair<std::string, std::string> launching_ops(const Trace& t, EventId gpu, NearestAncestor& aten) {
  EventId op = t.op_link[gpu];
  if (op == kNoEvent && t.launch_link[gpu] != kNoEvent) op = t.parent[t.launch_link[gpu]];
  if (op == kNoEvent) return {};
  const EventId inner = aten.of(op);
  if (inner == kNoEvent) return {std::string(t.name_of(op)), std::string(t.name_of(op))};
  return {std::string(t.name_of(inner)), std::string(t.name_of(aten.outermost(op)))};
}

// GPU work launched inside one step, in launch order.
std::vector<Work> work_of_step(const Trace& t, const StepFacts& s) {
  std::vector<std::pair<std::pair<int64_t, int64_t>, EventId>> launched;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    const int64_t host = t.start_ns[t.launch_link[e]];
    if (host >= s.start_ns && host <= s.end_ns) launched.push_back({{host, t.start_ns[e]}, e});
  }
  std::sort(launched.begin(), launched.end());
  std::vector<Work> out;
  NearestAncestor aten(t, [&t](EventId a) { return t.kind[a] == EventKind::CpuOp && t.name_of(a).starts_with("aten::"); });
  for (const auto& [when, e] : launched) {
    std::string name(t.name_of(e));
    auto [inner, outer] = launching_ops(t, e, aten);
    out.push_back({name, name + "\n" + inner, outer, t.dur_ns[e], t.kind[e], is_graph_launch(t.name_of(t.launch_link[e]))});
  }
  return out;
}

// Calls and time per steady step of each GPU work name.
// Calls and time per steady step of each GPU work name (one pass over the events).
std::map<std::string, std::pair<double, int64_t>> per_step_totals(const Trace& t, const Facts& f, const StepProfile& p) {
  std::vector<StepFacts> steps;
  for (const StepFacts* s : compared_steps(f, p)) steps.push_back(*s);
  std::map<std::string, std::pair<double, int64_t>> out;
  if (steps.empty()) return out;
  std::sort(steps.begin(), steps.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  std::map<NameId, std::pair<double, int64_t>> by_name;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    if (step_containing(steps, t.start_ns[t.launch_link[e]]) < 0) continue;
    auto& v = by_name[t.name[e]];
    v.first += 1;
    v.second += t.dur_ns[e];
  }
  const double n = static_cast<double>(steps.size());
  for (const auto& [name, v] : by_name)
    out[std::string(t.names.view(name))] = {v.first / n, static_cast<int64_t>(static_cast<double>(v.second) / n)};
  return out;
}

const StepFacts* typical_step(const Facts& f, const StepProfile& p) {
  auto steps = compared_steps(f, p);
  if (steps.empty()) return nullptr;
  std::sort(steps.begin(), steps.end(), [](auto* x, auto* y) { return x->duration_ns < y->duration_ns; });
  return steps[steps.size() / 2];
}

// Work that costs a pass over data: kernels and copies. Memsets (usually clearing a small
// workspace or semaphore) are not counted when deciding whether work was fused.
size_t passes(const std::vector<const Work*>& w) {
  return static_cast<size_t>(std::count_if(w.begin(), w.end(), [](const Work* x) { return x->kind != EventKind::Memset; }));
}

Replacement make_replacement(const std::vector<const Work*>& a, const std::vector<const Work*>& b) {
  Replacement r;
  std::set<std::string> a_ops, b_ops;
  for (const Work* w : a) {
    r.a_work.push_back(w->name);
    r.a_ns += w->ns;
    if (!w->op.empty()) a_ops.insert(w->op);
  }
  for (const Work* w : b) {
    r.b_work.push_back(w->name);
    r.b_ns += w->ns;
    if (!w->op.empty()) b_ops.insert(w->op);
  }
  r.a_ops.assign(a_ops.begin(), a_ops.end());
  r.b_ops.assign(b_ops.begin(), b_ops.end());
  const bool replayed = std::any_of(b.begin(), b.end(), [](const Work* w) { return w->from_graph; });
  if (b.empty()) r.fusion = "removed";
  else if (a.empty()) r.fusion = "added";
  else if (passes(b) < passes(a)) r.fusion = "kernel";
  else if (replayed) r.fusion = "graph";  // same passes, launched by one graph replay
  else if (b_ops.size() < a_ops.size()) r.fusion = "dispatcher";
  else r.fusion = "none";
  return r;
}

std::vector<Replacement> align(const std::vector<Work>& a, const std::vector<Work>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);  // lcs[i][j]: of a[i..], b[j..]
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[i].key == b[j].key ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<Replacement> out;
  std::vector<const Work*> gap_a, gap_b;
  auto flush = [&] {
    if (!gap_a.empty() || !gap_b.empty()) out.push_back(make_replacement(gap_a, gap_b));
    gap_a.clear();
    gap_b.clear();
  };
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i].key == b[j].key) {
      flush();
      ++i;
      ++j;
    } else if (j >= m || (i < n && at(i + 1, j) >= at(i, j + 1))) {
      gap_a.push_back(&a[i++]);
    } else {
      gap_b.push_back(&b[j++]);
    }
  }
  flush();
  return out;
}

}  // namespace

void compare_kernels(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, Diff& d) {
  const auto ta = per_step_totals(a, fa, d.a), tb = per_step_totals(b, fb, d.b);
  for (const auto& [name, v] : ta) {
    auto it = tb.find(name);
    KernelDelta k{name, v.first, 0, v.second, 0};
    if (it != tb.end()) {
      k.b_calls = it->second.first;
      k.b_ns = it->second.second;
      d.matched.push_back(k);
    } else {
      d.only_a.push_back(k);
    }
  }
  for (const auto& [name, v] : tb)
    if (!ta.count(name)) d.only_b.push_back({name, 0, v.first, 0, v.second});
  auto by_time = [](const KernelDelta& x, const KernelDelta& y) {
    return std::max(x.a_ns, x.b_ns) > std::max(y.a_ns, y.b_ns);
  };
  std::sort(d.matched.begin(), d.matched.end(), [](const KernelDelta& x, const KernelDelta& y) {
    return std::llabs(x.b_ns - x.a_ns) > std::llabs(y.b_ns - y.a_ns);
  });
  std::sort(d.only_a.begin(), d.only_a.end(), by_time);
  std::sort(d.only_b.begin(), d.only_b.end(), by_time);

  const StepFacts* sa = typical_step(fa, d.a);
  const StepFacts* sb = typical_step(fb, d.b);
  if (!sa || !sb) {
    d.alignment_note = "no steady step to align on one side";
    return;
  }
  const std::vector<Work> wa = work_of_step(a, *sa), wb = work_of_step(b, *sb);
  if (wa.size() > kMaxAlignedWork || wb.size() > kMaxAlignedWork) {
    d.alignment_note = "steps launch too much GPU work to align (over " + std::to_string(kMaxAlignedWork) +
                       " operations); compare the kernel lists instead";
    return;
  }
  d.replacements = align(wa, wb);
}

}  // namespace whyslow
