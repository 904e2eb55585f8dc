#include "trace/load_trace.hpp"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/terminal_text.hpp"
#include "trace/foreign_file.hpp"
#include "trace/input_source.hpp"
#include "trace/json_framer.hpp"
#include "trace/json_string.hpp"
#include "trace/parse_pipeline.hpp"
#include "trace/load_error.hpp"
#include "trace/number_text.hpp"
#include "trace/trace_builder.hpp"

namespace whyslow {
namespace {

// Read buffer size: small enough that the bytes read() just copied are still in the core's L2
// cache when the framer and simdjson walk them (1 MiB: 5-8 % less CPU than 16 MiB on a 540 MB
// trace, 20-25 % on 50-90 MB traces, and 16 MB less RSS), large enough that read() calls
// stay cheap. A value larger than the buffer grows it.
constexpr size_t kReadBytes = 1u << 20;
// Events handed to simdjson at once: big enough to amortise its per-document set-up and the
// hand-over between threads, small enough that its structural index (a few bytes per input
// byte) stays cache-sized and the two batches in flight, each with its own simdjson parser,
// hold little memory. 128 KiB, measured on this project's 2-core VM: against 256 KiB the same
// or less CPU (big.json 1.26 s against 1.29-1.30 s) and ~2.3 MB less peak memory (HTA's MTIA
// rank: 21.6 MB against 24 MB, 0.25x its JSON); 64 KiB saved 0.5 MB more but was slower on
// gzip (owlv2 660 against 690 MB/s).
constexpr size_t kBatchBytes = 128u << 10;
// ... and at most this many events, which bounds a batch's parsed events (~200 bytes each) for
// input of tiny events ("{}," is 3 bytes): 16384 × 200 B = 3 MiB.
constexpr size_t kBatchEvents = 16384;
// After this many bytes of events the loader estimates how many events the whole file holds
// (from the events so far per byte, and for gzip the compression ratio so far) and reserves the
// trace's columns for them, instead of letting each column double ~20 times. 16 MiB: the
// bytes read ahead of the framer (~2 MiB) skew the gzip ratio by under 15 %, and a smaller
// trace's columns are too small for their growth to matter.
constexpr uint64_t kEstimateAfterBytes = uint64_t{16} << 20;
// The estimate is scaled up by this much: the start of a trace (set-up, warm-up steps) is not
// always as dense as the rest, and reserving too much costs address space, not memory.
constexpr double kReserveMargin = 1.25;

// The bytes read to tell a file's kind when it is no JSON trace (name_foreign_file): a zip's first
// entry name, an HTML page's <html> tag after a doctype and comments, a Perfetto trace's first packets.
constexpr size_t kForeignHeadBytes = 64u << 10;

using simdjson::error_code;
using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string describe_byte(int c) {
  if (c < 0) return "the end of the file";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", c & 0xff);
  return std::string("byte ") + hex;
}

struct StopAtTruncation {};
// holds_trace_events(): the answer, as soon as it is known.
struct FoundEvents {};
struct FoundNoEvents {};

class Reader {
 public:
  Reader(const std::string& path, const LoadOptions& options)
      : path_(printable(path)),
        options_(options),
        source_(path),
        builder_(path),
        parser_(builder_, path, plan_load_threads(load_cores(options))) {
    allocate(kReadBytes);
  }

  // Whether the document holds the events: reads the top-level keys up to 'traceEvents' (or the
  // bare array of a legacy trace), and no event.
  bool probe() {
    probing_ = true;
    try {
      parse_document();
    } catch (const FoundEvents&) {
      return true;
    } catch (const FoundNoEvents&) {
      return false;
    } catch (const LoadError&) {  // broken: the load proper will say how
      return true;
    } catch (const StopAtTruncation&) {
      return true;
    }
    return true;
  }

  Trace run() {
    const auto t0 = Clock::now();
    struct Done {  // the progress display's last call, on success and failure alike
      Reader& r;
      ~Done() {
        try {
          r.report_progress(true);
        } catch (...) {  // a display that fails must not turn a load error into std::terminate
        }
      }
    } done{*this};
    bool truncation = false;
    double framer_seconds = 0;
    if (!parser_.framer_thread()) {
      try {
        parse_document();
      } catch (const StopAtTruncation&) {
        truncation = true;
      }
    } else {
      // The framer on a thread of its own, this thread building behind it. The framer's error
      // (a syntax error, a truncation) waits until the batches before it are built: an error
      // in one of them is the load's, as on one thread.
      std::exception_ptr framer_error;
      std::thread framer([&] {
        const auto f0 = Clock::now();
        try {
          parse_document();
        } catch (const StopAtTruncation&) {
          truncation = true;
        } catch (const ParsePipeline::Cancelled&) {  // the builder failed: its error is the load's
        } catch (...) {
          framer_error = std::current_exception();
        }
        framer_seconds = seconds(Clock::now() - f0);
        parser_.end_of_input();
      });
      try {
        while (parser_.build_next()) report_progress(false);
      } catch (...) {
        parser_.cancel();
        framer.join();
        throw;
      }
      framer.join();
      if (framer_error) std::rethrow_exception(framer_error);
    }
    publish_progress();
    Trace& t = builder_.trace();
    t.truncated = truncation;
    t.input_bytes = base_ + len_;
    t.replaced_control_chars = parser_.replaced_control_chars() + replaced_control_chars_;
    LoadTimes& times = t.load_times;
    (source_.compressed() ? times.inflate : times.read) = source_.produce_seconds();
    times.wait = source_.wait_seconds();
    times.parse = parser_.parse_seconds();
    // The framer's thread (this one, or its own) less its waits: on this thread, framing,
    // waiting for input, parsing when the parser threads are behind, building, and waiting for a
    // parser thread to finish the next batch to build; on a thread of its own, framing, waiting
    // for input and waiting for the builder to free a slot.
    // A plain file's reading happens on the framer's thread too, timed as `read`.
    const double own_read = source_.reads_on_caller_thread() ? times.read : 0;
    times.frame = parser_.framer_thread()
                      ? framer_seconds - times.wait - own_read - parser_.slot_wait_seconds()
                      : seconds(Clock::now() - t0) - parser_.build_seconds() - times.wait - own_read -
                            parser_.caller_parse_seconds();
    const auto t1 = Clock::now();
    // The batches, their parsers and the read buffer are done with: freed before finish()
    // builds its tables, whose peak is the load's.
    parser_.close();
    mem_.reset();
    Trace trace = std::move(builder_).finish();
    trace.load_times.build = parser_.build_seconds() + seconds(Clock::now() - t1);
    trace.load_times.total = seconds(Clock::now() - t0);
    return trace;
  }

 private:
  // ---- buffer ----
  // simdjson's padding follows data_[cap_ - 1]: top-level values are parsed in place.
  void allocate(size_t cap) {
    auto mem = std::make_unique_for_overwrite<char[]>(cap + simdjson::SIMDJSON_PADDING + 2);
    if (mem_) std::memcpy(mem.get() + 1, data_, len_);
    mem_ = std::move(mem);
    cap_ = cap;
    data_ = mem_.get() + 1;
    std::memset(data_ + cap_, ' ', simdjson::SIMDJSON_PADDING + 1);
  }

  // Drops the bytes before pos_, reads more; returns how far the kept bytes moved.
  size_t fill() {
    const size_t shift = pos_;
    if (shift > 0) {
      std::memmove(data_, data_ + shift, len_ - shift);
      base_ += shift;
      len_ -= shift;
      pos_ = 0;
    }
    if (len_ == cap_) {  // one value (the one at pos_) is larger than the buffer
      if (cap_ >= options_.max_value_bytes) too_large();
      allocate(std::min(cap_ * 2, std::max(options_.max_value_bytes, kReadBytes)));
    }
    const size_t got = source_.read(data_ + len_, cap_ - len_);
    len_ += got;
    if (got == 0) eof_ = true;
    if (base_ + len_ > options_.max_inflated_bytes) over_limit(options_.max_inflated_bytes, too_much_json());
    return shift;
  }

  int peek() {
    for (;;) {
      while (pos_ < len_ && is_ws(data_[pos_])) ++pos_;
      if (pos_ < len_) return static_cast<unsigned char>(data_[pos_]);
      if (eof_) return -1;
      fill();
    }
  }

  uint64_t offset() const { return base_ + pos_; }

  // Whether data_[pos_] starts a JSON value other than an object: a number, string, array or
  // literal. Such input is valid JSON of the wrong shape (Schema), not broken JSON (Syntax).
  bool starts_json_value() const {
    const char c = data_[pos_];
    if (c == '"' || c == '[' || c == '-' || (c >= '0' && c <= '9')) return true;
    for (const std::string_view lit : {"true", "false", "null"})
      if (len_ - pos_ >= lit.size() && std::string_view(data_ + pos_, lit.size()) == lit) return true;
    return false;
  }
  std::string describe_json_value() const {
    const char c = data_[pos_];
    if (c == '"') return "a string";
    if (c == '[') return "an array";
    if (c == 't' || c == 'f') return "a boolean";
    if (c == 'n') return "null";
    return "a number";
  }

  [[noreturn]] void syntax(const std::string& what) {
    flush();  // an error in an event before this point comes first
    throw LoadError(LoadError::Kind::Syntax, path_ + ": byte " + std::to_string(offset()) + ": " + what,
                    offset());
  }
  [[noreturn]] void schema(const std::string& what) {
    flush();
    throw LoadError(LoadError::Kind::Schema, path_ + ": byte " + std::to_string(offset()) + ": " + what,
                    offset());
  }

  // The value at pos_ (an event, or a top-level value) holds more than max_value_bytes: a few
  // compressed bytes can expand to gigabytes, and the loader holds a whole value in memory.
  [[noreturn]] void too_large() {
    flush();
    const uint64_t mib = options_.max_value_bytes >> 20;
    const std::string what =
        in_events_ ? "event #" + std::to_string(events_parsed_ + spans_.size()) : std::string("a top-level value");
    throw LoadError(LoadError::Kind::TooLarge,
                    path_ + ": byte " + std::to_string(offset()) + ": " + what + " is larger than " +
                        std::to_string(mib) + " MiB, the limit on a single JSON value (run with "
                        "--max-value-size MiB to raise it)",
                    offset());
  }

  // The trace as a whole is over one of the limits on a whole trace (LoadOptions): the message
  // names the limit and the flag that changes it.
  [[noreturn]] void over_limit(uint64_t at, const std::string& what) {
    flush();
    throw LoadError(LoadError::Kind::TooLarge, path_ + ": byte " + std::to_string(at) + ": " + what, at);
  }
  std::string too_many_events() const {
    return "the trace holds more than " + std::to_string(options_.max_events) +
           " events, the limit on a trace's events (run with --max-events N to raise it)";
  }
  std::string too_much_json() const {
    return "the trace holds more than " + std::to_string(options_.max_inflated_bytes >> 20) +
           " MiB of JSON (after gunzip), the limit on a trace's size (run with --max-inflated MiB to raise it)";
  }

  // The file ended before the trace did.
  [[noreturn]] void truncated(const std::string& inside) {
    flush();
    const uint64_t end = base_ + len_;
    const uint64_t complete = events_parsed_;
    if (options_.allow_truncated && complete > 0) {
      builder_.trace().truncated_at_byte = end;
      throw StopAtTruncation{};
    }
    std::string msg = path_ + ": truncated: the file ends at byte " + std::to_string(end) + " " +
                      inside + " (the program that wrote it probably stopped mid-write). ";
    if (complete > 0)
      msg += std::to_string(complete) +
             " complete events come before the cut; run with --allow-truncated to analyze them.";
    else
      msg += "No complete event comes before the cut.";
    throw LoadError(LoadError::Kind::Truncated, msg, end);
  }

  // The limit on one value (the one at pos_, ending at `end`), also for a value that fits the
  // read buffer (fill() meets the larger ones when the buffer would outgrow the limit).
  size_t within_limit(size_t end) {
    if (end - pos_ > options_.max_value_bytes) too_large();
    return end;
  }

  // Scans one JSON value starting at pos_ to its end, refilling as needed; returns its end.
  size_t scan_value() {
    const int c = peek();
    if (c == '{' || c == '[' || c == '"') {
      FrameScan st;
      size_t scanned = pos_;
      for (;;) {
        const size_t end = scan_value_end(data_, scanned, len_, st);
        if (st.depth == 0 && !st.in_string) return within_limit(end);
        if (eof_) truncated("inside a top-level value");
        scanned = len_;
        scanned -= fill();
      }
    }
    // A scalar: runs to the next delimiter.
    size_t i = pos_;
    for (;;) {
      while (i < len_ && !is_ws(data_[i]) && data_[i] != ',' && data_[i] != '}' && data_[i] != ']') ++i;
      if (i < len_ || eof_) return within_limit(i);
      i -= fill();
    }
  }

  // ---- document ----
  void parse_document() {
    const int c = peek();
    if (c < 0) syntax("the file is empty: expected a Chrome/Kineto trace (a JSON object)");
    if (c != '{' && c != '[') name_foreign_file_kind();
    if (c == '{') {
      ++pos_;
      parse_top_object();
    } else if (c == '[') {  // legacy traces: a bare array of events
      if (probing_) throw FoundEvents{};
      ++pos_;
      in_events_ = true;
      parse_events();
      in_events_ = false;
    } else if (starts_json_value()) {  // valid JSON, but not a trace
      schema("not a trace: expected '{' (a Chrome/Kineto trace object) but found " +
             describe_json_value());
    } else {
      syntax("not a JSON trace: expected '{' (a Chrome/Kineto trace object) but found " +
             describe_byte(c));
    }
    const int rest = peek();
    if (rest >= 0) syntax("unexpected " + describe_byte(rest) + " after the end of the trace");
  }

  // A file that is no JSON trace but a kind people mistake for one (a checkpoint, a Perfetto
  // protobuf, an Nsight report, a web page) is named, with the way to record a trace instead. Its
  // kind is read from the file's first bytes, which the buffer still holds from byte 0 (base_ 0)
  // unless the file began with more whitespace than the buffer holds.
  void name_foreign_file_kind() {
    if (base_ != 0) return;
    const size_t at = pos_;
    pos_ = 0;  // fill() keeps the bytes from pos_ on
    while (!eof_ && len_ < kForeignHeadBytes) fill();
    pos_ = at;
    const auto what = name_foreign_file(
        {.head = std::string_view(data_, len_), .whole = eof_, .gzipped = source_.compressed(), .path = path_});
    if (!what) return;
    pos_ = 0;
    syntax(*what);
  }

  void parse_top_object() {
    bool first = true, saw_events = false;
    for (;;) {
      int c = peek();
      if (c < 0) truncated(saw_events ? "after the events, before the closing '}'" : "before 'traceEvents'");
      if (c == '}') {
        ++pos_;
        break;
      }
      if (!first) {
        if (c != ',') syntax("expected ',' or '}' between top-level keys, found " + describe_byte(c));
        ++pos_;
        c = peek();
      }
      if (c != '"') {
        if (c < 0) truncated("in the top-level object");
        syntax("expected a key (a quoted string) in the top-level object, found " + describe_byte(c));
      }
      const size_t key_end = scan_value();
      const std::string key = top_level_key(key_end);
      pos_ = key_end;
      c = peek();
      if (c != ':') {
        if (c < 0) truncated("after the key \"" + printable(key) + "\"");
        syntax("expected ':' after the key \"" + printable(key) + "\", found " + describe_byte(c));
      }
      ++pos_;
      c = peek();
      if (c < 0) truncated("before the value of \"" + printable(key) + "\"");
      if (key == "traceEvents") {
        // Two arrays: readers disagree on which one counts (the first, the last, both), and
        // annotate would add its track to one of them.
        if (saw_events) schema("'traceEvents' appears twice in the top-level object: which one is the trace?");
        if (probing_) throw FoundEvents{};
        if (c != '[') schema("'traceEvents' must be an array of events, found " + describe_byte(c));
        ++pos_;
        in_events_ = true;
        parse_events();
        in_events_ = false;
        saw_events = true;
      } else {
        const size_t end = scan_value();
        if (end < len_ || !eof_) validate_value(key, end);  // else the file ends in it: truncated
        top_level_value(key, pos_, end);
        pos_ = end;
      }
      first = false;
    }
    if (!saw_events && probing_) throw FoundNoEvents{};
    if (!saw_events)
      schema("the top-level object has no 'traceEvents' array: this JSON is not a Chrome/Kineto trace");
  }

  void parse_events() {
    bool expect_value = true, first = true;
    for (;;) {
      while (pos_ < len_ && is_ws(data_[pos_])) ++pos_;
      if (pos_ == len_) {
        submit();  // fill() moves the buffer's bytes
        if (eof_) truncated(expect_value ? "inside 'traceEvents', before the next event"
                                         : "inside 'traceEvents', before its closing ']'");
        fill();
        continue;
      }
      const char c = data_[pos_];
      if (expect_value) {
        if (c == ']' && first) {
          ++pos_;
          return;
        }
        if (c != '{') {
          flush();
          if (c == ']') syntax("a ',' before ']' in 'traceEvents' (trailing comma)");
          if (starts_json_value())
            schema("expected an event object ('{') in 'traceEvents', found " + describe_json_value());
          syntax("expected an event object ('{') in 'traceEvents', found " + describe_byte(c));
        }
        FrameScan st;
        const size_t end = scan_value_end(data_, pos_, len_, st);
        if (st.depth != 0 || st.in_string) {  // the event continues past the buffer
          submit();
          if (eof_)
            truncated("in the middle of event #" + std::to_string(events_parsed_) +
                      ", which starts at byte " + std::to_string(offset()));
          fill();
          continue;
        }
        within_limit(end);
        if (events_parsed_ + spans_.size() >= options_.max_events) over_limit(offset(), too_many_events());
        spans_.push_back({pos_, end});
        pos_ = end;
        expect_value = false;
        first = false;
        if (end - spans_.front().begin >= kBatchBytes || spans_.size() >= kBatchEvents) submit();
      } else if (c == ',') {
        ++pos_;
        expect_value = true;
      } else if (c == ']') {
        ++pos_;
        flush();
        return;
      } else {
        flush();
        syntax("expected ',' or ']' after event #" + std::to_string(events_parsed_ - 1) +
               ", found " + describe_byte(static_cast<unsigned char>(c)));
      }
    }
  }

  // Hands the framed events to the parser threads.
  void submit() {
    if (spans_.empty()) return;
    uint64_t expected = 0;  // handed to the builder with the batch: this may be the framer's thread
    if (!reserved_ && base_ + pos_ >= kEstimateAfterBytes) {
      reserved_ = true;
      expected = expected_events(events_parsed_ + spans_.size());
    }
    parser_.submit(data_, spans_, base_, events_parsed_, expected);  // copies the events
    events_parsed_ += spans_.size();
    spans_.clear();
    publish_progress();
    if (!parser_.framer_thread()) report_progress(false);  // else the builder reports, on the loading thread
  }

  // The framer's position, for report_progress() on the loading thread.
  void publish_progress() {
    framed_bytes_.store(base_ + pos_, std::memory_order_relaxed);
    framed_events_.store(events_parsed_, std::memory_order_relaxed);
  }

  // The events the whole file will hold, from the `framed` so far (see kEstimateAfterBytes).
  uint64_t expected_events(uint64_t framed_events) const {
    const double framed = static_cast<double>(base_ + pos_);
    double total = static_cast<double>(source_.file_size());
    if (source_.compressed()) {
      const double compressed = static_cast<double>(source_.file_bytes_read());
      if (compressed <= 0) return 0;
      total *= framed / compressed;
    }
    const double expected = static_cast<double>(framed_events) * (total / framed) * kReserveMargin;
    return static_cast<uint64_t>(std::min(expected, static_cast<double>(kNoEvent)));
  }

  void report_progress(bool done) {
    if (!options_.progress) return;
    options_.progress({framed_bytes_.load(std::memory_order_relaxed), source_.file_bytes_read(), source_.file_size(),
                       framed_events_.load(std::memory_order_relaxed), done});
  }
  // ... and waits until they and all before them are in the trace: before an error, so that an
  // earlier event's error wins, and at the end of the events.
  void flush() {
    submit();
    if (!parser_.framer_thread()) parser_.drain();  // else the builder builds them, then the error
  }

  // The top-level key whose string runs from pos_ to key_end, unescaped; JSON that is not valid
  // (an invalid escape, invalid UTF-8) is an error here as anywhere else.
  std::string top_level_key(size_t key_end) {
    const std::string_view raw(data_ + pos_ + 1, key_end - pos_ - 2);
    if (!simdjson::validate_utf8(raw.data(), raw.size())) syntax("a top-level key is not valid UTF-8");
    if (raw.find('\\') == std::string_view::npos) return std::string(raw);
    std::string key;
    try {
      unescape_json_string(raw.data(), key);
    } catch (const JsonStringError& e) {
      pos_ += 1 + e.offset;
      syntax(std::string("a top-level key holds ") + e.what);
    }
    return key;
  }

  // Top-level values other than traceEvents are small (device lists, distributed info, names)
  // and most go unread: a full DOM parse checks all of them, so broken JSON there is an error.
  void validate_value(const std::string& key, size_t end) {
    error_code err = dom_parser_.parse(data_ + pos_, end - pos_, false).error();
    if (err == simdjson::UNESCAPED_CHARS) {  // tolerated as in events: blanked and counted
      replaced_control_chars_ += blank_control_chars_in_strings(data_, pos_, end);
      err = dom_parser_.parse(data_ + pos_, end - pos_, false).error();
    }
    if (err)
      syntax("the value of the top-level key \"" + printable(key) + "\" is not valid JSON: " +
             simdjson::error_message(err));
  }

  // Top-level keys other than traceEvents: the few whyslow reads, parsed in place.
  void top_level_value(const std::string& key, size_t begin, size_t end) {
    Trace& t = builder_.trace();
    const std::string_view text(data_ + begin, end - begin);
    if (key == "baseTimeNanoseconds") {
      t.base_time_ns = integer_text_to_i64(text).value_or(0);
    } else if (key == "schemaVersion") {
      t.schema_version = static_cast<int>(integer_text_to_i64(text).value_or(0));
    } else if (key == "deviceProperties" || key == "computeProperties") {  // 2021: computeProperties
      read_devices(begin, end);
    } else if (key == "distributedInfo") {
      read_distributed(begin, end);
    }
  }

  // rank / world_size / backend; anything else in it (process groups) is left unread. A value of
  // the wrong type reads as absent: the rank then comes from the file name.
  void read_distributed(size_t begin, size_t end) {
    namespace od = simdjson::ondemand;
    od::parser parser;
    od::document doc;
    od::object obj;
    if (parser.iterate(data_ + begin, end - begin, cap_ + simdjson::SIMDJSON_PADDING - begin).get(doc) || doc.get_object().get(obj))
      return;
    DistributedInfo& info = builder_.trace().distributed;
    for_each_field(obj, [&](std::string_view k, simdjson::ondemand::value& v) {
      int64_t n = 0;
      std::string_view s;
      if (k == "backend") {
        if (!v.get_string().get(s)) info.backend = std::string(s);
      } else if (!v.get_int64().get(n) && n >= 0 && n <= INT32_MAX) {
        if (k == "rank") info.rank = static_cast<int32_t>(n);
        else if (k == "world_size") info.world_size = static_cast<int32_t>(n);
      }
    });
  }

  // Calls each(key, value) for the fields of a small top-level object, up to the first malformed one.
  template <typename Each>
  static void for_each_field(simdjson::ondemand::object& obj, Each each) {
    for (auto fr : obj) {
      simdjson::ondemand::field f;
      if (std::move(fr).get(f)) break;
      std::string_view k;
      if (f.unescaped_key().get(k)) break;
      simdjson::ondemand::value v = f.value();
      each(k, v);
    }
  }

  void read_devices(size_t begin, size_t end) {
    namespace od = simdjson::ondemand;
    od::parser parser;
    od::document doc;
    od::array arr;
    if (parser.iterate(data_ + begin, end - begin, cap_ + simdjson::SIMDJSON_PADDING - begin).get(doc) ||
        doc.get_array().get(arr)) {
      pos_ = begin;
      schema("'deviceProperties' must be an array of objects");
    }
    for (auto item : arr) {
      od::object obj;
      if (item.get_object().get(obj)) continue;
      DeviceInfo d;
      for_each_field(obj, [&](std::string_view k, od::value& v) {
        int64_t n = 0;
        std::string_view s;
        if (k == "name") {
          if (!v.get_string().get(s)) d.name = std::string(s);
        } else if (!v.get_int64().get(n)) {
          if (k == "id") d.id = static_cast<int32_t>(n);
          else if (k == "numSms" || k == "multiProcessorCount") d.num_sms = static_cast<int32_t>(n);
          else if (k == "totalGlobalMem") d.total_global_mem = n;
          else if (k == "computeMajor" || k == "major") d.compute_major = static_cast<int32_t>(n);
          else if (k == "computeMinor" || k == "minor") d.compute_minor = static_cast<int32_t>(n);
        }
      });
      builder_.trace().devices.push_back(std::move(d));
    }
  }

  std::string path_;
  LoadOptions options_;
  InputSource source_;
  TraceBuilder builder_;
  ParsePipeline parser_;
  std::unique_ptr<char[]> mem_;
  char* data_ = nullptr;
  size_t cap_ = 0, len_ = 0, pos_ = 0;
  uint64_t base_ = 0;
  bool eof_ = false;
  uint64_t events_parsed_ = 0;
  bool reserved_ = false;  // the columns were reserved for expected_events()
  std::atomic<uint64_t> framed_bytes_{0}, framed_events_{0};  // publish_progress()
  std::vector<EventSpan> spans_;
  uint64_t replaced_control_chars_ = 0;  // in top-level values; the parser counts the events'
  bool in_events_ = false;  // inside the traceEvents array: the value at pos_ is an event
  bool probing_ = false;    // probe(): stop at the events
  simdjson::dom::parser dom_parser_;
};

}  // namespace

Trace load_trace(const std::string& path, const LoadOptions& options) {
  return Reader(path, options).run();
}

bool holds_trace_events(const std::string& path) {
  try {
    return Reader(path, LoadOptions{.cores = 1}).probe();
  } catch (const LoadError&) {  // it cannot be opened: the load proper will say so
    return true;
  }
}

}  // namespace whyslow
