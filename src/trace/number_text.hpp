// Exact conversion of JSON number text to integers. Kineto writes times as "<µs>.<3 digits>"
// (e.g. 1712195495519689.047): 19 significant digits, more than a double holds, so times are
// converted digit by digit to integer nanoseconds, never through floating point.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace whyslow {

// Whether `text` is exactly one JSON number (RFC 8259): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
// simdjson On-Demand only checks the first byte of a number it is not asked to convert, so
// "01", "0x10" and "1.5.5" reach us as numbers; NaN and Infinity it rejects itself.
bool is_json_number(std::string_view text);

// Microseconds as JSON number text → nanoseconds, rounded half away from zero at the ns digit.
// Accepts integers, decimals and exponents (Python re-serialized files write 1.5e-05).
// nullopt when the text is not a JSON number or the value does not fit in int64 nanoseconds.
std::optional<int64_t> micros_text_to_ns(std::string_view text);

// A JSON integer (or a number with a zero fraction, "5.0") → int64; nullopt when it is not an
// integer (or not a JSON number at all) or is out of range (ids above INT64_MAX occur in real traces and are not ours to read).
std::optional<int64_t> integer_text_to_i64(std::string_view text);

}  // namespace whyslow
