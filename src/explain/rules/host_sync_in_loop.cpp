// host_sync_in_loop: many small host syncs per step, the signature of .item(), .cpu(), .tolist()
// or Python control flow on GPU values inside a loop. Each one drains the GPU queue.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/core/intervals.hpp"
#include "analysis/cpu/kernel_timing.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"

namespace whyslow {
namespace {

// One or two syncs per step (reading the loss, a final synchronize) are normal; from four on it
// is a loop that syncs on every iteration.
constexpr int64_t kMinSyncsPerStep = 4;
// Without steps, this many syncs in the trace make the same point.
constexpr size_t kMinSyncsInWindow = 10;

// The op that issued a host sync: the outermost ATen op around the call (aten::item, aten::to).
// Memoized per event, so that syncs deep inside one long chain of nested ops walk it once.
class CallSites {
 public:
  explicit CallSites(const Trace& t) : t_(t), outermost_(t.size(), kNoEvent) {}

  std::string_view of(EventId sync) {
    const EventId op = op_of(sync);
    return t_.name_of(op != kNoEvent ? op : sync);
  }
  // The outermost ATen op around the call, kNoEvent where the call is not inside one.
  EventId op_of(EventId sync) {
    const EventId p = t_.parent[sync];
    return p != kNoEvent && t_.kind[p] == EventKind::CpuOp ? outermost_op(p) : kNoEvent;
  }

 private:
  // The last CpuOp going up from `op` (a CpuOp) before the chain of parents leaves CpuOps.
  EventId outermost_op(EventId op) {
    path_.clear();
    EventId top = op;
    for (EventId a = op;;) {
      if (outermost_[a] != kNoEvent) {
        top = outermost_[a];
        break;
      }
      path_.push_back(a);
      const EventId p = t_.parent[a];
      if (p == kNoEvent || t_.kind[p] != EventKind::CpuOp) {
        top = a;
        break;
      }
      a = p;
    }
    for (const EventId a : path_) outermost_[a] = top;
    return top;
  }

  const Trace& t_;
  std::vector<EventId> outermost_;  // per CpuOp once known, else kNoEvent
  std::vector<EventId> path_;
};

// The host waits that read a result back: synchronize calls and blocking device-to-host copies.
// A blocking host-to-device copy (a batch moved from pageable memory) waits too, but it is the
// input pipeline's, with its own finding and its own fix (pageable_memcpy: pin the memory). Syncs
// made inside DDP, FSDP or c10d are the library's: no .item() of the user's to remove; so are the
// waits inside an op that timed kernels of its own (kernel_timing.hpp: cuDNN's benchmark mode waits
// on its timing events inside aten::conv2d), and those made while torch.compile compiles (Inductor
// benchmarking its kernel configs, Dynamo: 80 of a compiled first call's 83 waits).
SyncFacts read_backs(const Trace& t, const Facts& f, CallSites& sites) {
  const SyncFacts& all = f.syncs;
  std::vector<Interval> compiling;
  for (const Compilation& c : f.compile.compilations) compiling.emplace_back(c.start_ns, c.end_ns);
  merge_intervals(compiling);
  std::unordered_map<EventId, bool> timed;  // per issuing op
  const auto autotuning = [&](EventId sync) {
    const EventId op = sites.op_of(sync);
    if (op == kNoEvent) return false;
    auto [it, fresh] = timed.try_emplace(op, false);
    if (fresh) it->second = kernel_timing_inside(t, op).timed;
    return it->second;
  };
  SyncFacts out;
  for (const SyncCall& c : all.calls) {
    if (c.distributed_library || autotuning(c.event) ||
        covered_length(compiling, t.start_ns[c.event], t.end_ns(c.event)) == t.dur_ns[c.event])
      continue;
    const EventId copy = t.launch_link[c.event];
    const bool host_to_device = c.blocking_copy && copy != kNoEvent && t.kind[copy] == EventKind::Memcpy &&
                                t.name_of(copy).find("HtoD") != std::string_view::npos;
    if (host_to_device) continue;
    out.calls.push_back(c);
    out.total_wait_ns += c.wait_ns;
    out.total_gpu_busy_ns += c.gpu_busy_ns;
  }
  return out;
}

}  // namespace

void rule_host_sync_in_loop(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  CallSites call_sites(t);
  const SyncFacts s = read_backs(t, f, call_sites);
  if (s.calls.empty()) return;
  const auto steps = steady_steps(f);
  std::vector<int64_t> per_step;
  int64_t median = 0;
  if (!f.steps.empty()) {
    std::vector<int64_t> in_step(f.steps.size(), 0);
    for (const SyncCall& c : s.calls) {
      const int i = step_containing(f.steps, t.start_ns[c.event]);
      if (i >= 0) ++in_step[static_cast<size_t>(i)];
    }
    for (const StepFacts* st : steps) per_step.push_back(in_step[static_cast<size_t>(st - f.steps.data())]);
    std::sort(per_step.begin(), per_step.end());
    median = per_step.empty() ? 0 : per_step[per_step.size() / 2];
    if (median < kMinSyncsPerStep) return;
  } else if (s.calls.size() < kMinSyncsInWindow) {
    return;
  }
  std::map<std::string_view, int> sites;
  for (const SyncCall& c : s.calls) ++sites[call_sites.of(c.event)];
  std::vector<std::pair<int, std::string_view>> ranked;
  for (auto& [name, n] : sites) ranked.emplace_back(n, name);
  std::sort(ranked.rbegin(), ranked.rend());
  std::string where;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i)
    where += fmt::format("{}{} ×{}", i ? ", " : "", ranked[i].second, ranked[i].first);
  Finding x = make_finding(FindingId::host_sync_in_loop);
  x.title = f.steps.empty()
                ? fmt::format("{} host syncs in the trace (mostly {})", s.calls.size(), ranked.front().second)
                : fmt::format("{} host syncs per step: the CPU stops to wait for the GPU again and again", median);
  x.detail = fmt::format(
      "Each .item(), .cpu(), .tolist(), printing a GPU tensor or an `if` on a GPU value copies a result to the "
      "host and blocks until every kernel queued before it has finished. The GPU queue then runs empty and the "
      "CPU cannot launch ahead. Where they come from: {}. In total the CPU waited {} in {} such calls.",
      where, human_duration(s.total_wait_ns), s.calls.size());
  x.evidence = {count("syncs", s.calls.size()), us("total_wait_us", s.total_wait_ns)};
  if (!f.steps.empty()) x.evidence.insert(x.evidence.begin(), count("syncs_per_step", static_cast<uint64_t>(median)));
  std::vector<SyncCall> sorted = s.calls;
  std::sort(sorted.begin(), sorted.end(), [](const SyncCall& a, const SyncCall& b) { return a.wait_ns > b.wait_ns; });
  for (size_t i = 0; i < sorted.size() && i < 3; ++i) x.events.push_back({sorted[i].event, "host sync"});
  highlight_waits(t, s, x.highlights);
  x.try_next = {"Keep values on the GPU inside the loop: accumulate into a GPU tensor and read it once per step.",
                "Replace data-dependent Python control flow with tensor ops (torch.where, masking).",
                "If a value is only logged, log it every N steps, or copy it with non_blocking=True into pinned "
                "memory and read it later."};
  // What removing the syncs gives back is the GPU's idle time they cause (the CPU relaunching after
  // each), not the waits: a wait while the GPU runs queued work costs the step nothing.
  const BoundScope scope = bound_scope(f);
  x.impact_ns = scope.mean_ns(IdleCause::Sync);
  x.impact_basis_ns = scope.windows.empty() ? 0 : scope.total_ns / static_cast<int64_t>(scope.windows.size());
  x.impact_what = "the GPU's idle time after the syncs, until the CPU's next launch reaches it";
  x.evidence.push_back(us("gpu_idle_after_sync_us", x.impact_ns));
  out.push_back(std::move(x));
}

}  // namespace whyslow
