// gallop_lower_bound must answer as std::lower_bound does whatever the hint: every hint position,
// values below, between, on and above the elements, duplicates, empty and one-element ranges,
// and the indirect comparison the loader's link tables use.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/gallop.hpp"

namespace {

void expect_like_lower_bound(const std::vector<int>& v, int value) {
  const auto want = std::lower_bound(v.begin(), v.end(), value);
  for (auto hint = v.begin();; ++hint) {
    const auto got = whyslow::gallop_lower_bound(v.begin(), v.end(), hint, value, std::less<int>());
    ASSERT_EQ(got - v.begin(), want - v.begin()) << "value " << value << ", hint " << (hint - v.begin()) << " of " << v.size();
    if (hint == v.end()) break;
  }
}

TEST(Gallop, EmptyAndOneElement) {
  for (int value : {-1, 0, 1}) {
    expect_like_lower_bound({}, value);
    expect_like_lower_bound({0}, value);
  }
}

TEST(Gallop, EveryHintOnRandomSortedRangesWithDuplicates) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::uniform_int_distribution<int> size(0, 70), key(0, round % 3 == 0 ? 5 : 200);
    std::vector<int> v(static_cast<size_t>(size(rng)));
    for (int& x : v) x = key(rng);
    std::sort(v.begin(), v.end());
    for (int value = -2; value <= 202; value += (round % 3 == 0 ? 1 : 7)) expect_like_lower_bound(v, value);
  }
}

// As the loader searches: event ids ordered by an id column, the previous answer as the hint.
TEST(Gallop, ASequenceOfSearchesWithThePreviousAnswerAsHint) {
  std::mt19937 rng(11);
  std::vector<int64_t> key(5000);
  for (int64_t& k : key) k = std::uniform_int_distribution<int64_t>(1, 3000)(rng);
  std::vector<uint32_t> events(key.size());
  for (uint32_t i = 0; i < events.size(); ++i) events[i] = i;
  std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
  auto less = [&](uint32_t a, int64_t x) { return key[a] < x; };
  auto hint = events.cbegin();
  for (int i = 0; i < 20000; ++i) {
    // Mostly rising ids, now and then a jump back or far ahead.
    const int64_t id = i % 97 == 0 ? std::uniform_int_distribution<int64_t>(0, 3001)(rng) : (i / 7) % 3002;
    hint = whyslow::gallop_lower_bound(events.cbegin(), events.cend(), hint, id, less);
    ASSERT_EQ(hint, std::lower_bound(events.cbegin(), events.cend(), id, less)) << "search " << i << ", id " << id;
  }
}

}  // namespace
