// same_bytes against std::string_view's == at every length up to three 16-byte blocks and a
// tail, with the one differing byte at every position; and the pool's hash keeps apart the
// strings that its tail loads overlap on.
#include "common/same_bytes.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trace/string_pool.hpp"

namespace whyslow {
namespace {

TEST(SameBytes, AgreesWithStringEqualityAtEveryLengthAndPosition) {
  for (size_t n = 0; n <= 50; ++n) {
    std::string a(n, 'a');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + (i * 7) % 26);
    const std::string same = a;
    EXPECT_TRUE(same_bytes(a, same)) << n;
    EXPECT_FALSE(same_bytes(a, a + "x")) << n;
    for (size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = static_cast<char>(b[i] ^ 0x40);
      EXPECT_FALSE(same_bytes(a, b)) << n << " differs at " << i;
      EXPECT_EQ(same_bytes(a, b), std::string_view(a) == std::string_view(b));
    }
  }
}

TEST(SameBytes, PoolHashTellsApartStringsOfEveryShortLength) {
  // Every string of 0-3 letters over a small alphabet, and 4-9 letters differing in one byte:
  // where the hash's overlapping tail loads could confuse them, no two may collide.
  std::set<uint64_t> seen;
  size_t strings = 0;
  const std::string alphabet = "ab\0z";
  std::set<std::string> all{""};
  for (int len = 1; len <= 3; ++len) {
    std::set<std::string> longer;
    for (const std::string& s : all)
      if (s.size() == static_cast<size_t>(len - 1))
        for (char c : alphabet) longer.insert(s + c);
    all.insert(longer.begin(), longer.end());
  }
  for (size_t n = 4; n <= 9; ++n)
    for (size_t i = 0; i < n; ++i) {
      std::string s(n, 'q');
      s[i] = 'r';
      all.insert(s);
    }
  for (const std::string& s : all) {
    seen.insert(StringPool::hash(s));
    ++strings;
  }
  EXPECT_EQ(seen.size(), strings);
}

}  // namespace
}  // namespace whyslow
