// What the ranks page draws of the cross-rank facts on one rank's lanes, in that rank's own page
// time (ns from its trace window's start): where it waited inside a collective for the last rank
// to arrive, and where it was the last to arrive (from the first rank's arrival to its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/ranks/cross_rank.hpp"

namespace whyslow::report {

struct RankSpans {
  std::vector<std::pair<int64_t, int64_t>> waits;  // its arrival → the last rank's arrival
  std::vector<std::pair<int64_t, int64_t>> late;   // the first rank's arrival → its own, where it came last
};

// `r`: the rank's index in f.ranks; `window_start_ns`: its trace window's start, on its own clock.
RankSpans rank_spans(const CrossRankFacts& f, size_t r, int64_t window_start_ns);

}  // namespace whyslow::report
