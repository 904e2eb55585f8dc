// A plain-text table: columns sized to their widest shown cell, numbers right-aligned, and a
// note saying how many rows were left out so a cut table never passes for a complete one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace whyslow::report {

enum class Align { Left, Right };

struct Column {
  std::string header;
  Align align = Align::Right;
};

class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // One cell per column.
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // A row printed below a rule after the other rows, never cut (totals).
  void add_footer(std::vector<std::string> cells) { footer_ = std::move(cells); }
  size_t rows() const { return rows_.size(); }

  // The first `max_rows` rows (0: all), each line starting with `indent`.
  std::string render(size_t max_rows, std::string_view indent = "  ") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> footer_;
};

// A table's title: prose, wrapped at `line_width` columns (the title's later lines at column 0 too),
// while the rows under it are cut at the terminal's width: a title cut there lost what its columns
// mean. Each line ends in '\n'.
std::string table_title(std::string_view text, size_t line_width);
// A line of prose beside a table ("note: …", the roofs it uses): two columns in, like the rows,
// its later lines four.
std::string table_note(std::string_view text, size_t line_width);
// A line that belongs to the note above it (its source): two columns further in.
std::string table_subnote(std::string_view text, size_t line_width);

}  // namespace whyslow::report
