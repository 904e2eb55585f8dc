#include "trace/json_string.hpp"

#include <cstdint>

namespace whyslow {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits after "\u" at p[0..3], or -1. Stops at the first non-hex byte, so it
// never reads past a closing quote.
int32_t hex4(const char* p) {
  int32_t v = 0;
  for (int k = 0; k < 4; ++k) {
    const int h = hex_value(p[k]);
    if (h < 0) return -1;
    v = v << 4 | h;
  }
  return v;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

constexpr uint32_t kReplacementCharacter = 0xFFFD;

bool is_high_surrogate(int32_t u) { return u >= 0xD800 && u <= 0xDBFF; }
bool is_low_surrogate(int32_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

}  // namespace

size_t unescape_json_string(const char* body, std::string& out) {
  size_t i = 0;
  for (;;) {
    const char c = body[i];
    if (c == '"') return i;
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    const size_t at = i;
    const char e = body[i + 1];
    i += 2;
    switch (e) {
      case '"': out += '"'; continue;
      case '\\': out += '\\'; continue;
      case '/': out += '/'; continue;
      case 'b': out += '\b'; continue;
      case 'f': out += '\f'; continue;
      case 'n': out += '\n'; continue;
      case 'r': out += '\r'; continue;
      case 't': out += '\t'; continue;
      case 'u': break;
      default: throw JsonStringError{at, "an invalid escape (JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"};
    }
    const int32_t u = hex4(body + i);
    if (u < 0) throw JsonStringError{at, "a \\u escape without four hex digits"};
    i += 4;
    if (is_high_surrogate(u) && body[i] == '\\' && body[i + 1] == 'u') {
      const int32_t low = hex4(body + i + 2);
      if (is_low_surrogate(low)) {
        append_utf8(out, 0x10000 + ((static_cast<uint32_t>(u) - 0xD800) << 10) +
                             (static_cast<uint32_t>(low) - 0xDC00));
        i += 6;
        continue;
      }
    }
    if (is_high_surrogate(u) || is_low_surrogate(u)) {
      append_utf8(out, kReplacementCharacter);  // a lone surrogate: valid JSON, not UTF-8
      continue;
    }
    append_utf8(out, static_cast<uint32_t>(u));
  }
}

}  // namespace whyslow
