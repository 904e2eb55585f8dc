// Sorting for sequences that are sorted already but for a few places: a writer emits a thread's
// events in start order except where it stitched buffers together, so a trace's tracks hold a
// handful of ascending runs. Merging the runs costs n · log2(runs); std::sort costs n · log2(n)
// whatever the input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace whyslow {

// With more than one run per this many elements, merging (a pass per halving of the runs, with
// inplace_merge's buffer) no longer beats std::sort: the input is not "nearly sorted".
inline constexpr std::ptrdiff_t kElementsPerRunToMerge = 16;

// Sorts [first, last) by `less`, a strict weak order; equivalent elements keep no promised
// order, as with std::sort (callers order by a total key).
template <typename It, typename Less>
void sort_runs(It first, It last, Less less) {
  const std::ptrdiff_t n = last - first;
  // Run starts; a sequence of mostly descents is cheaper to std::sort than to merge.
  std::vector<std::ptrdiff_t> runs{0};
  for (std::ptrdiff_t i = 1; i < n; ++i) {
    if (less(first[i], first[i - 1])) {
      runs.push_back(i);
      if (static_cast<std::ptrdiff_t>(runs.size()) * kElementsPerRunToMerge > n) return std::sort(first, last, less);
    }
  }
  runs.push_back(n);
  // Merge neighbouring runs pairwise until one run is left.
  while (runs.size() > 2) {
    std::vector<std::ptrdiff_t> merged{0};
    for (size_t k = 0; k + 2 < runs.size(); k += 2) {
      std::inplace_merge(first + runs[k], first + runs[k + 1], first + runs[k + 2], less);
      merged.push_back(runs[k + 2]);
    }
    if (runs.size() % 2 == 0) merged.push_back(runs.back());  // an odd run out waits a round
    runs.swap(merged);
  }
}

}  // namespace whyslow
