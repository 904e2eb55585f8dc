// Do two sets of step durations differ? The Mann–Whitney U test: it ranks the steps of both
// traces together and asks how often a split of the pooled steps into groups of the same sizes
// would separate them at least as well. It assumes nothing about the shape of the distributions
// (step times are skewed: a few slow steps from the allocator, the host or other processes), so a
// few outliers cannot make a real difference look like noise, as they can with a spread
// measure. With the few steps a profile holds (3–20 per side) the p-value is exact: every split
// is enumerated, which also handles ties.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "diff/diff.hpp"

namespace whyslow {
namespace {

// Up to this many splits the p-value is exact (10 + 10 steps: 184,756 splits; 11 + 11: 705,432),
// in well under a second; beyond it the normal approximation is within 1e-3 of the exact value.
constexpr double kMaxExactSplits = 1'000'000;

// U counted in half units so ties (0.5) stay integers: twice the number of (a, b) pairs with
// a > b, plus the pairs with a == b.
int64_t twice_u(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  int64_t u2 = 0;
  for (int64_t x : a)
    for (int64_t y : b) u2 += x > y ? 2 : x == y ? 1 : 0;
  return u2;
}

double splits(size_t n, size_t k) {
  double c = 1;
  for (size_t i = 1; i <= k; ++i) c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  return c;
}

// Exact: the share of all splits of the pooled steps whose U is at least as far from its mean.
double exact_p(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t u2) {
  std::vector<int64_t> pool(a);
  pool.insert(pool.end(), b.begin(), b.end());
  const size_t n = pool.size(), k = a.size();
  const int64_t mean2 = static_cast<int64_t>(a.size() * b.size());  // twice the mean of U
  const int64_t observed = std::llabs(u2 - mean2);
  std::vector<bool> in_a(n, false);
  std::fill(in_a.begin(), in_a.begin() + static_cast<std::ptrdiff_t>(k), true);
  std::vector<int64_t> ga, gb;
  uint64_t total = 0, extreme = 0;
  do {  // prev_permutation walks every k-subset of the n positions once
    ga.clear();
    gb.clear();
    for (size_t i = 0; i < n; ++i) (in_a[i] ? ga : gb).push_back(pool[i]);
    ++total;
    if (std::llabs(twice_u(ga, gb) - mean2) >= observed) ++extreme;
  } while (std::prev_permutation(in_a.begin(), in_a.end()));
  return static_cast<double>(extreme) / static_cast<double>(total);
}

// Normal approximation with the tie correction and a continuity correction of ½.
double normal_p(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t u2) {
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size()), n = na + nb;
  std::vector<int64_t> pool(a);
  pool.insert(pool.end(), b.begin(), b.end());
  std::sort(pool.begin(), pool.end());
  double ties = 0;  // Σ (t³ − t) over groups of equal values
  for (size_t i = 0; i < pool.size();) {
    size_t j = i;
    while (j < pool.size() && pool[j] == pool[i]) ++j;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  const double variance = na * nb / 12.0 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return 1;
  const double distance = std::max(0.0, std::fabs(static_cast<double>(u2) / 2.0 - na * nb / 2.0) - 0.5);
  return std::min(1.0, std::erfc(distance / std::sqrt(variance) / std::sqrt(2.0)));
}

}  // namespace

RankTest rank_test(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  RankTest r;
  if (a.empty() || b.empty()) return r;
  const int64_t u2 = twice_u(b, a);
  r.u_b_slower = static_cast<double>(u2) / 2.0;
  r.pairs = static_cast<double>(a.size() * b.size());
  r.ranges_disjoint = *std::max_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end()) ||
                      *std::max_element(b.begin(), b.end()) < *std::min_element(a.begin(), a.end());
  r.exact = splits(a.size() + b.size(), a.size()) <= kMaxExactSplits;
  r.p_value = r.exact ? exact_p(a, b, twice_u(a, b)) : normal_p(a, b, u2);
  r.smallest_p = 2.0 / splits(a.size() + b.size(), a.size());
  return r;
}

}  // namespace whyslow
