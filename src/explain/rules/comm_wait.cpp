// comm_wait: collectives far longer than they need (peer_wait.hpp: by their bytes on the GPU's
// link, else by the pattern of their kind in this trace). A collective cannot finish before every
// rank of its group has joined it, so the early ranks sit inside the kernel until the last one
// arrives: on this rank's trace that looks like slow communication, but the cause is on another
// rank — which is why this finding, not "overlap more", comes first on a waiting rank.
#include <fmt/core.h>

#include <algorithm>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/comm_steps.hpp"
#include "explain/rules/peer_wait.hpp"

namespace whyslow {
namespace {

// Critical from 40 % of the step: the rank then spends more time waiting for peers than a
// healthy step spends communicating.
constexpr double kCriticalShare = 0.40;
constexpr size_t kEventsShown = 3;

struct Waiting {
  const CollectiveCall* call;
  PeerWait wait;
};

// What the calls judged by their bytes say: how many, and the median share of the link's peak
// bus bandwidth they reached.
std::string bytes_sentence(const Trace& t, const Facts& f, const std::vector<Waiting>& waiting, double& median_pct) {
  std::vector<double> pct;
  for (const Waiting& w : waiting)
    if (w.wait.basis == WaitBasis::Bytes) pct.push_back(bus_bytes_per_s(*w.call, t.dur_ns[w.call->kernel]) / f.comm.link_bytes_per_s);
  if (pct.empty()) return {};
  std::sort(pct.begin(), pct.end());
  median_pct = pct[pct.size() / 2];
  return fmt::format("{} took far longer than their message sizes need on the {} ({:.0f} GB/s per direction): at the "
                     "median they moved data at {} of the link's peak bus bandwidth (NCCL's busBw). ",
                     pct.size() == 1 ? "1 collective" : fmt::format("{} collectives", pct.size()), f.comm.link,
                     f.comm.link_bytes_per_s / 1e9, human_percent(median_pct));
}

// What the calls judged by the pattern say: the longest, against its kind's median.
std::string pattern_sentence(const Trace& t, const std::vector<Waiting>& waiting, size_t& pattern_calls) {
  const Waiting* longest = nullptr;
  pattern_calls = 0;
  for (const Waiting& w : waiting) {
    if (w.wait.basis != WaitBasis::Pattern) continue;
    ++pattern_calls;
    if (!longest || w.wait.wait_ns > longest->wait.wait_ns) longest = &w;
  }
  if (!longest) return {};
  const int64_t dur = t.dur_ns[longest->call->kernel];
  return fmt::format("{} ran several times longer than this trace's other calls of their kind (it records no message "
                     "sizes to judge them by): the longest ({}) took {}, {:.0f}× the median {} of its kind and "
                     "process group. ",
                     pattern_calls == 1 ? "1 collective" : fmt::format("{} collectives", pattern_calls),
                     to_string(longest->call->kind), human_duration(dur),
                     static_cast<double>(dur) / static_cast<double>(longest->wait.typical_ns),
                     human_duration(longest->wait.typical_ns));
}

}  // namespace

void rule_comm_wait(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.comm.calls.empty()) return;
  const auto steps = steady_steps(f);
  const StepBasis basis = comm_basis(f, steps);
  const int64_t step = basis.ns;
  const SteadyCalls calls = steady_calls(f, steps);
  const std::vector<PeerWait> waits = peer_waits(t, f, calls);
  const int64_t wait = median_wait_per_step(calls, waits);
  if (!peer_wait_reported(wait, step)) return;
  std::vector<Waiting> waiting;
  for (size_t k = 0; k < waits.size(); ++k)
    if (waits[k].wait_ns > 0) waiting.push_back({calls.calls[k], waits[k]});
  std::sort(waiting.begin(), waiting.end(), [](const Waiting& a, const Waiting& b) { return a.wait.wait_ns > b.wait.wait_ns; });
  double median_pct = 0;
  size_t pattern_calls = 0;
  const std::string judged = bytes_sentence(t, f, waiting, median_pct) + pattern_sentence(t, waiting, pattern_calls);
  const int64_t exposed = median_of(steps, &StepFacts::exposed_comm_ns);
  const double share = static_cast<double>(wait) / static_cast<double>(step);
  Finding x = make_finding(FindingId::comm_wait);
  if (share >= kCriticalShare) x.severity = Severity::Critical;
  x.title = fmt::format("Collectives wait for a peer: {} of {} beyond what they need", human_duration(wait), basis.words);
  x.detail = fmt::format(
      "In the steady steps, {}A collective ends only when every rank of its group has joined, so this rank sat inside "
      "the kernels waiting for a late peer, {} per step beyond what they need. The cause is on another rank: load all "
      "ranks' traces together (whyslow explain rank0.json rank1.json … or a folder) to see which rank arrives "
      "late and why.",
      judged, human_duration(wait));
  x.evidence = {us("wait_per_step_us", wait), us("step_us", median_of(steps, &StepFacts::duration_ns)), count("calls", waiting.size()),
                Evidence{"link_gbps", f.comm.link_bytes_per_s / 1e9, "GB/s"}, percent("median_bus_pct", median_pct),
                count("pattern_calls", pattern_calls)};
  for (size_t k = 0; k < std::min(kEventsShown, waiting.size()); ++k) {
    x.events.push_back({waiting[k].call->kernel, "waiting collective"});
    x.highlights.mark.push_back(waiting[k].call->kernel);
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
