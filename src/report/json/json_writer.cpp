#include "report/json/json_writer.hpp"

#include <fmt/core.h>

#include <cmath>

#include "report/format.hpp"

namespace whyslow::report {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  out += '"';
}

void JsonWriter::newline_indent(size_t depth) {
  out_ += '\n';
  out_.append(2 * depth, ' ');
}

// Separates this value from the previous one in its container, unless it follows its key.
void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (!level.empty) out_ += level.inline_layout ? ", " : ",";
  if (!level.inline_layout) newline_indent(levels_.size());
  level.empty = false;
}

void JsonWriter::open(char bracket, Layout layout) {
  before_value();
  out_ += bracket;
  // Inside an inline container everything stays on the line.
  const bool inline_layout = layout == Layout::Inline || (!levels_.empty() && levels_.back().inline_layout);
  levels_.push_back({inline_layout, true});
}

void JsonWriter::close(char bracket) {
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.empty && !level.inline_layout) newline_indent(levels_.size());
  out_ += bracket;
  if (levels_.empty()) out_ += '\n';
}

JsonWriter& JsonWriter::begin_object(Layout layout) {
  open('{', layout);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}
JsonWriter& JsonWriter::begin_array(Layout layout) {
  open('[', layout);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  append_json_string(out_, k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  return *this;
}
JsonWriter& JsonWriter::integer(int64_t v) {
  before_value();
  out_ += fmt::format("{}", v);
  return *this;
}
JsonWriter& JsonWriter::unsigned_integer(uint64_t v) {
  before_value();
  out_ += fmt::format("{}", v);
  return *this;
}
JsonWriter& JsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::number(double v) {
  if (!std::isfinite(v)) return null();
  before_value();
  out_ += fmt::format("{}", v);  // fmt's default: shortest round-trip form
  return *this;
}
JsonWriter& JsonWriter::microseconds(int64_t ns) {
  before_value();
  out_ += format_us_exact(ns);
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

std::string JsonWriter::take() {
  std::string document = std::move(out_);
  *this = JsonWriter{};
  return document;
}

}  // namespace whyslow::report
