// The compact JSON the HTML report embeds for its script: no whitespace (the blob can hold a
// hundred thousand events), integers through std::to_chars. Every `<` inside a string is written
// as \u003c, so a kernel or op name can never close the page's <script> element early.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/json/json_writer.hpp"

namespace whyslow::report {

class CompactJson {
 public:
  CompactJson& begin_object() { return open('{'); }
  CompactJson& end_object() { return close('}'); }
  CompactJson& begin_array() { return open('['); }
  CompactJson& end_array() { return close(']'); }

  CompactJson& key(std::string_view k) {
    string(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  CompactJson& string(std::string_view s) {
    separate();
    const size_t from = out_.size();
    append_json_string(out_, s);
    escape_less_than(from);
    return *this;
  }
  // A JSON document written elsewhere (the diff schema), as a value. `<` only ever appears
  // inside JSON strings, so escaping it everywhere keeps the document the same.
  CompactJson& raw(std::string_view json) {
    separate();
    const size_t from = out_.size();
    out_ += json;
    escape_less_than(from);
    return *this;
  }
  CompactJson& integer(int64_t v) {
    separate();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    return *this;
  }
  // Shortest text that reads back as the same double; NaN and ∞ (not JSON) as null.
  CompactJson& number(double v) {
    if (!std::isfinite(v)) return null();
    separate();
    char buf[32];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    return *this;
  }
  CompactJson& boolean(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  CompactJson& null() {
    separate();
    out_ += "null";
    return *this;
  }
  template <typename Ints>
  CompactJson& integers(const Ints& values) {
    begin_array();
    for (auto v : values) integer(static_cast<int64_t>(v));
    return end_array();
  }

  std::string take() { return std::move(out_); }

 private:
  // One pass whatever the count: the text grows once, then is rewritten from its end backwards
  // (replacing each `<` where it stands would move the rest of the text once per `<`).
  void escape_less_than(size_t from) {
    constexpr std::string_view kEscaped = "\\u003c";
    size_t count = 0;
    for (size_t i = from; i < out_.size(); ++i) count += out_[i] == '<';
    if (count == 0) return;
    size_t read = out_.size();
    out_.resize(out_.size() + count * (kEscaped.size() - 1));
    for (size_t write = out_.size(); read > from;) {
      const char c = out_[--read];
      if (c == '<') {
        write -= kEscaped.size();
        std::copy(kEscaped.begin(), kEscaped.end(), out_.begin() + static_cast<std::ptrdiff_t>(write));
      } else {
        out_[--write] = c;
      }
    }
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  CompactJson& open(char bracket) {
    separate();
    out_ += bracket;
    first_.push_back(true);
    return *this;
  }
  CompactJson& close(char bracket) {
    out_ += bracket;
    first_.pop_back();
    return *this;
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace whyslow::report
