#include "cli/terminal_style.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "report/format.hpp"

namespace whyslow::cli {
namespace {

// Below 40 columns the findings' indents (up to 9 columns) leave too few for their words: a
// narrower terminal gets 40-column text and lets its lines wrap.
constexpr size_t kNarrowestWidth = 40;

size_t columns_variable() {
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr) return 0;
  size_t n = 0;
  const char* end = columns + std::strlen(columns);
  const auto [ptr, ec] = std::from_chars(columns, end, n);
  return ec == std::errc{} && ptr == end ? n : 0;
}

size_t terminal_columns() {
  winsize size{};
  if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

bool takes_colour() {
  const char* no_colour = std::getenv("NO_COLOR");  // https://no-color.org: set and not empty
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && (no_colour == nullptr || *no_colour == '\0') &&
         !(term != nullptr && std::string_view(term) == "dumb");
}

struct Colour {
  std::string_view marker, escape;
};
// Critical red, warning yellow, information cyan (bold, so they read on light and dark themes).
constexpr std::array kMarkerColours = {Colour{"[!!]", "\x1b[1;31m"}, Colour{"[!]", "\x1b[1;33m"},
                                       Colour{"[i]", "\x1b[1;36m"}};
constexpr std::string_view kReset = "\x1b[0m";

// A marker starts a line or follows a space (the legend): "x[i]" in a code snippet is not one.
std::string coloured(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  while (!text.empty()) {
    const bool may_start = out.empty() || out.back() == '\n' || out.back() == ' ';
    const auto hit = std::find_if(kMarkerColours.begin(), kMarkerColours.end(),
                                  [&](const Colour& c) { return may_start && text.starts_with(c.marker); });
    if (hit == kMarkerColours.end()) {
      out += text.front();
      text.remove_prefix(1);
      continue;
    }
    out += hit->escape;
    out += hit->marker;
    out += kReset;
    text.remove_prefix(hit->marker.size());
  }
  return out;
}

}  // namespace

TerminalStyle pipe_style(bool wide) {
  return {.width = 0, .colour = false, .prose_width = wide ? report::kDefaultLineWidth : report::kPipeLineWidth};
}

TerminalStyle stdout_style(bool wide) {
  TerminalStyle style = pipe_style(wide);
  style.colour = takes_colour();
  if (wide) return style;
  const size_t columns = columns_variable() > 0 ? columns_variable() : terminal_columns();
  if (columns > 0) {
    style.width = std::max(columns, kNarrowestWidth);
    style.prose_width = std::min(style.width, report::kDefaultLineWidth);
  }
  return style;
}

void print_styled(std::string_view text, const TerminalStyle& style) {
  std::string out = report::truncate_lines(text, style.width);
  if (style.colour) out = coloured(out);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

void print_output(std::string_view out, bool is_json, const TerminalStyle& style) {
  if (is_json)
    std::fwrite(out.data(), 1, out.size(), stdout);
  else
    print_styled(out, style);
}

}  // namespace whyslow::cli
