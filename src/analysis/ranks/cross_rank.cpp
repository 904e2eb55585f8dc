#include "analysis/ranks/cross_rank.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "analysis/core/intervals.hpp"
#include "analysis/core/median.hpp"
#include "common/checked_math.hpp"

namespace whyslow {
namespace {

// The block named as the straggler's cause must exceed the others' by at least half its lateness:
// a smaller difference cannot account for it.
constexpr double kMinCauseShare = 0.5;
// Nested blocks grow together (a sleep in `data` lengthens `data` and any block around it): of the
// blocks that exceed the others' by at least 90 % of the largest excess, the shortest — the
// innermost, where the time is spent — is named. 90 %: the outer block's excess is the inner's
// plus whatever else differs around it, which jitter alone keeps within a few percent.
constexpr double kInnermostShare = 0.9;

using Key = std::tuple<std::string, int64_t>;

// (group, seq) when every collective of the rank carries a seq; else (group, n-th in the group).
std::map<Key, size_t> keys_of(const RankDigest& d, bool by_seq) {
  std::map<Key, size_t> out;
  std::map<std::string, int64_t> order;
  for (size_t i = 0; i < d.collectives.size(); ++i) {
    const RankCollective& c = d.collectives[i];
    out.emplace(Key{c.group, by_seq ? c.seq : order[c.group]++}, i);
  }
  return out;
}

// The block on `s` that accounts for `late` (see StragglerCause): the user's code first, since
// that is what they can change, and the categories (which cut the same time another way: a sleep
// in a block is also `cpu:other`) only when no code block accounts for it.
bool find_cause(const std::vector<RankDigest>& ranks, size_t s, int64_t late, StragglerCause& out) {
  auto others_median = [&](const RankBlock& b, int64_t RankBlock::*measure) {
    std::vector<int64_t> others;
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (r == s) continue;
      const auto& bl = ranks[r].blocks;
      const auto it = std::lower_bound(bl.begin(), bl.end(), b);
      others.push_back(it != bl.end() && it->kind == b.kind && it->name == b.name ? (*it).*measure : 0);
    }
    return median(std::move(others));
  };
  for (const bool code : {true, false}) {
    std::vector<StragglerCause> found;
    int64_t best = 0;
    for (const RankBlock& b : ranks[s].blocks) {
      if (is_code(b.kind) != code) continue;
      for (const bool gpu : {false, true}) {
        int64_t RankBlock::*const measure = gpu ? &RankBlock::gpu_per_step_ns : &RankBlock::per_step_ns;
        const int64_t mine = b.*measure, others = others_median(b, measure);
        if (mine - others <= 0) continue;
        found.push_back({b.kind, b.name, gpu, mine, others});
        best = std::max(best, mine - others);
      }
    }
    if (best <= 0 || static_cast<double>(best) < kMinCauseShare * static_cast<double>(late)) continue;
    const StragglerCause* pick = nullptr;
    for (const StragglerCause& c : found)
      if (static_cast<double>(c.block_ns - c.others_ns) >= kInnermostShare * static_cast<double>(best) &&
          (!pick || c.block_ns < pick->block_ns))
        pick = &c;
    out = *pick;
    return true;
  }
  return false;
}

// The result of arithmetic on two ranks' times. Each rank's times lie within ±2^62 ns of its own
// clock's zero (the loader and the digest reader check it), but two ranks' clocks may be as far
// apart again: the offsets and the aligned times are checked rather than left to wrap.
int64_t exact(std::optional<int64_t> v) {
  if (!v)
    throw std::invalid_argument("the ranks' clocks are too far apart to line up (their collectives' times differ by "
                                "2^63 ns or more): not ranks of one job");
  return *v;
}

// One job's ranks: each rank below the world size, and every rank that says a world size saying the same.
void require_one_job(const std::vector<RankDigest>& ranks) {
  const RankDigest* sized = nullptr;
  for (const RankDigest& d : ranks) {
    if (d.world_size <= 0) continue;
    if (d.rank >= d.world_size)
      throw std::invalid_argument(named_file(d) + " is rank " + std::to_string(d.rank) + " of world_size " +
                                  std::to_string(d.world_size) + ": a rank is below the world size");
    if (sized && sized->world_size != d.world_size)
      throw std::invalid_argument(named_file(*sized) + " says world_size " + std::to_string(sized->world_size) + ", " + named_file(d) +
                                  " says " + std::to_string(d.world_size) + ": not ranks of one job");
    sized = &d;
  }
}

// How long the others waited for a rank: the union of the waits it caused. Collectives in flight
// at once (Gloo's buckets on two threads, NCCL's on two streams) are one wait, not two; one after
// another, the union is their sum. Checked, as the times are (see exact()).
int64_t waited_ns(std::vector<Interval>& waits) {
  std::sort(waits.begin(), waits.end());
  int64_t total = 0;
  for (size_t i = 0; i < waits.size();) {
    auto [start, end] = waits[i];
    for (++i; i < waits.size() && waits[i].first <= end; ++i) end = std::max(end, waits[i].second);
    total = exact(checked_add(total, exact(checked_sub(end, start))));
  }
  return total;
}

}  // namespace

CrossRankFacts cross_rank(std::vector<RankDigest> ranks) {
  CrossRankFacts f;
  std::sort(ranks.begin(), ranks.end(), [](const RankDigest& a, const RankDigest& b) { return a.rank < b.rank; });
  for (size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i].rank == ranks[i - 1].rank)
      throw std::invalid_argument(named_file(ranks[i - 1]) + " and " + named_file(ranks[i]) + " are both rank " +
                                  std::to_string(ranks[i].rank) + " (from distributedInfo or the file name)");
  require_one_job(ranks);
  f.ranks = std::move(ranks);
  const size_t n = f.ranks.size();
  f.clock_offset_ns.assign(n, 0);
  f.late_per_step_ns.assign(n, 0);
  f.times_last.assign(n, 0);
  if (n < 2) return f;

  f.matched_by_seq = true;
  for (const RankDigest& d : f.ranks)
    for (const RankCollective& c : d.collectives) f.matched_by_seq &= c.seq >= 0;
  std::vector<std::map<Key, size_t>> keys;
  for (const RankDigest& d : f.ranks) keys.push_back(keys_of(d, f.matched_by_seq));

  // Collectives every rank has, in rank 0's order; the ranks' indices into their own lists.
  std::vector<std::pair<Key, std::vector<size_t>>> common;
  std::vector<std::pair<size_t, Key>> rank0_order;
  for (const auto& [key, i] : keys[0]) rank0_order.emplace_back(i, key);
  std::sort(rank0_order.begin(), rank0_order.end());
  for (const auto& [i0, key] : rank0_order) {
    std::vector<size_t> at(n);
    bool everywhere = true;
    for (size_t r = 0; r < n && everywhere; ++r) {
      auto it = keys[r].find(key);
      everywhere = it != keys[r].end();
      if (everywhere) at[r] = it->second;
    }
    if (everywhere) common.emplace_back(key, std::move(at));
  }
  if (common.empty()) return f;

  // A collective ends on all ranks together (none can leave before the last joins), so the median
  // difference of the ends is the difference of the clocks.
  for (size_t r = 1; r < n; ++r) {
    std::vector<int64_t> diffs;
    for (const auto& [key, at] : common)
      diffs.push_back(exact(checked_sub(f.ranks[r].collectives[at[r]].end_ns, f.ranks[0].collectives[at[0]].end_ns)));
    f.clock_offset_ns[r] = median(diffs);
  }
  std::vector<std::vector<Interval>> waits(n);  // per rank: [first arrival, its arrival] where it was last
  for (const auto& [key, at] : common) {
    MatchedCollective m;
    m.group = std::get<0>(key);
    m.seq = std::get<1>(key);
    m.kind = f.ranks[0].collectives[at[0]].kind;
    for (size_t r = 0; r < n; ++r)
      m.start_ns.push_back(exact(checked_sub(f.ranks[r].collectives[at[r]].start_ns, f.clock_offset_ns[r])));
    const auto lo = std::min_element(m.start_ns.begin(), m.start_ns.end());
    const auto hi = std::max_element(m.start_ns.begin(), m.start_ns.end());  // the first of equal starts
    m.skew_ns = exact(checked_sub(*hi, *lo));
    m.last = static_cast<size_t>(hi - m.start_ns.begin());
    if (m.skew_ns > 0) {  // all arriving together: nobody is last
      waits[m.last].emplace_back(*lo, *hi);
      ++f.times_last[m.last];
    }
    f.collectives.push_back(std::move(m));
  }
  for (size_t r = 0; r < n; ++r) f.late_per_step_ns[r] = waited_ns(waits[r]);
  std::vector<int64_t> skews;
  for (const MatchedCollective& m : f.collectives) {
    skews.push_back(m.skew_ns);
    f.max_skew_ns = std::max(f.max_skew_ns, m.skew_ns);
  }
  f.median_skew_ns = median(std::move(skews));
  for (size_t r = 0; r < n; ++r) f.late_per_step_ns[r] /= f.ranks[r].trace_steps;
  f.straggler = static_cast<size_t>(std::max_element(f.late_per_step_ns.begin(), f.late_per_step_ns.end()) -
                                    f.late_per_step_ns.begin());
  // Against the earliest other rank, as the lateness is against the first arrival.
  int64_t earliest = INT64_MAX;
  for (size_t r = 0; r < n; ++r)
    if (r != f.straggler) earliest = std::min(earliest, exact(checked_sub(f.ranks[r].first_step_start_ns, f.clock_offset_ns[r])));
  f.step_start_late_ns = exact(checked_sub(
      exact(checked_sub(f.ranks[f.straggler].first_step_start_ns, f.clock_offset_ns[f.straggler])), earliest));
  f.has_cause = find_cause(f.ranks, f.straggler, f.late_per_step_ns[f.straggler], f.cause);
  return f;
}

}  // namespace whyslow
