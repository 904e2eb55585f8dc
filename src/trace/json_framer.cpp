#include "trace/json_framer.hpp"

#include <immintrin.h>
#include <wmmintrin.h>

#include <cstdint>

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

// The byte-at-a-time state machine over 16-byte SSE2 blocks: exact for every input, used for
// blocks holding backslashes, for bare string values, and for the tail of a buffer.
size_t scan_block_by_block(const char* data, size_t from, size_t to, FrameScan& s, bool& closed) {
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
      if (step(data[i + j], s)) {
        closed = true;
        return i + j + 1;
      }
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
    if (step(c, s)) {
      closed = true;
      return i + 1;
    }
    if (s.escaped) {
      if (i + 1 >= to) return to;  // state keeps `escaped` for the next buffer
      s.escaped = false;
      ++i;
    }
  }
  return to;
}

// 64 bytes as one bit per byte for each byte value of interest.
struct Block64 {
  uint64_t quote, backslash, open, close;
};

// The vector lanes classify() works in: two 32-byte lanes with AVX2 (the default build targets
// Haswell: WHYSLOW_HASWELL), else four 16-byte SSE2 lanes (every x86-64).
#if defined(__AVX2__)
using Lane = __m256i;
constexpr int kLaneBytes = 32;
inline Lane load_lane(const char* p) { return _mm256_loadu_si256(reinterpret_cast<const Lane*>(p)); }
inline Lane splat(char c) { return _mm256_set1_epi8(c); }
inline Lane lane_or(Lane a, Lane b) { return _mm256_or_si256(a, b); }
inline uint64_t equal_bits(Lane v, Lane c) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, c)));
}
#else
using Lane = __m128i;
constexpr int kLaneBytes = 16;
inline Lane load_lane(const char* p) { return _mm_loadu_si128(reinterpret_cast<const Lane*>(p)); }
inline Lane splat(char c) { return _mm_set1_epi8(c); }
inline Lane lane_or(Lane a, Lane b) { return _mm_or_si128(a, b); }
inline uint64_t equal_bits(Lane v, Lane c) { return static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c))); }
#endif

// '{' | 0x20 == '{' and '[' | 0x20 == '{': one compare after setting bit 5 finds both openers,
// likewise '}' and ']'. No other byte maps onto them (x | 0x20 == 0x7b only for 0x5b and 0x7b).
inline Block64 classify(const char* p) {
  const Lane quote = splat('"'), backslash = splat('\\'), bit5 = splat(0x20), open = splat('{'), close = splat('}');
  Block64 b{0, 0, 0, 0};
  for (int k = 0; k < 64 / kLaneBytes; ++k) {
    const Lane v = load_lane(p + kLaneBytes * k);
    const Lane folded = lane_or(v, bit5);
    const int shift = kLaneBytes * k;
    b.quote |= equal_bits(v, quote) << shift;
    b.backslash |= equal_bits(v, backslash) << shift;
    b.open |= equal_bits(folded, open) << shift;
    b.close |= equal_bits(folded, close) << shift;
  }
  return b;
}

// Bit i of the result is the XOR of bits 0..i of x: with x the quotes, the bytes from an
// opening quote up to (not including) its closing quote. A carry-less multiply by all ones is
// that XOR in one instruction where the CPU has it (PCLMUL: every x86-64 since 2010, and the
// default Haswell build).
inline uint64_t prefix_xor(uint64_t x) {
#if defined(__PCLMUL__)
  return static_cast<uint64_t>(
      _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<int64_t>(x)), _mm_set1_epi8(-1), 0)));
#else
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
#endif
}

}  // namespace

// Fast path: 64 bytes at a time while inside an object or array (depth > 0) and the block has no
// backslash, so every quote opens or closes a string and no byte is escaped. Then the string
// mask is a prefix XOR of the quotes, and only brackets outside strings move the depth. A block
// with fewer closing brackets than the depth cannot close the value: its brackets are counted,
// not walked (walking them one by one, each a hard-to-predict branch, was most of the framer's
// time). Any other block goes through the exact byte-at-a-time machine above, so results and
// the state left for the next buffer are the same as scanning byte by byte.
size_t scan_value_end(const char* data, size_t from, size_t to, FrameScan& s) {
  size_t i = from;
  if (i < to && s.depth == 0 && !s.in_string && !s.escaped && (data[i] == '{' || data[i] == '[')) {
    s.depth = 1;  // a fresh object or array: step() over its opening bracket
    ++i;
  }
  // The state in locals: stores through `s` could alias `data` (char), so the compiler would
  // write the depth back to memory at every bracket.
  int depth = s.depth;
  bool in_string = s.in_string;
  while (i + 64 <= to) {
    if (depth > 0 && !s.escaped) {
      const Block64 b = classify(data + i);
      if (b.backslash == 0) {
        const uint64_t inside = prefix_xor(b.quote) ^ (in_string ? ~uint64_t{0} : 0);
        const uint64_t opens = b.open & ~inside, closes = b.close & ~inside;
        const int close_count = __builtin_popcountll(closes);
        if (close_count < depth) {
          depth += __builtin_popcountll(opens) - close_count;
        } else {
          for (uint64_t brackets = opens | closes; brackets; brackets &= brackets - 1) {
            const unsigned j = static_cast<unsigned>(__builtin_ctzll(brackets));
            if ((opens >> j) & 1) {
              ++depth;
            } else if (--depth == 0) {
              s.depth = 0;
              s.in_string = false;  // a bracket outside strings closed the value
              return i + j + 1;
            }
          }
        }
        in_string = (inside >> 63) & 1;
        i += 64;
        continue;
      }
    }
    s.depth = depth;
    s.in_string = in_string;
    bool closed = false;
    const size_t end = scan_block_by_block(data, i, i + 64, s, closed);
    if (closed) return end;
    // Not closed: scan_block_by_block consumed the whole block. A backslash as its last byte
    // leaves s.escaped set, and the next call skips the escaped byte.
    depth = s.depth;
    in_string = s.in_string;
    i += 64;
  }
  s.depth = depth;
  s.in_string = in_string;
  bool closed = false;
  return scan_block_by_block(data, i, to, s, closed);
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
