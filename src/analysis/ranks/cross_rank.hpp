// Cross-rank passes over the ranks' digests: line up each collective across the ranks, align the
// ranks' clocks on the collectives' ends, measure each collective's arrival skew, and name the
// rank that arrives last and the block on it that takes longer than on the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/ranks/rank_digest.hpp"

namespace whyslow {

struct MatchedCollective {
  std::string group;
  int64_t seq = -1;                // the matching key's number: seq, else the order within the group
  CollectiveKind kind = CollectiveKind::Other;
  std::vector<int64_t> start_ns;   // per rank (CrossRankFacts::ranks order), on rank 0's clock
  int64_t skew_ns = 0;             // last arrival − first arrival
  size_t last = 0;                 // the rank (index) that arrived last
};

struct StragglerCause {
  RankBlockKind kind = RankBlockKind::Annotation;
  std::string block;               // RankBlock::name
  bool gpu = false;                // what exceeds is the GPU work launched beneath the block, not its CPU time
  int64_t block_ns = 0;            // per step on the straggler
  int64_t others_ns = 0;           // per step, median of the other ranks
};

struct CrossRankFacts {
  std::vector<RankDigest> ranks;         // ascending by rank
  std::vector<int64_t> clock_offset_ns;  // per rank: its clock minus rank 0's (median over the collectives' ends)
  bool matched_by_seq = false;           // every rank's collectives carry (group, seq); else order within group
  std::vector<MatchedCollective> collectives;  // those every rank has, in rank 0's order
  int64_t median_skew_ns = 0, max_skew_ns = 0;  // over `collectives` (0 for none)
  // Per rank: how long the first arrivals waited for it at the collectives it arrived last at (the
  // union of those waits: collectives in flight together count once), per step of its trace; and
  // how often it was last.
  std::vector<int64_t> late_per_step_ns;
  std::vector<uint32_t> times_last;
  size_t straggler = SIZE_MAX;           // index of the rank with the largest late_per_step_ns
  // How much later the straggler's first steady step starts than the earliest other rank's (clocks
  // aligned): lateness that begins before the profiled steps.
  int64_t step_start_late_ns = 0;
  // A block exceeds the others' by ≥ half the straggler's lateness: the user's code (a
  // record_function block, module, Python function) when one does, else a CPU category or the GPU's compute.
  bool has_cause = false;
  StragglerCause cause;
};

// `ranks` in any order; throws std::invalid_argument naming two files that claim one rank or say
// different world sizes, a file whose rank is not below its world size, or ranks whose clocks are
// too far apart to line up without overflow.
CrossRankFacts cross_rank(std::vector<RankDigest> ranks);

}  // namespace whyslow
