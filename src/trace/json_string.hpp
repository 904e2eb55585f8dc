// The slow path for JSON strings that simdjson refuses to unescape. simdjson 3.0 fails a string
// with an invalid escape ("\x41", a cut-off "\u00") and, as well, one with a lone UTF-16
// surrogate ("\ud800"), which RFC 8259 allows but UTF-8 cannot hold. The loader used to read
// both as "" (merging unrelated rows); now the first is a syntax error and the second keeps
// its name, with U+FFFD in place of each lone surrogate.
#pragma once

#include <cstddef>
#include <string>

namespace whyslow {

struct JsonStringError {
  size_t offset;  // of the offending backslash, from the string's first byte after the quote
  const char* what;
};

// Unescapes the string body starting at `body` (just after its opening quote) up to its closing
// quote, which must exist: the caller has already checked the string's extent (simdjson's first
// pass, or the framer). Appends to `out`; returns the body's length (the closing quote is at
// body[length]). Throws JsonStringError on an escape RFC 8259 does not define. The bytes
// between escapes are copied as they are (simdjson has already validated them as UTF-8).
size_t unescape_json_string(const char* body, std::string& out);

}  // namespace whyslow
