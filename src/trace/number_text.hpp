// Exact conversion of JSON number text to integers. Kineto writes times as "<µs>.<3 digits>"
// (e.g. 1712195495519689.047): 19 significant digits, more than a double holds, so times are
// converted digit by digit to integer nanoseconds, never through floating point.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace whyslow {

// Microseconds as JSON number text → nanoseconds, rounded half away from zero at the ns digit.
// Accepts integers, decimals and exponents (Python re-serialized files write 1.5e-05).
// nullopt when the text is not a number or the value does not fit in int64 nanoseconds.
std::optional<int64_t> micros_text_to_ns(std::string_view text);

// A JSON integer (or a number with a zero fraction, "5.0") → int64; nullopt when it is not an
// integer or is out of range (ids above INT64_MAX occur in real traces and are not ours to read).
std::optional<int64_t> integer_text_to_i64(std::string_view text);

}  // namespace whyslow
