// comm_wait: collectives far longer than their bytes need on the GPU's link. A collective cannot
// finish before every rank of its group has joined it, so the early ranks sit inside the kernel
// until the last one arrives: on this rank's trace that looks like slow communication, but the
// cause is on another rank.
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/comm_steps.hpp"

namespace whyslow {
namespace {

// What a collective may take without waiting: its bytes at half the link's peak bus bandwidth
// (NCCL reaches 70–90 % of NVLink's peak on large messages, so half is generous), plus a fixed
// 50 µs for NCCL's launch and protocol latency (its small-message all-reduce takes 10–30 µs on one
// NVLink node).
constexpr double kAchievableLinkShare = 0.5;
constexpr int64_t kCollectiveLatencyNs = 50'000;
// Waiting under 5 % of a step or 100 µs is within the jitter of a healthy job.
constexpr double kMinWaitShare = 0.05;
constexpr int64_t kMinWaitNs = 100'000;
// Critical from 40 % of the step: the rank then spends more time waiting for peers than a
// healthy step spends communicating.
constexpr double kCriticalShare = 0.40;
constexpr size_t kEventsShown = 3;

int64_t wait_ns(const Trace& t, const CollectiveCall& c) {
  if (c.link_ns <= 0) return 0;
  const int64_t needed = static_cast<int64_t>(static_cast<double>(c.link_ns) / kAchievableLinkShare) + kCollectiveLatencyNs;
  return std::max<int64_t>(0, t.dur_ns[c.kernel] - needed);
}

}  // namespace

void rule_comm_wait(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.comm.calls.empty() || f.comm.link_bytes_per_s <= 0) return;
  const auto steps = steady_steps(f);
  const StepBasis basis = comm_basis(f, steps);
  const int64_t step = basis.ns;
  const SteadyCalls calls = steady_calls(f, steps);
  const int64_t wait = median_per_step(calls, [&](const CollectiveCall& c) { return wait_ns(t, c); });
  if (step <= 0 || wait < kMinWaitNs || static_cast<double>(wait) < kMinWaitShare * static_cast<double>(step)) return;
  std::vector<const CollectiveCall*> waiting;
  for (const CollectiveCall* c : calls.calls)
    if (wait_ns(t, *c) > 0) waiting.push_back(c);
  std::sort(waiting.begin(), waiting.end(), [&](const CollectiveCall* a, const CollectiveCall* b) { return wait_ns(t, *a) > wait_ns(t, *b); });
  std::vector<double> link_pct;
  for (const CollectiveCall* c : waiting) link_pct.push_back(bus_bytes_per_s(*c, t.dur_ns[c->kernel]) / f.comm.link_bytes_per_s);
  std::sort(link_pct.begin(), link_pct.end());
  const double median_pct = link_pct.empty() ? 0 : link_pct[link_pct.size() / 2];
  const int64_t exposed = median_of(steps, &StepFacts::exposed_comm_ns);
  const double share = static_cast<double>(wait) / static_cast<double>(step);
  Finding x = make_finding(FindingId::comm_wait);
  if (share >= kCriticalShare) x.severity = Severity::Critical;
  x.title = fmt::format("Collectives wait for a peer: {} of {} beyond what their bytes need", human_duration(wait),
                        basis.words);
  x.detail = fmt::format(
      "{} collectives in the steady steps took far longer than their message sizes need on the {} ({} GB/s per "
      "direction): at the median they moved data at {} of the link's peak bus bandwidth (NCCL's busBw). A "
      "collective ends only when every rank of its group has joined, so this rank sat inside the kernels waiting "
      "for a late peer, {} per step beyond the time their bytes need. The cause is on another rank: load all "
      "ranks' traces together (whyslow explain rank0.json rank1.json … or a folder) to see which rank arrives "
      "late and why.",
      waiting.size(), f.comm.link, fmt::format("{:.0f}", f.comm.link_bytes_per_s / 1e9), human_percent(median_pct),
      human_duration(wait));
  x.evidence = {us("wait_per_step_us", wait), us("step_us", median_of(steps, &StepFacts::duration_ns)), count("calls", waiting.size()),
                Evidence{"link_gbps", f.comm.link_bytes_per_s / 1e9, "GB/s"}, percent("median_bus_pct", median_pct)};
  for (size_t i = 0; i < std::min(kEventsShown, waiting.size()); ++i) {
    x.events.push_back({waiting[i]->kernel, "waiting collective"});
    x.highlights.mark.push_back(waiting[i]->kernel);
  }
  x.try_next = {"Load every rank's trace in one run (whyslow explain traces/ or rank*.json): the straggler "
                "finding names the late rank and the block that makes it late.",
                "Common causes on the late rank: uneven data loading or batch sizes, extra work on rank 0 "
                "(logging, checkpointing, evaluation), a slower or throttled GPU."};
  // What the wait costs the step is at most the communication no compute hides.
  x.impact_ns = std::min(wait, exposed);
  x.impact_what = "the collectives' wait for the late peer that no compute hides, per step";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
