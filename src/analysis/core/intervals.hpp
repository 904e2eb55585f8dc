// Interval arithmetic on [start, end) nanosecond ranges: unions, so that GPU work overlapping
// on several streams is counted once, and overlaps of one range with a union.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace whyslow {

using Interval = std::pair<int64_t, int64_t>;  // [first, second)

// Sorts and merges in place; afterwards the intervals are disjoint and ascending.
void merge_intervals(std::vector<Interval>& intervals);

// Total length of the union (merges in place).
int64_t union_length(std::vector<Interval>& intervals);

// Length of [start, end) covered by `merged` (disjoint and ascending).
int64_t covered_length(const std::vector<Interval>& merged, int64_t start, int64_t end);

// Length of the union of `a` not covered by `b`, both merged (disjoint and ascending): communication
// during which no compute ran.
int64_t exposed_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace whyslow
