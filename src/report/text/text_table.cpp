#include "report/text/text_table.hpp"

#include <algorithm>

#include "report/format.hpp"

namespace whyslow::report {
namespace {

constexpr std::string_view kGap = "  ";

void append_line(std::string& out, std::string_view indent, const std::vector<Column>& columns,
                 const std::vector<size_t>& widths, const std::vector<std::string>& cells) {
  std::string line(indent);
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string& cell = cells[c];
    const size_t pad = widths[c] - display_width(cell);
    if (c > 0) line += kGap;
    if (columns[c].align == Align::Right) line.append(pad, ' ');
    line += cell;
    // Left-aligned cells are padded on the right only when a column follows.
    if (columns[c].align == Align::Left && c + 1 < columns.size()) line.append(pad, ' ');
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out += line;
  out += '\n';
}

}  // namespace

std::string TextTable::render(size_t max_rows, std::string_view indent) const {
  const size_t shown = max_rows == 0 ? rows_.size() : std::min(max_rows, rows_.size());
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (size_t r = 0; r < shown; ++r) widths[c] = std::max(widths[c], display_width(rows_[r][c]));
    if (!footer_.empty()) widths[c] = std::max(widths[c], display_width(footer_[c]));
  }
  size_t total_width = 0;
  for (size_t w : widths) total_width += w;
  total_width += kGap.size() * (columns_.size() - 1);
  const std::string rule = std::string(indent) + std::string(total_width, '-') + "\n";

  std::string out;
  std::vector<std::string> headers;
  for (const Column& c : columns_) headers.push_back(c.header);
  append_line(out, indent, columns_, widths, headers);
  out += rule;
  for (size_t r = 0; r < shown; ++r) append_line(out, indent, columns_, widths, rows_[r]);
  if (const size_t cut = rows_.size() - shown; cut > 0)
    out += std::string(indent) + "… " + format_count(cut) + (cut == 1 ? " more row" : " more rows") +
           " (use --rows 0)\n";
  if (!footer_.empty()) {
    out += rule;
    append_line(out, indent, columns_, widths, footer_);
  }
  return out;
}

std::string table_title(std::string_view text, size_t line_width) {
  std::string out;
  append_wrapped(out, text, "", "", line_width);
  return out;
}

std::string table_note(std::string_view text, size_t line_width) {
  std::string out;
  append_wrapped(out, text, "  ", "    ", line_width);
  return out;
}

std::string table_subnote(std::string_view text, size_t line_width) {
  std::string out;
  append_wrapped(out, text, "    ", "      ", line_width);
  return out;
}

}  // namespace whyslow::report
