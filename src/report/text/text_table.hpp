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

}  // namespace whyslow::report
