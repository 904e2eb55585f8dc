// The one median every pass and rule uses: the upper median (the middle value of an odd count,
// the larger middle one of an even count), so it is always a value that was measured; 0 for none.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace whyslow {

template <class T>
T median_of_values(std::vector<T> v) {
  if (v.empty()) return T{};
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}
inline int64_t median(std::vector<int64_t> v) { return median_of_values(std::move(v)); }
inline double median(std::vector<double> v) { return median_of_values(std::move(v)); }  // shares

}  // namespace whyslow
