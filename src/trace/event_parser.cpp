#include "trace/event_parser.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "trace/json_framer.hpp"
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

// The key's bytes without unescaping: Kineto keys never contain escapes, and a key that does
// simply matches nothing we read.
std::string_view key_of(od::field& f) {
  const char* p = f.key().raw();
  const char* q = static_cast<const char*>(std::memchr(p, '"', 256));
  return q ? std::string_view(p, static_cast<size_t>(q - p)) : std::string_view{};
}

template <typename T>
const char* location(T& v) {
  const char* where = nullptr;
  return v.current_location().get(where) ? nullptr : where;
}

od::json_type type_of(od::value& v, std::string_view key) {
  od::json_type t;
  if (v.type().get(t)) {
    throw EventFieldError{"'" + std::string(key) + "' holds no valid JSON value", location(v),
                          LoadError::Kind::Syntax};
  }
  return t;
}

// Microsecond time fields: must be numbers that fit; converted exactly to ns.
int64_t time_field(od::value& v, std::string_view key) {
  const od::json_type t = type_of(v, key);
  const char* where = location(v);
  if (t != od::json_type::number)
    throw EventFieldError{"'" + std::string(key) + "' must be a number of microseconds, got " +
                              type_name(t),
                          where};
  std::string_view raw = trim(v.raw_json_token());
  auto ns = micros_text_to_ns(raw);
  if (!ns)
    throw EventFieldError{"'" + std::string(key) + "' = " + std::string(raw.substr(0, 40)) +
                              " is out of range (more than 292 years in nanoseconds)",
                          where};
  return *ns;
}

// Integer ids and sizes inside args: lenient, since they only enrich the model. Ids above
// INT64_MAX ("Comms Id") and non-numbers (null) read as `absent`.
int64_t int_arg(od::value& v, int64_t absent = 0) {
  od::json_type t;
  if (v.type().get(t) || t != od::json_type::number) return absent;
  return integer_text_to_i64(trim(v.raw_json_token())).value_or(absent);
}

void int3_arg(od::value& v, int32_t out[3]) {
  od::array arr;
  if (v.get_array().get(arr)) return;
  int i = 0;
  for (auto item : arr) {
    od::value x;
    if (item.get(x)) return;
    if (i < 3) out[i++] = static_cast<int32_t>(int_arg(x));
  }
}

// pid / tid: integers or strings ("Spans", "stream 7"); kept as their text.
NameId id_text(od::value& v, StringPool& names) {
  od::json_type t;
  if (v.type().get(t)) return names.intern("");
  if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return names.intern("");
    return names.intern(s);
  }
  if (t == od::json_type::null) return names.intern("");
  return names.intern(trim(v.raw_json_token()));
}

NameId string_or_raw(od::value& v, StringPool& names) {
  od::json_type t;
  if (v.type().get(t)) return kNoName;
  if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return kNoName;
    return names.intern(s);
  }
  if (t == od::json_type::null) return kNoName;
  if (t == od::json_type::array) {
    od::array a;
    std::string_view raw;
    if (v.get_array().get(a) || a.raw_json().get(raw)) return kNoName;
    return names.intern(raw);
  }
  if (t == od::json_type::object) return kNoName;
  return names.intern(trim(v.raw_json_token()));
}

void parse_args(od::object& args, ParsedEvent& e, StringPool& names) {
  for (auto field_result : args) {
    od::field f;
    if (std::move(field_result).get(f))
      throw EventFieldError{"malformed 'args' object", nullptr, LoadError::Kind::Syntax};
    const std::string_view key = key_of(f);
    od::value v = f.value();
    switch (key.size()) {
      case 4:
        if (key == "grid") { int3_arg(v, e.gpu.grid); e.has_gpu_detail = true; }
        else if (key == "name") e.meta_value = string_or_raw(v, names);
        break;
      case 5:
        if (key == "block") { int3_arg(v, e.gpu.block); e.has_gpu_detail = true; }
        else if (key == "bytes") e.gpu.bytes = int_arg(v, -1);
        break;
      case 6:
        if (key == "labels") e.meta_value = string_or_raw(v, names);
        break;
      case 10:
        if (key == "Input type") e.shapes.input_type = string_or_raw(v, names);
        else if (key == "Input Dims") e.shapes.input_dims = string_or_raw(v, names);
        break;
      case 11:
        if (key == "correlation") e.correlation = int_arg(v);
        else if (key == "External id" || key == "external id") e.external_id = int_arg(v);
        break;
      case 13:
        if (key == "shared memory") e.gpu.shared_memory = static_cast<int32_t>(int_arg(v, -1));
        else if (key == "Input Strides") e.shapes.input_strides = string_or_raw(v, names);
        break;
      case 14:
        if (key == "cuda_sync_kind") e.sync_kind = string_or_raw(v, names);
        break;
      case 15:
        if (key == "Concrete Inputs") e.shapes.concrete_inputs = string_or_raw(v, names);
        break;
      case 20:
        if (key == "registers per thread") e.gpu.registers = static_cast<int32_t>(int_arg(v, -1));
        break;
      default:
        break;
    }
  }
}

void parse_event_object(od::object& obj, ParsedEvent& e, StringPool& names) {
  for (auto field_result : obj) {
    od::field f;
    if (std::move(field_result).get(f))
      throw EventFieldError{"malformed event object", nullptr, LoadError::Kind::Syntax};
    const std::string_view key = key_of(f);
    od::value v = f.value();
    if (key == "ph") {
      std::string_view ph;
      if (v.get_string().get(ph) || ph.empty())
        throw EventFieldError{"'ph' must be a one-letter string such as \"X\"", nullptr};
      e.ph = ph[0];
    } else if (key == "name") {
      e.name = string_or_raw(v, names);
    } else if (key == "cat") {
      e.category = string_or_raw(v, names);
    } else if (key == "ts") {
      e.ts_ns = time_field(v, key);
      e.has_ts = true;
    } else if (key == "dur") {
      if (type_of(v, key) != od::json_type::null) {
        e.dur_ns = time_field(v, key);
        e.has_dur = true;
      }
    } else if (key == "pid") {
      e.pid = id_text(v, names);
    } else if (key == "tid") {
      e.tid = id_text(v, names);
    } else if (key == "id") {
      e.correlation = int_arg(v);  // flow id: equals the launch's correlation
    } else if (key == "args") {
      const od::json_type t = type_of(v, key);
      if (t == od::json_type::object) {
        od::object args;
        if (v.get_object().get(args))
          throw EventFieldError{"malformed 'args' object", nullptr, LoadError::Kind::Syntax};
        parse_args(args, e, names);
      } else if (t != od::json_type::null) {
        throw EventFieldError{std::string("'args' must be an object, got ") + type_name(t), nullptr};
      }
    }
  }
}

}  // namespace

struct EventParser::Impl {
  Impl(TraceBuilder& b, std::string p) : builder(b), path(std::move(p)) {}
  TraceBuilder& builder;
  std::string path;
  od::parser parser;
  ParsedEvent event;
};

EventParser::EventParser(TraceBuilder& builder, std::string path)
    : impl_(std::make_unique<Impl>(builder, std::move(path))) {}
EventParser::~EventParser() = default;

namespace {

std::string where_text(const std::string& path, uint64_t offset, uint64_t index) {
  return path + ": byte " + std::to_string(offset) + " (event #" + std::to_string(index) + ")";
}

}  // namespace

void EventParser::parse_batch(char* buf, size_t buf_capacity, const std::vector<EventSpan>& spans,
                              uint64_t buf_file_offset, uint64_t first_index) {
  if (spans.empty()) return;
  Impl& im = *impl_;
  StringPool& names = im.builder.names();
  // The batch document runs from the byte before the first event (buf[-1] when the event starts
  // the buffer: the caller keeps that byte free) to the byte after the last.
  char* const open = buf + spans.front().begin - 1;
  char* const close = buf + spans.back().end;
  const size_t batch_len = static_cast<size_t>(close - open) + 1;
  const size_t batch_capacity = buf_capacity - spans.front().begin + 1;
  const char saved_open = *open, saved_close = *close;
  *open = '[';
  *close = ']';
  struct Restore {
    char* open; char* close; char x, y;
    ~Restore() { *open = x; *close = y; }
  } restore{open, close, saved_open, saved_close};

  auto event_at = [&](const char* p) -> size_t {  // index of the span holding pointer p
    if (!p) return 0;
    const size_t off = static_cast<size_t>(p - buf);
    auto it = std::upper_bound(spans.begin(), spans.end(), off,
                               [](size_t o, const EventSpan& s) { return o < s.begin; });
    return it == spans.begin() ? 0 : static_cast<size_t>(it - spans.begin()) - 1;
  };
  auto fail = [&](size_t i, const char* where, const std::string& what,
                  LoadError::Kind kind = LoadError::Kind::Syntax) -> void {
    const uint64_t offset = buf_file_offset + (where ? static_cast<uint64_t>(where - buf) : spans[i].begin);
    throw LoadError(kind, where_text(im.path, offset, first_index + i) + ": " + what, offset);
  };
  // simdjson's first pass (UTF-8, control characters) fails for the batch as a whole: find the
  // event it fails on by checking the events one at a time.
  auto first_invalid = [&]() -> size_t {
    for (size_t i = 0; i < spans.size(); ++i) {
      od::document one;
      if (im.parser.iterate(buf + spans[i].begin, spans[i].end - spans[i].begin,
                            buf_capacity - spans[i].begin).get(one))
        return i;
    }
    return 0;
  };

  constexpr LoadError::Kind kSchema = LoadError::Kind::Schema;
  for (int attempt = 0;; ++attempt) {
    od::document doc;
    error_code err = im.parser.iterate(open, batch_len, batch_capacity).get(doc);
    if (err == simdjson::UNESCAPED_CHARS && attempt == 0) {
      // Raw control bytes inside strings: invalid JSON, but real writers emit them.
      replaced_control_chars_ +=
          blank_control_chars_in_strings(buf, spans.front().begin, spans.back().end);
      continue;
    }
    if (err) fail(first_invalid(), nullptr, std::string("not valid JSON: ") + simdjson::error_message(err));
    od::array arr;
    if ((err = doc.get_array().get(arr))) fail(0, nullptr, simdjson::error_message(err));
    size_t i = 0;
    for (auto item : arr) {
      od::value v;
      err = item.get(v);
      od::object obj;
      if (!err) err = v.get_object().get(obj);
      if (err) {
        const char* where = location(doc);
        const size_t at = where ? event_at(where) : i;
        if (err == simdjson::INCORRECT_TYPE)
          fail(at, where, "expected an event object ({...})", LoadError::Kind::Schema);
        fail(at, where, std::string("not valid JSON: ") + simdjson::error_message(err));
      }
      im.event.reset();
      try {
        parse_event_object(obj, im.event, names);
      } catch (const EventFieldError& fe) {
        fail(i, fe.where, fe.message, fe.kind);
      } catch (const simdjson::simdjson_error& se) {
        const char* where = location(doc);
        fail(i, where, std::string("not valid JSON: ") + se.what());
      }
      ParsedEvent& e = im.event;
      switch (e.ph) {
        case 'X':
          if (!e.has_ts) fail(i, nullptr, "complete event (\"ph\": \"X\") has no 'ts'", kSchema);
          if (!e.has_dur) fail(i, nullptr, "complete event (\"ph\": \"X\") has no 'dur'", kSchema);
          im.builder.add_event(e);
          break;
        case 'i': case 'I':
          if (!e.has_ts) fail(i, nullptr, "instant event (\"ph\": \"i\") has no 'ts'", kSchema);
          im.builder.add_event(e);
          break;
        case 'M':
          im.builder.add_metadata(e);
          break;
        case 's': case 'f':
          im.builder.add_flow(e);
          break;
        case 0:
          fail(i, nullptr, "event has no 'ph' (phase)", kSchema);
          break;
        default:
          im.builder.count_ignored();
          break;
      }
      ++i;
    }
    return;
  }
}

}  // namespace whyslow
