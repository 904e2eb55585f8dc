#include "trace/event_scanner.hpp"

#include <emmintrin.h>
#include <simdjson.h>

#include <array>
#include <cstring>
#include <string>
#include <string_view>

#include "trace/event_args.hpp"
#include "trace/json_string.hpp"
#include "trace/number_text.hpp"
#include "trace/time_range.hpp"

namespace whyslow {
namespace {

// Thrown on anything the scanner does not read itself; the general reader takes the batch. Rare
// by design (real traces meet it only with escaped keys or invalid input), so an exception costs
// nothing on the common path and keeps every read below free of error checks.
struct ScannerGivesUp {};
[[noreturn, gnu::noinline, gnu::cold]] void give_up() { throw ScannerGivesUp{}; }

// How deep the scanner follows a value it skips or copies: Kineto's deepest are Input Dims and
// Concrete Inputs, arrays of arrays (3 levels inside an event). Deeper values are rare enough to
// leave to the general reader, which has limits of its own.
constexpr int kScannerMaxDepth = 32;

constexpr std::array<bool, 256> number_bytes() {
  std::array<bool, 256> t{};
  for (char c : std::string_view("0123456789+-.eE")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
// The bytes a JSON number's text is made of; whether they form a number is checked on the text.
constexpr std::array<bool, 256> kNumberBytes = number_bytes();

inline bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A string's extent: its body (after the opening quote), its end (the closing quote) and whether it
// holds an escape.
struct StringExtent {
  const char* body;
  const char* end;
  bool escaped;
};

inline void skip_space(const char*& p) {
  // Most values follow ": " and most keys ", ": the first byte usually ends it.
  while (static_cast<unsigned char>(*p) <= ' ' && is_json_space(*p)) ++p;
}
inline void expect(const char*& p, char c) {
  if (*p != c) give_up();
  ++p;
}
inline bool starts_number(char c) { return c == '-' || (c >= '0' && c <= '9'); }

// After a member of an object or array: true at ',' (p at the next member), false at `close`
// (p past it).
inline bool next_member(const char*& p, char close) {
  skip_space(p);
  if (*p == ',') {
    ++p;
    skip_space(p);
    return true;
  }
  expect(p, close);
  return false;
}

// A string holding a backslash (or a control byte: given up). The framer found its end the same
// way, so the closing quote is inside the event.
[[gnu::noinline]] StringExtent escaped_extent(const char* body, const char*& p) {
  const char* q = body;
  while (*q != '"') {
    if (static_cast<unsigned char>(*q) < 0x20) give_up();
    q += *q == '\\' ? 2 : 1;
  }
  p = q + 1;
  return {body, q, true};
}

// The extent of the string whose opening quote is at p; p moves past its closing quote. Sixteen
// bytes at a time for the closing quote, a backslash or a raw control byte (< 0x20). Reading past
// the string is safe: the batch's events are followed by simdjson's padding.
inline StringExtent string_extent(const char*& p) {
  const char* body = p + 1;
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), max_control = _mm_set1_epi8(0x1F);
  for (const char* q = body;; q += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const unsigned quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)));
    const unsigned special =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) |
                              _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, max_control), v)));
    if (quotes != 0 && (special & ((quotes & (0u - quotes)) - 1)) == 0) {
      const char* end = q + __builtin_ctz(quotes);
      p = end + 1;
      return {body, end, false};
    }
    if (special != 0) return escaped_extent(body, p);
  }
}

// Unescapes into `out`; an escape RFC 8259 does not define is the general reader's to report.
void unescape(const char* body, std::string& out) {
  try {
    unescape_json_string(body, out);
  } catch (const JsonStringError&) {
    give_up();
  }
}

// A key, p at its opening quote: taken in place (an escaped key is left to the general reader);
// p moves to its value.
inline std::string_view key_text(const char*& p) {
  if (*p != '"') give_up();
  const StringExtent s = string_extent(p);
  if (s.escaped) give_up();
  skip_space(p);
  expect(p, ':');
  skip_space(p);
  return {s.body, static_cast<size_t>(s.end - s.body)};
}

inline std::string_view number_text(const char*& p) {
  const char* begin = p;
  while (kNumberBytes[static_cast<unsigned char>(*p)]) ++p;
  return {begin, static_cast<size_t>(p - begin)};
}
inline std::string_view checked_number_text(const char*& p) {
  const std::string_view text = number_text(p);
  if (!is_json_number(text)) give_up();
  return text;
}
// true, false or null at p: its text.
inline std::string_view literal(const char*& p) {
  const char* begin = p;
  if (std::memcmp(p, "true", 4) == 0 || std::memcmp(p, "null", 4) == 0) p += 4;
  else if (std::memcmp(p, "false", 5) == 0) p += 5;
  else give_up();
  return {begin, static_cast<size_t>(p - begin)};
}

// Microseconds, exactly as nanoseconds, within the range every later sum stays inside.
inline int64_t time_value(const char*& p) {
  if (!starts_number(*p)) give_up();
  const auto ns = micros_text_to_ns(number_text(p));
  if (!ns || *ns >= kMaxAbsTimeNs || *ns <= -kMaxAbsTimeNs) give_up();
  return *ns;
}

// Moves past any JSON value, checking it; returns where it ends.
const char* skip_value(const char* p, int depth, std::string& unescaped);

inline void skip_any(const char*& p, std::string& unescaped) {
  if (starts_number(*p)) checked_number_text(p);  // most skipped values are ids and indices
  else p = skip_value(p, 0, unescaped);
}

const char* skip_container(const char* p, char close, int depth, std::string& unescaped) {
  if (depth >= kScannerMaxDepth) give_up();
  ++p;
  skip_space(p);
  if (*p == close) return p + 1;
  do {
    if (close == '}') key_text(p);
    p = skip_value(p, depth + 1, unescaped);
  } while (next_member(p, close));
  return p;
}

const char* skip_value(const char* p, int depth, std::string& unescaped) {
  switch (*p) {
    case '"': {
      const StringExtent s = string_extent(p);
      if (s.escaped) {
        unescaped.clear();
        unescape(s.body, unescaped);
      }
      return p;
    }
    case '{': return skip_container(p, '}', depth, unescaped);
    case '[': return skip_container(p, ']', depth, unescaped);
    case 't': case 'f': case 'n': literal(p); return p;
    default: checked_number_text(p); return p;
  }
}

class Scanner {
 public:
  explicit Scanner(ParsedBatch& batch) : batch_(batch), texts_(batch) {}

  // Reads the event object at p into e; returns where it ends.
  const char* event(const char* p, ParsedEvent& e) {
    expect(p, '{');
    skip_space(p);
    if (*p == '}') give_up();  // no 'ph': the general reader says so
    do {
      const std::string_view key = key_text(p);
      event_field(p, key, e);
    } while (next_member(p, '}'));
    return p;
  }

 private:
  // read_event_arg's view of an args value (event_args.hpp), at p.
  struct ArgValue {
    Scanner& s;
    const char*& p;
    int64_t integer(int64_t absent) { return s.integer(p, absent); }
    void int3(int32_t out[3]) { s.int3(p, out); }
    void text(TextField field) { s.text(p, field); }
  };

  int64_t integer(const char*& p, int64_t absent) {
    if (starts_number(*p)) {
      const std::string_view text = number_text(p);
      if (const auto n = integer_text_to_i64(text)) return *n;
      if (!is_json_number(text)) give_up();
      return absent;
    }
    p = skip_value(p, 0, unescaped_);
    return absent;
  }
  void int3(const char*& p, int32_t out[3]) {
    if (*p != '[') {
      p = skip_value(p, 0, unescaped_);
      return;
    }
    ++p;
    skip_space(p);
    if (*p == ']') {
      ++p;
      return;
    }
    int i = 0;
    do {
      const int64_t n = integer(p, 0);
      if (i < 3) out[i++] = static_cast<int32_t>(n);
    } while (next_member(p, ']'));
  }
  void text(const char*& p, TextField field) {
    switch (*p) {
      case '"': return texts_.text(field, string(p));
      case '{': p = skip_value(p, 0, unescaped_); return texts_.text(field, {});
      case '[': {
        const char* begin = p;
        p = skip_value(p, 0, unescaped_);
        return texts_.text(field, std::string_view(begin, static_cast<size_t>(p - begin)));
      }
      case 'n': literal(p); return texts_.text(field, {});  // null: absent
      case 't': case 'f': return texts_.text(field, literal(p));
      default: return texts_.text(field, checked_number_text(p));
    }
  }

  // A string value's text, unescaped: in place when it holds no escape (most), else in the
  // batch's own storage, where the builder reads it later.
  std::string_view string(const char*& p) {
    const StringExtent s = string_extent(p);
    if (!s.escaped) [[likely]] return {s.body, static_cast<size_t>(s.end - s.body)};
    std::string& owned = batch_.owned.emplace_back();
    unescape(s.body, owned);
    return owned;
  }

  // pid / tid: integers or strings ("Spans", "stream 7"), kept as their text; null is the empty name.
  void id_text(const char*& p, TextField field) {
    switch (*p) {
      case '"': return texts_.text(field, string(p));
      case 'n': literal(p); return texts_.text(field, std::string_view(""));
      case 't': case 'f': return texts_.text(field, literal(p));
      case '[': case '{': give_up();
      default: {
        // A thread's events repeat its pid and tid: the same bytes need no second check.
        std::string_view& checked = checked_number_[static_cast<size_t>(field)];
        const std::string_view text = number_text(p);
        if (!checked.data() || !same_bytes(text, checked)) {
          if (!is_json_number(text)) give_up();
          checked = text;
        }
        return texts_.text(field, text);
      }
    }
  }

  void args(const char*& p, ParsedEvent& e) {
    if (*p != '{') {
      if (*p != 'n') give_up();  // null is no args; anything else is the general reader's error
      literal(p);
      return;
    }
    ++p;
    skip_space(p);
    if (*p == '}') {
      ++p;
      return;
    }
    do {
      const std::string_view key = key_text(p);
      const char* value = p;
      ArgValue v{*this, p};
      read_event_arg(key, v, e);
      if (p == value) skip_any(p, unescaped_);  // a key whyslow does not read
    } while (next_member(p, '}'));
  }

  // One member of the event object, its key read: keys told apart by length first.
  void event_field(const char*& p, std::string_view key, ParsedEvent& e) {
    switch (key.size()) {
      case 2:
        if (key_is(key, "ph")) {
          if (*p != '"') give_up();
          const std::string_view ph = string(p);
          if (ph.empty()) give_up();
          e.ph = ph[0];
          return;
        }
        if (key_is(key, "ts")) {
          e.ts_ns = time_value(p);
          e.has_ts = true;
          return;
        }
        if (key_is(key, "id")) {
          e.correlation = integer(p, 0);  // flow id: equals the launch's correlation
          return;
        }
        break;
      case 3:
        if (key_is(key, "dur")) {
          if (*p == 'n') {
            literal(p);
          } else {
            e.dur_ns = time_value(p);
            e.has_dur = true;
          }
          return;
        }
        if (key_is(key, "pid")) return id_text(p, TextField::Pid);
        if (key_is(key, "tid")) return id_text(p, TextField::Tid);
        if (key_is(key, "cat")) return text(p, TextField::Category);
        break;
      case 4:
        if (key_is(key, "name")) return text(p, TextField::Name);
        if (key_is(key, "args")) return args(p, e);
        break;
      default:
        break;
    }
    skip_any(p, unescaped_);
  }

  ParsedBatch& batch_;
  BatchTextWriter texts_;
  std::array<std::string_view, kTextFields> checked_number_{};
  std::string unescaped_;  // a skipped string's escapes, checked
};

}  // namespace

bool scan_event_batch(ParsedBatch& b) {
  const std::vector<EventSpan>& spans = b.spans;
  const char* const buf = b.bytes.get();
  // simdjson's own check, over the batch at once: the scanner then meets valid UTF-8 only.
  if (!simdjson::validate_utf8(buf + spans.front().begin, spans.back().end - spans.front().begin)) return false;
  Scanner scanner(b);
  try {
    for (const EventSpan& span : spans) {
      BatchEvent& be = b.events.emplace_back();
      if (scanner.event(buf + span.begin, be.event) != buf + span.end || missing_field(be.event)) return false;
      be.texts_end = static_cast<uint32_t>(b.texts.size());
      be.file_offset = b.bytes_file_offset + span.begin;
    }
  } catch (const ScannerGivesUp&) {
    return false;
  }
  return true;
}

}  // namespace whyslow
