// The short strings a trace repeats millions of times (names, categories, thread ids, shapes,
// number text), handled inline instead of through memcmp and byte loops: up to 8 bytes read as
// one word, and whether two strings hold the same bytes (16 bytes at a time, then the tail with
// two overlapping word loads).
#pragma once

#include <emmintrin.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace whyslow {

// The `bytes` (at most 8) at p as one little-endian word, the rest zero.
inline uint64_t load_word(const char* p, size_t bytes) {
  uint64_t w = 0;
  std::memcpy(&w, p, bytes);
  return w;
}

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
  if (n >= 8) return load_word(p, 8) == load_word(q, 8) && load_word(p + n - 8, 8) == load_word(q + n - 8, 8);
  if (n >= 4) return load_word(p, 4) == load_word(q, 4) && load_word(p + n - 4, 4) == load_word(q + n - 4, 4);
  for (; n > 0; ++p, ++q, --n)
    if (*p != *q) return false;
  return true;
}

}  // namespace whyslow
