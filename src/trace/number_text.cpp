#include "trace/number_text.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/same_bytes.hpp"

namespace whyslow {
namespace {

constexpr int64_t kMaxMicros = INT64_MAX / 1000;
// 18 digits are at most 999,999,999,999,999,999 < INT64_MAX: no overflow check needed (ids are
// read by the million; the checked loop's division per digit was most of their cost).
constexpr size_t kDigitsThatAlwaysFit = 18;  // 9223372036854775 µs; .807 is the last ns that fits

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// JSON forbids leading zeros: "0" and "0.5" are numbers, "01" is not.
bool leading_zero(std::string_view text, size_t i) {
  return text[i] == '0' && i + 1 < text.size() && is_digit(text[i + 1]);
}

// Slow path for exponents: correct to the double's precision, which is all such text carries.
std::optional<int64_t> via_double(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double us = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(us)) return std::nullopt;
  const double ns = std::round(us * 1000.0);
  if (std::fabs(ns) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(ns);
}

// Eight ASCII digits in a word (little-endian, first digit most significant) as their value, or -1
// when one of the bytes is not a digit: a timestamp's 16 integer digits in two steps instead of
// sixteen (the method of simdjson's and fast_float's number parsers).
int64_t eight_digits_word(uint64_t v) {
  // Each byte 0x30-0x39: high nibble 3, and adding 6 leaves the high nibble 3 too.
  if ((((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4))) !=
      0x3333333333333333ull)
    return -1;
  v -= 0x3030303030303030ull;
  v = (v * 10) + (v >> 8);  // pairs of digits
  v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
  return static_cast<int64_t>(v);
}
int64_t eight_digits(const char* p) { return eight_digits_word(load_word(p, 8)); }

}  // namespace

bool is_json_number(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  if (i >= text.size() || !is_digit(text[i]) || leading_zero(text, i)) return false;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i < text.size() && text[i] == '.') {
    if (++i >= text.size() || !is_digit(text[i])) return false;
    while (i < text.size() && is_digit(text[i])) ++i;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (i >= text.size() || !is_digit(text[i])) return false;
    while (i < text.size() && is_digit(text[i])) ++i;
  }
  return i == text.size();
}

namespace {

// The first n (1 to 8) of the eight bytes at p, right-aligned behind '0's: "12345xyz" with n = 5 is
// "00012345". Bytes past n are read and shifted out, so p[0..8) must be readable.
uint64_t right_aligned_word(const char* p, size_t n) {
  const unsigned pad = 8 * static_cast<unsigned>(8 - n);
  const uint64_t v = load_word(p, 8);
  return pad == 0 ? v : (v << pad) | (0x3030303030303030ull >> (64 - pad));
}

// Kineto's own form, "<1 to 16 digits>.<3 digits>" (nanosecond resolution, no sign): the integer
// digits read as one or two eight-digit words loaded where they stand (no copy: a timestamp's
// digits are ~10 % of a load's conversions), the fraction as three digits. nullopt for any other
// text, which the general path below then reads.
std::optional<int64_t> kineto_micros(std::string_view text) {
  const size_t int_len = text.size() - 4;
  if (text.size() < 5 || int_len > 16 || text[int_len] != '.' || (text[0] == '0' && int_len > 1)) return std::nullopt;
  const char* d = text.data();
  int64_t us;
  if (int_len > 8) {  // text.size() ≥ 13: d[0..8) and the last eight digits are inside it
    const int64_t high = eight_digits_word(right_aligned_word(d, int_len - 8)), low = eight_digits(d + int_len - 8);
    if (high < 0 || low < 0) return std::nullopt;
    us = high * 100000000 + low;
  } else if (int_len >= 4) {  // text.size() ≥ 8
    us = eight_digits_word(right_aligned_word(d, int_len));
    if (us < 0) return std::nullopt;
  } else {
    us = 0;
    for (size_t i = 0; i < int_len; ++i) {
      if (!is_digit(d[i])) return std::nullopt;
      us = us * 10 + (d[i] - '0');
    }
  }
  const char* f = d + int_len + 1;
  if (!is_digit(f[0]) || !is_digit(f[1]) || !is_digit(f[2])) return std::nullopt;
  if (us >= kMaxMicros) return std::nullopt;  // the general path says whether the fraction still fits
  return us * 1000 + (f[0] - '0') * 100 + (f[1] - '0') * 10 + (f[2] - '0');
}

}  // namespace

std::optional<int64_t> micros_text_to_ns(std::string_view text) {
  if (const auto ns = kineto_micros(text)) return ns;
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  if (i >= text.size() || !is_digit(text[i]) || leading_zero(text, i)) return std::nullopt;
  int64_t us = 0;
  // Eight digits at a time while they fit (us < kMaxMicros / 10^8 keeps us × 10^8 + 99999999 at
  // most kMaxMicros); the checked loop below takes the rest.
  while (text.size() - i >= 8 && us < kMaxMicros / 100000000) {
    const int64_t eight = eight_digits(text.data() + i);
    if (eight < 0) break;
    us = us * 100000000 + eight;
    i += 8;
  }
  for (; i < text.size() && is_digit(text[i]); ++i) {
    if (us > kMaxMicros / 10) return std::nullopt;
    us = us * 10 + (text[i] - '0');
  }
  int64_t frac_ns = 0;
  int round_up = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (i >= text.size() || !is_digit(text[i])) return std::nullopt;
    int digits = 0;
    for (; i < text.size() && is_digit(text[i]); ++i, ++digits) {
      if (digits < 3) frac_ns = frac_ns * 10 + (text[i] - '0');
      else if (digits == 3) round_up = text[i] >= '5';
    }
    for (; digits < 3; ++digits) frac_ns *= 10;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E'))
    return is_json_number(text) ? via_double(text) : std::nullopt;
  if (i != text.size()) return std::nullopt;
  if (us > kMaxMicros || (us == kMaxMicros && frac_ns + round_up > INT64_MAX % 1000))
    return std::nullopt;
  const int64_t ns = us * 1000 + frac_ns + round_up;
  return negative ? -ns : ns;
}

std::optional<int64_t> integer_text_to_i64(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  if (i >= text.size() || !is_digit(text[i]) || leading_zero(text, i)) return std::nullopt;
  // INT64_MAX, or |INT64_MIN| for negatives, is the largest magnitude that fits.
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  uint64_t v = 0;
  const size_t first = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i - first <= kDigitsThatAlwaysFit) {
    for (size_t k = first; k < i; ++k) v = v * 10 + static_cast<uint64_t>(text[k] - '0');
  } else {
    for (size_t k = first; k < i; ++k) {
      const uint64_t d = static_cast<uint64_t>(text[k] - '0');
      if (v > (limit - d) / 10) return std::nullopt;
      v = v * 10 + d;
    }
  }
  if (i < text.size() && text[i] == '.') {  // "5.0" from Python re-serialized traces
    if (++i >= text.size()) return std::nullopt;  // "5." is not JSON
    for (; i < text.size(); ++i)
      if (text[i] != '0') return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

}  // namespace whyslow
