// The splice: every byte of the input goes to the output unchanged, except that the findings
// track is inserted just before the ']' that closes traceEvents. Finding that ']' needs only the
// top level of the document (keys and the extent of their values); each event is skipped with the
// loader's SIMD framer, so this runs at copying speed on a 500 MB trace. A truncated input (loaded
// with --allow-truncated) is cut after its last complete event, as the loader cut it, and closed.
#include "report/annotate/annotate_trace.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>

#include "output/output_file.hpp"
#include "report/annotate/annotate_events.hpp"
#include "trace/input_source.hpp"
#include "trace/json_framer.hpp"
#include "trace/json_string.hpp"

namespace whyslow {
namespace {

constexpr size_t kChunkBytes = 1u << 20;
// zlib level 1: about 3x faster than the default 6 and within ~15 % of its size on trace JSON,
// which matters on traces of hundreds of MB.
constexpr int kGzipLevel = 1;

// Walks the document's top level as its bytes stream through: finds the ']' that closes
// traceEvents, and remembers the end of the last complete value (an event, or a top-level value),
// where a truncated input is cut.
class TopLevelScanner {
 public:
  // Scans data[from, n) of the chunk that starts at input offset `base`. Returns the index of the
  // ']' closing traceEvents (the next scan consumes it) or n when it is not in [from, n).
  size_t scan(const char* data, size_t from, size_t n, uint64_t base) {
    for (size_t i = from; i < n;) {
      const char c = data[i];
      switch (state_) {
        case State::Start:
          if (c == '{') {
            object_ = true;
            state_ = State::KeyOrEnd;
          } else if (c == '[') {  // a bare array of events (old traces)
            state_ = State::EventsFirst;
            safe_end_ = base + i + 1;
          }
          ++i;
          break;
        case State::KeyOrEnd:
          if (c == '"') {
            state_ = State::Key;
            key_.clear();
          } else if (c == '}') {
            if (!events_started_) throw std::runtime_error("the trace has no traceEvents array");
            state_ = State::Done;
            safe_end_ = base + i + 1;
          }
          ++i;
          break;
        case State::Key:
          if (escaped_) escaped_ = false;
          else if (c == '\\') escaped_ = true;
          else if (c == '"') state_ = State::Colon;
          if (state_ == State::Key) key_ += c;
          else unescape_key();
          ++i;
          break;
        case State::Colon:
          if (c == ':') state_ = State::Value;
          ++i;
          break;
        case State::Value:
          if (is_space(c)) {
            ++i;
          } else if (key_ == "traceEvents" && c == '[') {
            state_ = State::EventsFirst;
            safe_end_ = base + i + 1;
            ++i;
          } else if (c == '{' || c == '[' || c == '"') {
            state_ = State::Nested;
            scan_ = FrameScan{};
          } else {
            state_ = State::Scalar;
          }
          break;
        case State::Nested:
          i = scan_value_end(data, i, n, scan_);
          if (scan_.depth == 0 && !scan_.in_string) complete_top_level_value(base + i);
          break;
        case State::Scalar:  // a number or literal: ends at the ',' or '}' after it
          if (c == ',' || c == '}') complete_top_level_value(base + i);
          else ++i;
          break;
        case State::EventsFirst:
        case State::EventsNext:
          events_started_ = true;
          if (is_space(c)) {
            ++i;
          } else if (c == ']' && state_ == State::EventsFirst) {
            state_ = State::EventsClose;
            return i;
          } else {  // an event: the loader read this input, so it is an object
            state_ = State::Event;
            scan_ = FrameScan{};
          }
          break;
        case State::Event:
          i = scan_value_end(data, i, n, scan_);
          if (scan_.depth == 0 && !scan_.in_string) {
            saw_event_ = true;
            safe_end_ = base + i;
            state_ = State::AfterEvent;
          }
          break;
        case State::AfterEvent:
          if (c == ',') {
            state_ = State::EventsNext;
          } else if (c == ']') {
            state_ = State::EventsClose;
            return i;
          }
          ++i;
          break;
        case State::EventsClose:  // the ']' found by the previous scan
          ++i;
          events_closed_ = true;
          if (object_) {
            complete_top_level_value(base + i);
          } else {
            state_ = State::Done;
            safe_end_ = base + i;
          }
          break;
        case State::Done:
          ++i;
          break;
      }
    }
    return n;
  }

  bool done() const { return state_ == State::Done; }
  bool events_started() const { return events_started_; }
  bool events_closed() const { return events_closed_; }
  bool saw_event() const { return saw_event_; }
  bool object() const { return object_; }
  // Input offset one past the last complete event or top-level value.
  uint64_t safe_end() const { return safe_end_; }

 private:
  enum class State { Start, KeyOrEnd, Key, Colon, Value, Nested, Scalar, EventsFirst, EventsNext, Event,
                     AfterEvent, EventsClose, Done };
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  // "trace\u0045vents" is "traceEvents" to the loader (and to any JSON reader): to this scanner too.
  void unescape_key() {
    if (key_.find('\\') == std::string::npos) return;
    const std::string raw = key_ + '"';
    std::string key;
    try {
      unescape_json_string(raw.data(), key);
    } catch (const JsonStringError&) {  // the loader refused such input before: keep the raw key
      return;
    }
    key_ = std::move(key);
  }
  void complete_top_level_value(uint64_t end) {
    state_ = State::KeyOrEnd;
    if (events_started_) safe_end_ = end;
  }

  State state_ = State::Start;
  std::string key_;
  bool escaped_ = false;
  bool object_ = false;
  bool events_started_ = false, events_closed_ = false, saw_event_ = false;
  uint64_t safe_end_ = 0;
  FrameScan scan_;
};

// The findings track's events, one per line, ready to go in after the last event.
std::string track_text(const report::FindingsTrack& track) {
  std::string s;
  for (size_t i = 0; i < track.events.size(); ++i) s.append(track.events[i]).append(i + 1 < track.events.size() ? ",\n" : "\n");
  return s;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Copies the input to the output, holding back the bytes after the last complete value until the
// next one completes, so that a truncated input can be cut there.
class Splicer {
 public:
  Splicer(OutputFile& out, const std::string& track) : out_(out), track_(track) {}

  void feed(const char* data, size_t n) {
    data_ = data;
    for (size_t from = 0;;) {
      const size_t at = scanner_.scan(data, from, n, base_);
      if (at == n) break;
      flush_to(base_ + at);  // everything before the ']' closing traceEvents, then the track
      out_.write(scanner_.saw_event() ? ",\n" : "\n");
      out_.write(track_);
      from = at;
    }
    flush_to(scanner_.safe_end());
    const size_t kept_from = written_ > base_ ? static_cast<size_t>(written_ - base_) : 0;
    held_.append(data + kept_from, n - kept_from);
    base_ += n;
  }

  // At the end of the input. A whole document is copied to its last byte; a truncated one (the
  // loader said so) ends with its last complete event or top-level value, then the track if its
  // events array was cut, then the brackets that close what was open.
  void finish(const std::string& input, bool truncated) {
    if (scanner_.done()) {
      out_.write(held_);
      return;
    }
    if (!truncated || !scanner_.events_started())
      throw std::runtime_error(input + " ends before its trace does, though it did not when it was loaded "
                               "(did it change in between?)");
    if (!scanner_.events_closed()) {
      out_.write(scanner_.saw_event() ? ",\n" : "\n");
      out_.write(track_);
      out_.write("]");
    }
    out_.write(scanner_.object() ? "}\n" : "\n");
  }

 private:
  // Writes the held bytes and this chunk's up to input offset `end`.
  void flush_to(uint64_t end) {
    if (end <= written_) return;
    out_.write(held_);
    written_ += held_.size();
    held_.clear();
    out_.write(std::string_view(data_ + (written_ - base_), end - written_));
    written_ = end;
  }

  OutputFile& out_;
  const std::string& track_;
  TopLevelScanner scanner_;
  const char* data_ = nullptr;
  uint64_t base_ = 0;     // input offset of the chunk being fed
  uint64_t written_ = 0;  // input bytes written so far
  std::string held_;      // input bytes [written_, base_)
};

}  // namespace

void write_annotated_trace(const RereadableInput& input, const std::string& output, const Trace& trace,
                           const Facts& facts, const std::vector<Finding>& findings) {
  const report::FindingsTrack track = report::findings_track(trace, facts, findings);
  const std::string text = track_text(track);
  OutputFile out(output, {.gzip = ends_with(output, ".gz"), .gzip_level = kGzipLevel, .inputs = {input.name()}});
  InputSource in(input.path());
  Splicer splicer(out, text);
  const auto buffer = std::make_unique_for_overwrite<char[]>(kChunkBytes);
  for (size_t n; (n = in.read(buffer.get(), kChunkBytes)) > 0;) splicer.feed(buffer.get(), n);
  splicer.finish(input.name(), trace.truncated);
  out.commit();
}

}  // namespace whyslow
