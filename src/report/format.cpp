#include "report/format.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <cstdlib>

namespace whyslow::report {
namespace {

// Decimals that show |v| (> 0) with three significant digits.
int significant_decimals(double a) {
  if (a >= 100) return 0;
  if (a >= 10) return 1;
  if (a >= 1) return 2;
  return std::min(9, 2 - static_cast<int>(std::floor(std::log10(a))));
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset just past the first `columns` code points of `s`.
size_t head_bytes(std::string_view s, size_t columns) {
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i) {
    if (is_continuation(s[i])) continue;
    if (seen++ == columns) break;
  }
  return i;
}

// Byte offset where the last `columns` code points of `s` begin.
size_t tail_start(std::string_view s, size_t columns) {
  size_t i = s.size();
  for (size_t seen = 0; i > 0 && seen < columns;) {
    --i;
    if (!is_continuation(s[i])) ++seen;
  }
  return i;
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// What a C++ kernel signature says that a table does not need: the "void " return type, the
// trailing parameter list (the template arguments already name the types) and namespace
// qualifiers. "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<…> >(…)" →
// "reduce_kernel<512, 1, ReduceOp<…> >". Other names come back unchanged.
std::string strip_cpp_noise(std::string_view s) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  if (s.starts_with("void ")) s.remove_prefix(5);
  if (s.ends_with(")")) {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
      if (depth == 0) {
        if (i > 0) s = s.substr(0, i);
        break;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, kAnonymous.size()) == kAnonymous) {
      i += kAnonymous.size();
      continue;
    }
    if (!is_identifier_char(s[i]) || (i > 0 && is_identifier_char(s[i - 1]))) {
      out += s[i++];
      continue;
    }
    size_t end = i;
    while (end < s.size() && is_identifier_char(s[end])) ++end;
    const bool qualifier = s.substr(end, 2) == "::";
    if (!qualifier) out += s.substr(i, end - i);
    i = qualifier ? end + 2 : end;
  }
  return out;
}

// A unit word after a number, trailing punctuation aside: "ms", "µs),", "GB/s.".
bool is_unit(std::string_view word) {
  static constexpr std::string_view kUnits[] = {"ns", "µs", "us", "ms", "s",  "%",  "×",    "B",
                                                "kB", "MB", "GB", "KiB", "MiB", "GiB", "GB/s", "MB/s"};
  while (!word.empty() && std::string_view(",.;:)").find(word.back()) != std::string_view::npos) word.remove_suffix(1);
  return std::find(std::begin(kUnits), std::end(kUnits), word) != std::end(kUnits);
}

}  // namespace

std::string format_us_exact(int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t a = negative ? uint64_t{0} - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return fmt::format("{}{}.{:03}", negative ? "-" : "", a / 1000, a % 1000);
}

std::string format_percent(int64_t part, int64_t whole) {
  if (whole == 0) return "-";
  return format_number(100.0 * static_cast<double>(part) / static_cast<double>(whole)) + " %";
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v == std::trunc(v) && std::fabs(v) < 1e15)
    return fmt::format("{}{}", v < 0 ? "-" : "", format_count(static_cast<uint64_t>(std::fabs(v))));
  const double a = std::fabs(v);
  // Round first, then pick the decimals again: 99.96 rounds to 100 and shows as "100", not "100.0".
  const double p = std::pow(10.0, significant_decimals(a));
  const double rounded = std::round(a * p) / p;
  const int decimals = rounded == 0 ? 0 : significant_decimals(rounded);
  return fmt::format("{}{:.{}f}", v < 0 ? "-" : "", rounded, decimals);
}

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

size_t display_width(std::string_view utf8) {
  size_t n = 0;
  for (char c : utf8) n += !is_continuation(c);
  return n;
}

std::string shorten(std::string_view name, size_t max_width) {
  // A newline or tab inside a name (record_function takes any string) would break the table.
  std::string s(name);
  std::replace_if(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
  if (display_width(s) <= max_width) return s;
  if (max_width == 0) return {};
  const std::string lean = strip_cpp_noise(s);
  if (display_width(lean) <= max_width) return lean;
  const size_t keep = max_width - 1;  // one column for the ellipsis
  // Template names read from the left (kernel, then its functor); flat names such as
  // sm80_xmma_gemm_…_cublas carry the library at the end, so those keep head and tail.
  const size_t head = lean.find('<') != std::string::npos ? keep : keep - keep / 3;
  std::string out = lean.substr(0, head_bytes(lean, head));
  out += "…";
  out += lean.substr(tail_start(lean, keep - head));
  return out;
}

std::string truncate_lines(std::string_view text, size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (display_width(line) > width) {
      out += line.substr(0, head_bytes(line, width - 1));
      out += "…";
    } else {
      out += line;
    }
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string> wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  while (true) {
    const size_t nl = text.find('\n');
    const std::string_view paragraph = text.substr(0, nl);
    std::string line;
    size_t line_width = 0, i = 0;
    while (i < paragraph.size()) {
      if (paragraph[i] == ' ') {
        ++i;
        continue;
      }
      size_t end = std::min(paragraph.find(' ', i), paragraph.size());
      // "2.62 ms" stays together: a unit is not left alone at the start of a line.
      while (end < paragraph.size() && std::isdigit(static_cast<unsigned char>(paragraph[end - 1]))) {
        const size_t next = std::min(paragraph.find(' ', end + 1), paragraph.size());
        if (!is_unit(paragraph.substr(end + 1, next - end - 1))) break;
        end = next;
      }
      const std::string_view word = paragraph.substr(i, end - i);
      const size_t w = display_width(word);
      if (!line.empty() && line_width + 1 + w > width) {
        lines.push_back(std::move(line));
        line.clear();
        line_width = 0;
      }
      if (!line.empty()) {
        line += ' ';
        ++line_width;
      }
      line += word;
      line_width += w;
      i = end;
    }
    lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

void append_wrapped(std::string& out, std::string_view text, std::string_view first_prefix, std::string_view prefix,
                    size_t line_width) {
  bool first = true;
  for (const std::string& line : wrap(text, line_width - display_width(prefix))) {
    out += first ? first_prefix : prefix;
    out += line;
    out += '\n';
    first = false;
  }
}

}  // namespace whyslow::report
