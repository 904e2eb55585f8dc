#include "trace/json_framer.hpp"

#include <emmintrin.h>

namespace whyslow {
namespace {

// Handles one interesting byte; returns true when it closes the value.
inline bool step(char c, FrameScan& s) {
  if (s.in_string) {
    if (c == '"') {
      s.in_string = false;
      return s.depth == 0;  // a bare string value ends here
    }
    if (c == '\\') s.escaped = true;
    return false;
  }
  switch (c) {
    case '"': s.in_string = true; return false;
    case '{': case '[': ++s.depth; return false;
    case '}': case ']': return --s.depth == 0;
    default: return false;
  }
}

}  // namespace

size_t scan_value_end(const char* data, size_t from, size_t to, FrameScan& s) {
  size_t i = from;
  if (s.escaped && i < to) {  // the escaped byte was cut off by the previous buffer's end
    s.escaped = false;
    ++i;
  }
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i open_obj = _mm_set1_epi8('{'), close_obj = _mm_set1_epi8('}');
  const __m128i open_arr = _mm_set1_epi8('['), close_arr = _mm_set1_epi8(']');
  while (i + 16 <= to) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const __m128i hits = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_or_si128(_mm_cmpeq_epi8(v, open_obj), _mm_cmpeq_epi8(v, close_obj))),
        _mm_or_si128(_mm_cmpeq_epi8(v, open_arr), _mm_cmpeq_epi8(v, close_arr)));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hits));
    while (mask) {
      const unsigned j = static_cast<unsigned>(__builtin_ctz(mask));
      mask &= mask - 1;
      if (step(data[i + j], s)) return i + j + 1;
      if (s.escaped) {  // skip the escaped byte, whatever it is
        s.escaped = false;
        if (j + 1 == 16) {
          s.escaped = true;  // it is the first byte of the next block
        } else {
          mask &= ~(1u << (j + 1));
        }
      }
    }
    i += 16;
    if (s.escaped && i < to) {
      s.escaped = false;
      ++i;
    }
  }
  if (s.escaped) return to;  // the escaped byte lies in the next buffer
  for (; i < to; ++i) {
    const char c = data[i];
    if (c != '"' && c != '\\' && c != '{' && c != '}' && c != '[' && c != ']') continue;
    if (step(c, s)) return i + 1;
    if (s.escaped) {
      if (i + 1 >= to) return to;  // state keeps `escaped` for the next buffer
      s.escaped = false;
      ++i;
    }
  }
  return to;
}

size_t blank_control_chars_in_strings(char* data, size_t from, size_t to) {
  size_t replaced = 0;
  bool in_string = false;
  for (size_t i = from; i < to; ++i) {
    const char c = data[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        data[i] = ' ';
        ++replaced;
      }
    } else if (c == '"') {
      in_string = true;
    }
  }
  return replaced;
}

}  // namespace whyslow
