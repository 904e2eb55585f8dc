// A small streaming JSON writer: the caller says what comes next (object, key, value), the
// writer places commas, indentation and escapes. Output is indented for people; containers
// opened `inline` stay on one line ([64, 1, 1]) so short arrays and tiny objects read well.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace whyslow::report {

class JsonWriter {
 public:
  enum class Layout { Block, Inline };

  JsonWriter& begin_object(Layout layout = Layout::Block);
  JsonWriter& end_object();
  JsonWriter& begin_array(Layout layout = Layout::Block);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& string(std::string_view s);
  JsonWriter& integer(int64_t v);
  JsonWriter& unsigned_integer(uint64_t v);
  JsonWriter& boolean(bool v);
  JsonWriter& null();
  // Shortest text that reads back as the same double; non-finite values (not JSON) as null.
  JsonWriter& number(double v);
  // Integer nanoseconds as microseconds with exactly three decimals: 2944 → 2.944.
  JsonWriter& microseconds(int64_t ns);
  // A scalar already written as JSON, copied as is: a document read back and rewritten keeps its
  // numbers' text (2.940 stays 2.940, not the double's 2.94).
  JsonWriter& raw(std::string_view json);

  // The document; the writer is empty afterwards.
  std::string take();

 private:
  struct Level {
    bool inline_layout = false;
    bool empty = true;
  };
  void before_value();
  void open(char bracket, Layout layout);
  void close(char bracket);
  void newline_indent(size_t depth);

  std::string out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

// `s` as a JSON string literal with its quotes: `"` and `\` escaped, newline, tab and carriage
// return as \n \t \r (detail paragraphs stay readable), other control characters as \u00XX,
// everything else (UTF-8 included) as is.
void append_json_string(std::string& out, std::string_view s);

}  // namespace whyslow::report
