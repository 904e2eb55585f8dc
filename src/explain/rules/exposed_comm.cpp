// exposed_comm: communication that compute does not hide. While a communication kernel runs with no
// compute beside it, the step waits for the network (or for a peer): that time is the step's to
// win back by overlapping, or by fewer, larger collectives — except the part spent waiting for a
// late peer (peer_wait.hpp, reported by comm_wait): ranks move in step, so hiding one rank's wait
// behind its compute leaves the job as slow as the late rank. Its cost, and severity, leave that out.
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/comm_steps.hpp"
#include "explain/rules/peer_wait.hpp"

namespace whyslow {
namespace {

// Exposed communication under 2 % of a step is within the launch gaps every step has.
constexpr double kMinExposedShare = 0.02;
// Below 20 µs per step even a perfectly overlapped collective would save nothing measurable.
constexpr int64_t kMinExposedNs = 20'000;
// A warning from 10 % of the step (a tenth of the step spent waiting on the network), critical
// from 40 % (communication, not compute, then sets the step time).
constexpr double kWarningShare = 0.10;
constexpr double kCriticalExposedShare = 0.40;
// The collective kinds named in the text, largest exposed time first.
constexpr size_t kKindsNamed = 3;
constexpr size_t kExposedEventsShown = 3;
// When waiting for a peer is at least half of the exposed communication, the advice leads with
// finding the late rank: overlapping is then the lesser part.
constexpr double kMostlyWaitShare = 0.5;

}  // namespace

void rule_exposed_comm(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.comm.calls.empty()) return;
  const auto steps = steady_steps(f);
  const StepBasis basis = comm_basis(f, steps);
  const int64_t step = basis.ns;
  const int64_t exposed = median_of(steps, &StepFacts::exposed_comm_ns);
  const int64_t comm = median_of(steps, &StepFacts::comm_ns);
  if (step <= 0 || exposed < kMinExposedNs || static_cast<double>(exposed) < kMinExposedShare * static_cast<double>(step))
    return;
  const double share = static_cast<double>(exposed) / static_cast<double>(step);
  const SteadyCalls calls = steady_calls(f, steps);
  const int64_t peer_wait = median_wait_per_step(calls, peer_waits(t, f, calls));
  const int64_t waiting = std::min(exposed, peer_wait);
  const int64_t recoverable = exposed - waiting;
  const double recoverable_share = static_cast<double>(recoverable) / static_cast<double>(step);
  std::map<CollectiveKind, std::pair<int64_t, uint64_t>> by_kind;  // exposed ns, calls
  for (const CollectiveCall* c : calls.calls) {
    by_kind[c->kind].first += c->exposed_ns;
    ++by_kind[c->kind].second;
  }
  std::vector<std::pair<int64_t, CollectiveKind>> ranked;
  for (const auto& [kind, v] : by_kind) ranked.emplace_back(v.first, kind);
  std::sort(ranked.rbegin(), ranked.rend());
  std::string which;
  for (size_t i = 0; i < std::min(kKindsNamed, ranked.size()); ++i)
    which += fmt::format("{}{} ×{} ({} exposed)", i ? ", " : "", to_string(ranked[i].second),
                         by_kind[ranked[i].second].second, human_duration(ranked[i].first));
  Finding x = make_finding(FindingId::exposed_comm);
  x.severity = recoverable_share >= kCriticalExposedShare ? Severity::Critical
               : recoverable_share >= kWarningShare ? Severity::Warning
                                                    : Severity::Info;
  x.title = fmt::format("Communication not hidden by compute: {} of {}", human_duration(exposed), basis.words);
  x.detail = fmt::format(
      "Communication kernels take {} per step; during {} of it no other kernel, copy or memset ran, so the step "
      "waited for communication ({} of the step). Collectives over the steady steps, by exposed time: {}.",
      human_duration(comm), human_duration(exposed), human_percent(share), which.empty() ? "none" : which);
  if (waiting > 0)
    x.detail += fmt::format(" Of it, {} per step is this rank waiting inside collectives for a late peer{}: "
                            "overlapping cannot win that back while the peer stays late, so {} is what better overlap "
                            "can give.",
                            human_duration(waiting), peer_wait_reported(peer_wait, step) ? " (comm_wait)" : "",
                            human_duration(recoverable));
  x.evidence = {us("exposed_comm_us", exposed), us("comm_us", comm), us("step_us", median_of(steps, &StepFacts::duration_ns)), percent("exposed_comm_pct", share),
                us("peer_wait_us", waiting),
                count("calls_per_step", calls.calls.size() / calls.steps)};
  std::vector<const CollectiveCall*> top = calls.calls;
  std::sort(top.begin(), top.end(), [](const CollectiveCall* a, const CollectiveCall* b) { return a->exposed_ns > b->exposed_ns; });
  for (size_t i = 0; i < std::min(kExposedEventsShown, top.size()); ++i) {
    x.events.push_back({top[i]->kernel, "exposed collective"});
    x.highlights.mark.push_back(top[i]->kernel);
  }
  // Advice for the collective that leaves the most exposed: an all-to-all (MoE token dispatch and
  // combine, DLRM's sharded embedding lookups) is not DDP's or FSDP's to fix.
  const CollectiveKind top_kind = ranked.empty() ? CollectiveKind::Other : ranked.front().second;
  const std::string ddp =
      "DDP: let gradient all-reduces overlap the backward pass (gradient_as_bucket_view=True; tune bucket_cap_mb "
      "so the first bucket is ready early and buckets are large enough to reach the link's bandwidth).";
  const std::string fsdp =
      "FSDP: prefetch the next all-gather (forward_prefetch / backward_prefetch=BACKWARD_PRE; FSDP2: "
      "set_modules_to_forward_prefetch), and keep parameters gathered where memory allows (reshard_after_forward=False).";
  const std::string straggler =
      "If the collectives are long because a peer arrives late, faster links will not help: load every rank's "
      "trace (whyslow explain rank*.json) to find the straggler.";
  if (top_kind == CollectiveKind::AllToAll)
    x.try_next = {"All-to-all (an MoE's token dispatch and combine, sharded embedding lookups): overlap it with "
                  "another micro-batch's compute (two-batch overlap, DualPipe, TorchRec's pipelined training), and "
                  "balance the load (experts, embedding shards) so that no rank's data arrives last.",
                  straggler};
  else if (top_kind == CollectiveKind::AllGather || top_kind == CollectiveKind::ReduceScatter)
    x.try_next = {fsdp, ddp, "Fewer, larger collectives: coalesce small ones.", straggler};
  else
    x.try_next = {ddp, fsdp,
                  "Fewer, larger collectives: coalesce small ones, accumulate gradients over micro-batches (no_sync) "
                  "and all-reduce once.",
                  straggler};
  if (static_cast<double>(waiting) >= kMostlyWaitShare * static_cast<double>(exposed))
    std::rotate(x.try_next.rbegin(), x.try_next.rbegin() + 1, x.try_next.rend());  // the straggler line first
  x.impact_ns = recoverable;
  x.impact_what = "the communication no compute hides, less its wait for a late peer, per step";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
