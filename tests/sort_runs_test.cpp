// sort_runs must give std::sort's result for any input: sorted, a few runs, many runs (where it
// falls back to std::sort), descending, with duplicates broken by a total key.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "common/sort_runs.hpp"

namespace {

using Item = std::pair<int, int>;  // (key, unique tie-break)

std::vector<Item> runs_of(std::mt19937& rng, int n, int runs, int key_range) {
  std::vector<Item> v;
  std::uniform_int_distribution<int> key(0, key_range);
  for (int r = 0; r < runs; ++r) {
    std::vector<Item> run;
    for (int i = 0; i < n / runs; ++i) run.push_back({key(rng), static_cast<int>(v.size() + run.size())});
    std::sort(run.begin(), run.end());
    v.insert(v.end(), run.begin(), run.end());
  }
  return v;
}

void expect_like_std_sort(std::vector<Item> v) {
  std::vector<Item> want = v;
  std::sort(want.begin(), want.end());
  whyslow::sort_runs(v.begin(), v.end(), std::less<Item>());
  EXPECT_EQ(v, want);
}

TEST(SortRuns, MatchesStdSortOnRunsOfEveryCount) {
  std::mt19937 rng(7);
  for (int runs : {1, 2, 3, 5, 8, 17, 64, 500, 5000})
    for (int key_range : {3, 1000000}) expect_like_std_sort(runs_of(rng, 10000, runs, key_range));
}

TEST(SortRuns, EmptyOneAndDescending) {
  expect_like_std_sort({});
  expect_like_std_sort({{1, 0}});
  std::vector<Item> down;
  for (int i = 0; i < 1000; ++i) down.push_back({1000 - i, i});
  expect_like_std_sort(down);
}

}  // namespace
