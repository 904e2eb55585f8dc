// The splice: every byte of the input goes to the output unchanged, except that the findings
// track is inserted just before the ']' that closes traceEvents. Finding that ']' needs only the
// top level of the document (keys and the extent of their values); the events array itself is
// skipped with the loader's SIMD framer, so this runs at copying speed on a 500 MB trace.
#include "report/annotate/annotate_trace.hpp"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "report/annotate/annotate_events.hpp"
#include "trace/input_source.hpp"
#include "trace/json_framer.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;

constexpr size_t kChunkBytes = 1u << 20;
// zlib level 1: about 3x faster than the default 6 and within ~15 % of its size on trace JSON,
// which matters on traces of hundreds of MB.
constexpr int kGzipLevel = 1;

// A plain or gzip output file.
class Sink {
 public:
  Sink(const std::string& path, bool gzip) : path_(path) {
    if (gzip) {
      gz_ = gzopen(path.c_str(), ("wb" + std::to_string(kGzipLevel)).c_str());
      if (gz_) gzbuffer(gz_, kChunkBytes);
    } else {
      file_ = std::fopen(path.c_str(), "wb");
    }
    if (!gz_ && !file_) throw std::runtime_error("cannot create " + path + ": check that its folder exists and is writable");
  }
  ~Sink() {
    if (gz_) gzclose(gz_);
    if (file_) std::fclose(file_);
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  void write(const char* data, size_t n) {
    if (n == 0) return;
    const bool ok = gz_ ? gzwrite(gz_, data, static_cast<unsigned>(n)) == static_cast<int>(n)
                        : std::fwrite(data, 1, n, file_) == n;
    if (!ok) throw std::runtime_error("cannot write " + path_ + " (disk full?)");
  }
  void close() {
    const bool ok = gz_ ? gzclose(gz_) == Z_OK : std::fclose(file_) == 0;
    gz_ = nullptr;
    file_ = nullptr;
    if (!ok) throw std::runtime_error("cannot finish writing " + path_ + " (disk full?)");
  }

 private:
  std::string path_;
  gzFile gz_ = nullptr;
  FILE* file_ = nullptr;
};

// Finds the ']' closing traceEvents while the bytes stream through.
class TopLevelScanner {
 public:
  // Scans data[from, n); returns the offset of the closing ']' or n when it is not in this chunk.
  // Sets `empty` when the array has no events (the insertion then needs no leading comma).
  size_t find_events_end(const char* data, size_t from, size_t n, bool& empty) {
    for (size_t i = from; i < n;) {
      const char c = data[i];
      switch (state_) {
        case State::Start:
          if (c == '{') state_ = State::KeyOrEnd;
          else if (c == '[') state_ = State::EventsFirst;  // a bare array of events (old traces)
          ++i;
          break;
        case State::KeyOrEnd:
          if (c == '"') {
            state_ = State::Key;
            key_.clear();
          } else if (c == '}') {
            throw std::runtime_error("the trace has no traceEvents array");
          }
          ++i;
          break;
        case State::Key:
          if (escaped_) escaped_ = false;
          else if (c == '\\') escaped_ = true;
          else if (c == '"') state_ = State::Colon;
          if (state_ == State::Key) key_ += c;
          ++i;
          break;
        case State::Colon:
          if (c == ':') state_ = State::Value;
          ++i;
          break;
        case State::Value:
          if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            ++i;
          } else if (key_ == "traceEvents" && c == '[') {
            state_ = State::EventsFirst;
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
          if (scan_.depth == 0 && !scan_.in_string) state_ = State::KeyOrEnd;
          break;
        case State::Scalar:  // a number or literal: ends at the ',' or '}' after it
          if (c == ',' || c == '}') state_ = State::KeyOrEnd;
          else ++i;
          break;
        case State::EventsFirst:
          if (c == ']') {
            empty = true;
            return i;
          }
          if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            ++i;
          } else {
            state_ = State::Events;
            scan_ = FrameScan{};
            scan_.depth = 1;  // inside the array: its ']' takes the depth to 0
          }
          break;
        case State::Events: {
          const size_t end = scan_value_end(data, i, n, scan_);
          if (scan_.depth == 0 && !scan_.in_string) {
            empty = false;
            return end - 1;
          }
          i = end;
          break;
        }
      }
    }
    return n;
  }

 private:
  enum class State { Start, KeyOrEnd, Key, Colon, Value, Nested, Scalar, EventsFirst, Events };
  State state_ = State::Start;
  std::string key_;
  bool escaped_ = false;
  FrameScan scan_;
};

std::string insertion(const report::FindingsTrack& track, bool leading_comma) {
  std::string s = leading_comma ? ",\n" : "\n";
  for (size_t i = 0; i < track.events.size(); ++i) s.append(track.events[i]).append(i + 1 < track.events.size() ? ",\n" : "\n");
  return s;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void write_annotated_trace(const std::string& input, const std::string& output, const Trace& trace,
                           const Facts& facts, const std::vector<Finding>& findings) {
  std::error_code ec;
  if (fs::exists(output, ec) && fs::equivalent(input, output, ec))
    throw std::runtime_error(output + " is the input trace: write the annotated trace to another file");
  const report::FindingsTrack track = report::findings_track(trace, facts, findings);
  const std::string temp = output + ".whyslow-partial";
  try {
    InputSource in(input);
    Sink out(temp, ends_with(output, ".gz"));
    TopLevelScanner scanner;
    const auto buffer = std::make_unique<char[]>(kChunkBytes);
    bool inserted = false;
    for (size_t n; (n = in.read(buffer.get(), kChunkBytes)) > 0;) {
      size_t from = 0;
      if (!inserted) {
        bool empty = false;
        const size_t at = scanner.find_events_end(buffer.get(), 0, n, empty);
        if (at < n) {
          out.write(buffer.get(), at);
          const std::string text = insertion(track, !empty);
          out.write(text.data(), text.size());
          from = at;
          inserted = true;
        }
      }
      out.write(buffer.get() + from, n - from);
    }
    if (!inserted) throw std::runtime_error(input + " ends before its traceEvents array does");
    out.close();
    fs::rename(temp, output);
  } catch (...) {
    fs::remove(temp, ec);
    throw;
  }
}

}  // namespace whyslow
