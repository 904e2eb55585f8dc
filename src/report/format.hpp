// Number and text formatting shared by the text and JSON renderers (durations and sizes come from
// common/units.hpp): exact µs, percentages, counts, shortened names, word wrapping. Text output reads times in the unit that keeps three
// significant digits ("83.8 ms", "2.94 µs"); JSON output keeps every nanosecond.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace whyslow::report {

// Exact microseconds with three decimals from integer nanoseconds: 2944 → "2.944",
// -5 → "-0.005". Pure integer arithmetic, so no float rounding can show up.
std::string format_us_exact(int64_t ns);

// `part` as a percentage of `whole` with three significant digits ("98.2 %"); "-" when
// `whole` is 0.
std::string format_percent(int64_t part, int64_t whole);

// A measured number for people: integers as counts ("100,663,296"), others with three
// significant digits but never fewer than the integer digits (83.79 → "83.8", 1234.5 → "1235",
// 0.01234 → "0.0123").
std::string format_number(double v);

// Thousands separators for counts: 1234567 → "1,234,567".
std::string format_count(uint64_t n);

// Terminal columns taken by UTF-8 text (one per code point; traces hold no wide characters
// that matter for alignment).
size_t display_width(std::string_view utf8);

// Fits a name into `max_width` columns for a table. C++ kernel signatures first lose their
// return type, parameter list and namespaces; what is still too long is cut with "…" at the
// end (template names) or in the middle (flat names, whose tail often names the library).
// Names that fit come back unchanged, except that control characters become spaces.
std::string shorten(std::string_view name, size_t max_width);

// Prose (findings, verdicts) wraps at 100 columns unless told otherwise: what `--wide` gets, and
// what a terminal at least that wide shows (longer lines read badly however wide the screen).
inline constexpr size_t kDefaultLineWidth = 100;
// Prose into a pipe or a file when COLUMNS says no width: 80 columns, what `less` in a default
// terminal, a code review and an email show whole; at 100 such a reader wraps each line mid-word.
inline constexpr size_t kPipeLineWidth = 80;

// Each line of `text` wider than `width` columns is cut to `width - 1` columns and "…": a wide
// table fits a narrow terminal, its right-hand columns in `--wide`. `width` 0: unchanged.
std::string truncate_lines(std::string_view text, size_t width);

// Greedy word wrap into lines of at most `width` columns (a longer word gets its own line).
// Newlines in `text` start a new line.
std::vector<std::string> wrap(std::string_view text, size_t width);

// `text` wrapped to `line_width` columns and appended to `out`, its first line after
// `first_prefix`, the others after `prefix` (a hanging indent).
void append_wrapped(std::string& out, std::string_view text, std::string_view first_prefix, std::string_view prefix,
                    size_t line_width);

}  // namespace whyslow::report
