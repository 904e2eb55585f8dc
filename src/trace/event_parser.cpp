#include "trace/parsed_batch.hpp"
#include "trace/event_args.hpp"
#include "trace/time_range.hpp"

#include <emmintrin.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <string_view>

#include "common/same_bytes.hpp"
#include "common/terminal_text.hpp"
#include "trace/json_framer.hpp"
#include "trace/json_string.hpp"
#include "trace/load_error.hpp"
#include "trace/number_text.hpp"

namespace whyslow {

namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

// Thrown inside one event, turned into a LoadError with the event's position by the caller.
// Schema: valid JSON that is not a valid event (wrong type, out of range, missing field).
struct EventFieldError {
  std::string message;
  const char* where;  // inside the event, or nullptr
  LoadError::Kind kind = LoadError::Kind::Schema;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

const char* type_name(od::json_type t) {
  switch (t) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "something else";
}

// Where one batch's parse writes: the batch's texts, and scratch space for escaped keys (used at once).
struct Scratch : BatchTextWriter {
  explicit Scratch(ParsedBatch& b) : BatchTextWriter(b) {}
  std::string key;
  // Per field, the text of the last number checked as JSON in it: the same bytes need no second
  // check (a thread's events repeat their pid and tid).
  std::array<std::string_view, kTextFields> checked_number{};
};

[[gnu::noinline]] std::string_view escaped_key(const char* p, Scratch& scratch) {
  scratch.key.clear();
  try {
    unescape_json_string(p, scratch.key);
  } catch (const JsonStringError& e) {
    throw EventFieldError{std::string("a key holds ") + e.what, p + e.offset, LoadError::Kind::Syntax};
  }
  return scratch.key;
}

// A key's text. Kineto keys hold no escapes, so the fast path returns the key's bytes in place;
// a key with a backslash is unescaped (so "\u0070h" is "ph") and an invalid escape is an error.
inline std::string_view key_of(od::field& f, Scratch& scratch) {
  const char* p = f.key().raw();
  // Keys are short: one 16-byte compare finds the closing quote and any backslash before it.
  // Reading 16 bytes is safe: the key is followed by its value and simdjson's padding.
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const unsigned quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))));
  const unsigned backslashes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  const unsigned before_first_quote = (quotes & (0u - quotes)) - 1;
  if (quotes != 0 && (backslashes & before_first_quote) == 0)
    return std::string_view(p, static_cast<unsigned>(__builtin_ctz(quotes)));
  const char* q = p;  // a long key, or one with an escape
  while (*q != '"' && *q != '\\') ++q;  // the key is a complete string: a quote ends it
  if (*q == '"') return std::string_view(p, static_cast<size_t>(q - p));
  return escaped_key(p, scratch);
}

// Where a value starts: its token's first byte, which stays put after the value is read.
// Cheaper than current_location(), an out-of-line call taken three times per event.
const char* location(od::value& v) { return v.raw_json_token().data(); }

// Where the document's iterator stands (after an error: at the token it failed on).
const char* location(od::document& doc) {
  const char* where = nullptr;
  return doc.current_location().get(where) ? nullptr : where;
}

std::string quoted(std::string_view key) { return "'" + printable(key) + "'"; }

[[noreturn, gnu::noinline]] void no_value(od::value& v, std::string_view key) {
  throw EventFieldError{quoted(key) + " holds no valid JSON value", location(v), LoadError::Kind::Syntax};
}

inline od::json_type type_of(od::value& v, std::string_view key) {
  od::json_type t;
  if (v.type().get(t)) [[unlikely]] no_value(v, key);
  return t;
}

// A string value, unescaped. simdjson refuses invalid escapes and lone surrogates alike; the slow
// path tells them apart: the first is an error, the second valid JSON (kept, with U+FFFD).
[[gnu::noinline]] std::string_view string_slow_path(od::value& v, std::string_view key, Scratch& scratch) {
  const std::string_view raw = v.raw_json_token();  // still the string's token after the failure
  std::string& value = scratch.batch.owned.emplace_back();  // the builder reads it later
  try {
    unescape_json_string(raw.data() + 1, value);
  } catch (const JsonStringError& e) {
    throw EventFieldError{"the string in " + quoted(key) + " holds " + e.what, raw.data() + 1 + e.offset,
                          LoadError::Kind::Syntax};
  }
  return value;
}

// Whether a string inside the batch holds a backslash, 16 bytes at a time (an inline loop: most
// strings are a few dozen bytes, where a call to memchr costs more than the scan). Reading up to 15
// bytes past the string is safe: the batch's last event is followed by simdjson's padding.
inline bool has_backslash(std::string_view text) {
  const __m128i backslash = _mm_set1_epi8('\\');
  for (size_t i = 0; i < text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    unsigned hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)));
    if (text.size() - i < 16) hits &= (1u << (text.size() - i)) - 1;
    if (hits) return true;
  }
  return false;
}

// A string value (its type checked by the caller), unescaped. Kineto's strings rarely hold a
// backslash: those without one are their bytes in place, between the quotes (stage 1 has already
// checked their UTF-8 and that they hold no control byte), with no copy into simdjson's string
// buffer; the rest are unescaped by simdjson.
inline std::string_view string_value(od::value& v, std::string_view key, Scratch& scratch) {
  const std::string_view token = trim(v.raw_json_token());  // "…", to the next structural byte
  if (token.size() >= 2 && token.back() == '"') [[likely]] {
    const std::string_view text = token.substr(1, token.size() - 2);
    if (!has_backslash(text)) return text;
  }
  std::string_view s;
  if (!v.get_string().get(s)) [[likely]] return s;
  return string_slow_path(v, key, scratch);
}

// The text of a number, true, false or null, checked: simdjson types a scalar by its first byte
// only, so "01", "0x10" and "tru" arrive here typed as numbers and booleans.
std::string_view scalar_text(od::value& v, od::json_type t, std::string_view key) {
  const std::string_view raw = trim(v.raw_json_token());
  bool valid = true;
  if (t == od::json_type::number) {
    valid = is_json_number(raw);
  } else if (t == od::json_type::boolean) {
    bool b;
    valid = !v.get_bool().get(b);
  } else if (t == od::json_type::null) {
    bool null = false;
    valid = !v.is_null().get(null) && null;
  }
  if (!valid)
    throw EventFieldError{quoted(key) + " = " + printable(raw.substr(0, 40)) + " is not a valid JSON " +
                              (t == od::json_type::number ? "number" : "literal (true, false, null)"),
                          raw.data(), LoadError::Kind::Syntax};
  return raw;
}

// Microsecond time fields: must be numbers that fit; converted exactly to ns.
int64_t time_field(od::value& v, std::string_view key) {
  const od::json_type t = type_of(v, key);
  const char* where = location(v);
  if (t != od::json_type::number)
    throw EventFieldError{quoted(key) + " must be a number of microseconds, got " + type_name(t), where};
  // micros_text_to_ns accepts JSON numbers only: one pass both checks and converts the text.
  const std::string_view raw = trim(v.raw_json_token());
  const auto ns = micros_text_to_ns(raw);
  if (!ns) scalar_text(v, t, key);  // throws when the text is not a JSON number at all
  if (!ns || *ns >= kMaxAbsTimeNs || *ns <= -kMaxAbsTimeNs)
    throw EventFieldError{quoted(key) + " = " + printable(raw.substr(0, 40)) +
                              " µs is out of range: whyslow reads times below ±2^62 ns "
                              "(146 years from the trace's clock zero)",
                          where};
  return *ns;
}

// Integer ids and sizes inside args: lenient, since they only enrich the model. Ids above
// INT64_MAX ("Comms Id"), fractions and non-numbers (null) read as `absent`; text that is not
// JSON at all is still an error.
int64_t int_arg(od::value& v, std::string_view key, int64_t absent = 0) {
  const od::json_type t = type_of(v, key);
  if (t == od::json_type::array || t == od::json_type::object || t == od::json_type::string) return absent;
  if (t == od::json_type::number) {
    // integer_text_to_i64 accepts JSON integers only; anything it refuses gets the full check.
    if (const auto n = integer_text_to_i64(trim(v.raw_json_token()))) return *n;
  }
  scalar_text(v, t, key);  // throws when the text is not JSON
  return absent;
}

void int3_arg(od::value& v, std::string_view key, int32_t out[3]) {
  od::array arr;
  if (v.get_array().get(arr)) return;
  int i = 0;
  for (auto item : arr) {
    if (item.error()) return;
    const int64_t n = int_arg(item.value_unsafe(), key);
    if (i < 3) out[i++] = static_cast<int32_t>(n);
  }
}

// pid / tid: integers or strings ("Spans", "stream 7"); kept as their text.
void id_text(od::value& v, std::string_view key, TextField field, Scratch& scratch) {
  const od::json_type t = type_of(v, key);
  if (t == od::json_type::string) return scratch.text(field, string_value(v, key, scratch));
  if (t == od::json_type::null) {
    scalar_text(v, t, key);
    return scratch.text(field, std::string_view(""));  // the empty name, not an absent one
  }
  if (t == od::json_type::array || t == od::json_type::object)
    throw EventFieldError{quoted(key) + " must be a number or a string, got " + type_name(t), location(v)};
  if (t == od::json_type::number) {
    const std::string_view raw = trim(v.raw_json_token());
    std::string_view& checked = scratch.checked_number[static_cast<size_t>(field)];
    if (!checked.data() || !same_bytes(raw, checked)) checked = scalar_text(v, t, key);  // throws if not JSON
    return scratch.text(field, raw);
  }
  scratch.text(field, scalar_text(v, t, key));
}

// A name field: a string's text, an array's raw text, a scalar's text; absent (kNoName) for an
// object or null.
void string_or_raw(od::value& v, std::string_view key, TextField field, Scratch& scratch) {
  const od::json_type t = type_of(v, key);
  if (t == od::json_type::string) return scratch.text(field, string_value(v, key, scratch));
  if (t == od::json_type::object) return scratch.text(field, {});
  if (t == od::json_type::array) {
    // The array's text as written ("[[64, 64], [64]]"), its elements unparsed (see
    // docs/ARCHITECTURE.md: what the loader validates).
    od::array a;
    std::string_view raw;
    if (v.get_array().get(a) || a.raw_json().get(raw))
      throw EventFieldError{"malformed array in " + quoted(key), location(v), LoadError::Kind::Syntax};
    return scratch.text(field, trim(raw));
  }
  const std::string_view raw = scalar_text(v, t, key);
  scratch.text(field, t == od::json_type::null ? std::string_view{} : raw);
}

// An args value as read_event_arg (event_args.hpp) reads it, through simdjson.
struct GeneralArgValue {
  od::value& v;
  std::string_view key;
  Scratch& scratch;
  int64_t integer(int64_t absent) { return int_arg(v, key, absent); }
  void int3(int32_t out[3]) { int3_arg(v, key, out); }
  void text(TextField field) { string_or_raw(v, key, field, scratch); }
};

void parse_args(od::object& args, ParsedEvent& e, Scratch& scratch) {
  for (auto field_result : args) {
    if (field_result.error()) throw EventFieldError{"malformed 'args' object", nullptr, LoadError::Kind::Syntax};
    od::field& f = field_result.value_unsafe();  // in place: a copy costs a store-forwarding stall
    const std::string_view key = key_of(f, scratch);
    GeneralArgValue value{f.value(), key, scratch};  // a reference to the value, not a copy
    read_event_arg(key, value, e);
  }
}

void parse_event_object(od::object& obj, ParsedEvent& e, Scratch& scratch) {
  for (auto field_result : obj) {
    if (field_result.error()) throw EventFieldError{"malformed event object", nullptr, LoadError::Kind::Syntax};
    od::field& f = field_result.value_unsafe();  // in place: a copy costs a store-forwarding stall
    const std::string_view key = key_of(f, scratch);
    od::value& v = f.value();  // a reference too, not a copy
    if (key_is(key, "ph")) {
      const char* where = location(v);
      if (type_of(v, key) != od::json_type::string)
        throw EventFieldError{"'ph' must be a one-letter string such as \"X\"", where};
      const std::string_view ph = string_value(v, key, scratch);
      if (ph.empty()) throw EventFieldError{"'ph' must be a one-letter string such as \"X\"", where};
      e.ph = ph[0];
    } else if (key_is(key, "name")) {
      string_or_raw(v, key, TextField::Name, scratch);
    } else if (key_is(key, "cat")) {
      string_or_raw(v, key, TextField::Category, scratch);
    } else if (key_is(key, "ts")) {
      e.ts_ns = time_field(v, key);
      e.has_ts = true;
    } else if (key_is(key, "dur")) {
      if (type_of(v, key) == od::json_type::null) {
        scalar_text(v, od::json_type::null, key);
      } else {
        e.dur_ns = time_field(v, key);
        e.has_dur = true;
      }
    } else if (key_is(key, "pid")) {
      id_text(v, key, TextField::Pid, scratch);
    } else if (key_is(key, "tid")) {
      id_text(v, key, TextField::Tid, scratch);
    } else if (key_is(key, "id")) {
      e.correlation = int_arg(v, key);  // flow id: equals the launch's correlation
    } else if (key_is(key, "args")) {
      const od::json_type t = type_of(v, key);
      if (t == od::json_type::object) {
        od::object args;
        if (v.get_object().get(args))
          throw EventFieldError{"malformed 'args' object", nullptr, LoadError::Kind::Syntax};
        parse_args(args, e, scratch);
      } else if (t == od::json_type::null) {
        scalar_text(v, t, key);
      } else {
        throw EventFieldError{std::string("'args' must be an object, got ") + type_name(t), nullptr};
      }
    }
  }
}

std::string where_text(const std::string& path, uint64_t offset, uint64_t index) {
  return path + ": byte " + std::to_string(offset) + " (event #" + std::to_string(index) + ")";
}

// The event's own checks, those that need no other event: a phase, and the times its phase needs.
// Returns what is wrong, or nullptr.
const char* missing_field(const ParsedEvent& e) {
  switch (e.ph) {
    case 'X':
      if (!e.has_ts) return "complete event (\"ph\": \"X\") has no 'ts'";
      if (!e.has_dur) return "complete event (\"ph\": \"X\") has no 'dur'";
      return nullptr;
    case 'i': case 'I':
      return e.has_ts ? nullptr : "instant event (\"ph\": \"i\") has no 'ts'";
    case 'B':
      return e.has_ts ? nullptr : "duration event's begin (\"ph\": \"B\") has no 'ts'";
    case 'E':
      return e.has_ts ? nullptr : "duration event's end (\"ph\": \"E\") has no 'ts'";
    case 0:
      return "event has no 'ph' (phase)";
    default:
      return nullptr;
  }
}

void parse_batch_or_throw(ParsedBatch& b, const std::string& path) {
  const std::vector<EventSpan>& spans = b.spans;
  char* const buf = b.bytes.get();
  // The batch document runs from the byte before the first event to the byte after the last.
  char* const open = buf + spans.front().begin - 1;
  char* const close = buf + spans.back().end;
  *open = '[';
  *close = ']';
  const size_t batch_len = static_cast<size_t>(close - open) + 1;
  const size_t batch_capacity = b.capacity - spans.front().begin + 1;

  auto event_at = [&](const char* p) -> size_t {  // index of the span holding pointer p
    if (!p) return 0;
    const size_t off = static_cast<size_t>(p - buf);
    auto it = std::upper_bound(spans.begin(), spans.end(), off,
                               [](size_t o, const EventSpan& s) { return o < s.begin; });
    return it == spans.begin() ? 0 : static_cast<size_t>(it - spans.begin()) - 1;
  };
  auto fail = [&](size_t i, const char* where, const std::string& what,
                  LoadError::Kind kind = LoadError::Kind::Syntax) -> void {
    const uint64_t offset = b.bytes_file_offset + (where ? static_cast<uint64_t>(where - buf) : spans[i].begin);
    throw LoadError(kind, where_text(path, offset, b.first_index + i) + ": " + what, offset);
  };
  // simdjson's first pass (UTF-8, control characters) fails for the batch as a whole: find the
  // event it fails on by checking the events one at a time.
  auto first_invalid = [&]() -> size_t {
    for (size_t i = 0; i < spans.size(); ++i) {
      od::document one;
      if (b.parser.iterate(buf + spans[i].begin, spans[i].end - spans[i].begin,
                           b.capacity - spans[i].begin).get(one))
        return i;
    }
    return 0;
  };

  Scratch scratch(b);
  for (int attempt = 0;; ++attempt) {
    od::document doc;
    error_code err = b.parser.iterate(open, batch_len, batch_capacity).get(doc);
    if (err == simdjson::UNESCAPED_CHARS && attempt == 0) {
      // Raw control bytes inside strings: invalid JSON, but real writers emit them.
      b.replaced_control_chars += blank_control_chars_in_strings(buf, spans.front().begin, spans.back().end);
      continue;
    }
    if (err) fail(first_invalid(), nullptr, std::string("not valid JSON: ") + simdjson::error_message(err));
    od::array arr;
    if ((err = doc.get_array().get(arr))) fail(0, nullptr, simdjson::error_message(err));
    size_t i = 0;
    for (auto item : arr) {
      err = item.error();
      od::object obj;
      if (!err) err = item.value_unsafe().get_object().get(obj);
      if (err) {
        const char* where = location(doc);
        const size_t at = where ? event_at(where) : i;
        if (err == simdjson::INCORRECT_TYPE)
          fail(at, where, "expected an event object ({...})", LoadError::Kind::Schema);
        fail(at, where, std::string("not valid JSON: ") + simdjson::error_message(err));
      }
      const size_t texts_begin = b.texts.size();
      // Parsed in place: an event is ~250 bytes, not worth a copy per event.
      BatchEvent& be = b.events.emplace_back();
      const auto drop_event = [&] {
        b.events.pop_back();
        b.texts.resize(texts_begin);
      };
      try {
        parse_event_object(obj, be.event, scratch);
      } catch (const EventFieldError& fe) {
        drop_event();
        fail(i, fe.where, fe.message, fe.kind);
      } catch (const simdjson::simdjson_error& se) {
        drop_event();
        fail(i, location(doc), std::string("not valid JSON: ") + se.what());
      }
      if (const char* missing = missing_field(be.event)) {
        drop_event();
        fail(i, nullptr, missing, LoadError::Kind::Schema);
      }
      be.texts_end = static_cast<uint32_t>(b.texts.size());
      be.file_offset = b.bytes_file_offset + spans[i].begin;
      ++i;
    }
    return;
  }
}

}  // namespace

void parse_batch(ParsedBatch& batch, const std::string& path) {
  batch.events.clear();
  batch.texts.clear();
  batch.strings.clear();
  batch.owned.clear();
  batch.replaced_control_chars = 0;
  batch.error = nullptr;
  if (batch.spans.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    parse_batch_or_throw(batch, path);
  } catch (...) {
    batch.error = std::current_exception();
  }
  batch.parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace whyslow
