// Whether two strings hold the same bytes, for the short strings a trace repeats millions of
// times (names, categories, thread ids, shapes): compared inline, 16 bytes at a time and then
// the tail with two overlapping loads, instead of a call into memcmp for each.
#pragma once

#include <emmintrin.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace whyslow {

inline bool same_bytes(std::string_view a, std::string_view b) {
  size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  for (; n >= 16; p += 16, q += 16, n -= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) != 0xffff) return false;
  }
  // The last 0-15 bytes: two loads that overlap where the tail is shorter than both.
  const auto word = [](const char* s, size_t bytes) {
    uint64_t w = 0;
    std::memcpy(&w, s, bytes);
    return w;
  };
  if (n >= 8) return word(p, 8) == word(q, 8) && word(p + n - 8, 8) == word(q + n - 8, 8);
  if (n >= 4) return word(p, 4) == word(q, 4) && word(p + n - 4, 4) == word(q + n - 4, 4);
  for (; n > 0; ++p, ++q, --n)
    if (*p != *q) return false;
  return true;
}

}  // namespace whyslow
