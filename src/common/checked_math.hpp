// Exact int64 arithmetic on times (ns) and sizes (bytes, FLOP, element counts) that come from
// input files. Within one loaded trace the loader bounds every time (trace/time_range.hpp), so
// the analyses compute freely; values that escape those bounds (digests of many ranks whose clocks
// differ, products of tensor dimensions) go through these, and the caller says what is wrong
// instead of printing a wrapped-around number.
#pragma once

#include <cstdint>
#include <optional>

namespace whyslow {

// a + b, a - b, a × b; nullopt where the exact result does not fit in int64.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace whyslow
