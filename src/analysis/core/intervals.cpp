#include "analysis/core/intervals.hpp"

#include <algorithm>
#include <functional>

#include "common/sort_runs.hpp"

namespace whyslow {

void merge_intervals(std::vector<Interval>& v) {
  // Callers collect GPU work stream by stream or in file order, where each stream's intervals
  // come in start order: a few ascending runs, merged rather than sorted.
  sort_runs(v.begin(), v.end(), std::less<>());
  size_t out = 0;
  for (const Interval& iv : v) {
    if (iv.second <= iv.first) continue;
    if (out > 0 && iv.first <= v[out - 1].second) {
      v[out - 1].second = std::max(v[out - 1].second, iv.second);
    } else {
      v[out++] = iv;
    }
  }
  v.resize(out);
}

int64_t union_length(std::vector<Interval>& v) {
  merge_intervals(v);
  int64_t total = 0;
  for (const Interval& iv : v) total += iv.second - iv.first;
  return total;
}

int64_t covered_length(const std::vector<Interval>& merged, int64_t start, int64_t end) {
  auto it = std::lower_bound(merged.begin(), merged.end(), Interval{start, start},
                             [](const Interval& a, const Interval& b) { return a.second <= b.first; });
  int64_t total = 0;
  for (; it != merged.end() && it->first < end; ++it)
    total += std::max<int64_t>(0, std::min(end, it->second) - std::max(start, it->first));
  return total;
}

}  // namespace whyslow

namespace whyslow {

int64_t exposed_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  for (const Interval& iv : a) total += (iv.second - iv.first) - covered_length(b, iv.first, iv.second);
  return total;
}

}  // namespace whyslow
