// straggler: the rank that arrives last at the collectives. Every other rank waits inside the
// collective for it, so its lateness is lost on all of them — as far as no compute of theirs hides
// the wait; the block on it that takes longer than on the others is where to look.
#include <fmt/core.h>

#include "analysis/core/median.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/explain_ranks.hpp"

namespace whyslow {
namespace {

// Lateness under 5 % of a step or 100 µs per step is the jitter of a healthy job (launch
// timing, OS noise).
constexpr double kMinLateShare = 0.05;
constexpr int64_t kMinLateNs = 100'000;
// A rank last at under a quarter of the collectives is not the one holding the job back; with 8
// ranks chance alone makes each last at about an eighth.
constexpr double kMinLastShare = 0.25;
// ... unless its lateness is most of all the ranks' lateness together: one slow block once a step
// (a data fetch before the step's first collective) makes its rank last at one collective only,
// yet every other rank waits for it there.
constexpr double kDominantLateShare = 0.5;
// Without a block to blame, a step that itself starts late by at least half the lateness says the
// delay comes from before the profiled steps.
constexpr double kStartExplainsShare = 0.5;
// Critical from 25 % of the step: a quarter of every rank's step lost to one rank.
constexpr double kCriticalLatenessShare = 0.25;
// ... and only when the loaded ranks are at least half of the job's (distributedInfo's world size):
// from a sample (HTA's two event-sampled ranks of a 128-rank job) the slowest loaded rank need not
// be the job's, nor its lateness what the others lose; it stays a warning, its caveat said.
constexpr double kMinLoadedShareForCritical = 0.5;

// What the waiting ranks lose: a rank waiting inside a collective while its own compute runs
// (DDP's all-reduce behind the backward) loses nothing, so the lateness costs them at most their
// communication that no compute hides — the median rank's exposed communication per step.
int64_t exposed_wait_ns(const CrossRankFacts& f, size_t straggler, int64_t late) {
  std::vector<int64_t> exposed;
  for (size_t i = 0; i < f.ranks.size(); ++i)
    if (i != straggler) exposed.push_back(f.ranks[i].exposed_comm_ns);
  return std::min(late, median(std::move(exposed)));
}

// What the cause is, in words: "the `data` block", "the `Linear` module", "the function
// `train.py(42): load`", "CPU time in `cpu:other`", "its GPU compute".
std::string cause_words(const StragglerCause& c) {
  switch (c.kind) {
    case RankBlockKind::Annotation: return fmt::format("the `{}` block", c.block);
    case RankBlockKind::Module: return fmt::format("the `{}` module", c.block);
    case RankBlockKind::Function: return fmt::format("the function `{}`", c.block);
    case RankBlockKind::CpuCategory: return fmt::format("CPU time in `{}`", c.block);
    case RankBlockKind::GpuCompute: break;
  }
  return "its GPU compute";
}

// "On rank 1, the `data` block takes 30.0 ms per step against 10.0 µs on rank 0: …".
std::string cause_sentence(const CrossRankFacts& f, const RankDigest& r) {
  const StragglerCause& c = f.cause;
  std::string others;
  if (f.ranks.size() == 2)
    others = fmt::format("on rank {}", f.ranks[f.straggler == 0 ? 1 : 0].rank);
  else
    others = "at the median of the others";
  std::string what = c.gpu ? fmt::format("the GPU work launched in {}", cause_words(c)) : cause_words(c);
  if (!is_code(c.kind))
    what = fmt::format("no block of its code accounts for it, but {}", what);
  return fmt::format("On rank {}, {} takes {} per step against {} {}: {} more, about the lateness.", r.rank, what,
                     human_duration(c.block_ns), human_duration(c.others_ns), others,
                     human_duration(c.block_ns - c.others_ns));
}

}  // namespace

void rule_straggler(const CrossRankFacts& f, std::vector<RankFinding>& out) {
  if (f.straggler >= f.ranks.size() || f.collectives.empty()) return;
  const size_t s = f.straggler;
  const RankDigest& r = f.ranks[s];
  const int64_t late = f.late_per_step_ns[s];
  const int64_t step = r.step_ns;
  const double last_share = static_cast<double>(f.times_last[s]) / static_cast<double>(f.collectives.size());
  int64_t all_late = 0;
  for (const int64_t l : f.late_per_step_ns) all_late += l;
  const bool dominant = static_cast<double>(late) >= kDominantLateShare * static_cast<double>(all_late);
  const int64_t cost = exposed_wait_ns(f, s, late);
  if (step <= 0 || cost < kMinLateNs || static_cast<double>(cost) < kMinLateShare * static_cast<double>(step) ||
      (last_share < kMinLastShare && !dominant))
    return;
  const bool caused = f.has_cause;
  const bool before_window = !caused && static_cast<double>(f.step_start_late_ns) >= kStartExplainsShare * static_cast<double>(late);
  Finding x = make_finding(FindingId::straggler);
  const double share = static_cast<double>(cost) / static_cast<double>(step);
  const bool sample = r.world_size > 0 && static_cast<double>(f.ranks.size()) <
                                              kMinLoadedShareForCritical * static_cast<double>(r.world_size);
  if (share >= kCriticalLatenessShare) x.severity = sample ? Severity::Warning : Severity::Critical;
  const size_t others = f.ranks.size() - 1;
  x.title = fmt::format("Rank {} arrives last at the collectives: {} per step waiting for it", r.rank,
                        others == 1 ? fmt::format("the other rank loses {}", human_duration(cost))
                                    : fmt::format("the other {} ranks lose {}", others, human_duration(cost)));
  x.detail = fmt::format(
      "Of {} collectives found on {} (matched by {}), rank {} started last at {}; at those (the ones in "
      "flight together counted once), the first rank waited {} per step before rank {} joined, {} of it with no compute of its own to hide it "
      "({} of rank {}'s {} step; the median collective arrived {} apart). {}",
      f.collectives.size(), f.ranks.size() == 2 ? std::string("both ranks") : fmt::format("all {} ranks", f.ranks.size()),
      f.matched_by_seq ? "process group and sequence number" : "order within the process group",
      r.rank, f.times_last[s], human_duration(late), r.rank, human_duration(cost), human_percent(share), r.rank,
      human_duration(step), human_duration(f.median_skew_ns),
      caused ? cause_sentence(f, r)
      : before_window
          ? fmt::format("No block inside the profiled steps explains it, but rank {}'s first profiled step itself starts {} "
                        "after the earliest other rank's (clocks aligned on the collectives' ends): the delay comes from "
                        "before the profiled window (the previous step, or the profiler starting later on this rank).",
                        r.rank, human_duration(f.step_start_late_ns))
          : std::string("No block, CPU-time category or GPU compute on it exceeds the other ranks' by as much: the "
                        "lateness may come from outside the profiled process (another job on the host, a slower "
                        "GPU, the network)."));
  if (r.world_size > static_cast<int32_t>(f.ranks.size()))
    x.detail += fmt::format(" Only {} of the job's {} ranks were loaded: a rank not loaded may be later still, and "
                            "point-to-point transfers (send/recv, all-to-all) pair ranks the loaded ones may not show.",
                            f.ranks.size(), r.world_size);
  x.evidence = {count("rank", static_cast<uint64_t>(r.rank)), us("late_us", late), us("exposed_wait_us", cost), us("step_us", step),
                percent("late_pct", share), count("times_last", f.times_last[s]), count("collectives", f.collectives.size()),
                us("step_start_late_us", f.step_start_late_ns)};
  x.try_next = {caused && is_code(f.cause.kind)
                    ? fmt::format("Make `{}` on rank {} as fast as on the others (uneven data, extra work on this rank).",
                                  f.cause.block, r.rank)
                : caused ? fmt::format("Find what rank {} spends its extra {} on: explain its trace alone "
                                       "(whyslow explain {}), and record_function blocks around its steps' parts "
                                       "name where it goes.",
                                       r.rank, f.cause.block, r.path)
                : before_window ? std::string("Profile more steps (torch.profiler.schedule(active=3 or more)) so that the "
                                              "step where this rank falls behind is inside the window.")
                                : std::string("Look for what differs on this rank outside the trace: host load, GPU clocks, its network link."),
                "Balance the work across ranks: equal batch sizes and sequence lengths, no rank-0-only logging or "
                "checkpointing inside the step."};
  x.impact_ns = cost;
  x.impact_what = "the other ranks' wait for it that their compute does not hide, per step";
  x.impact_basis_ns = step;
  out.push_back({std::move(x), caused, r.rank, f.cause});
}

}  // namespace whyslow
