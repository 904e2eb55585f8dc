// One batch of events as the parser thread leaves it for the builder: numbers converted, strings
// still text (views into the batch's own bytes, simdjson's string buffer or `owned`). Interning
// happens on the builder's thread, in the order the parser met the strings, so the string pool
// numbers names exactly as a one-thread load does.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "common/same_bytes.hpp"
#include "trace/trace_builder.hpp"

namespace whyslow {

struct EventSpan {
  size_t begin, end;  // byte range of one event in the buffer
};

// Which ParsedEvent name field a string goes to.
enum class TextField : uint8_t {
  Name, Category, Pid, Tid, InputDims, InputType, InputStrides, ConcreteInputs, SyncKind, MetaValue,
  CommDtype, CommCollective, CommGroupName, CommGroupId  // record_param_comms args
};
inline constexpr size_t kTextFields = static_cast<size_t>(TextField::CommGroupId) + 1;

inline constexpr uint32_t kAbsentText = UINT32_MAX;

struct EventText {
  TextField field;
  uint32_t text;  // index into BatchStrings::distinct, or kAbsentText (the field is kNoName)
};

// A batch's distinct strings in the order of their first occurrence, so the builder interns each
// once per batch (a batch repeats the same few dozen names hundreds of times) and in the order a
// one-thread load would. Filled on the parser thread, which also hashes them for the pool.
class BatchStrings {
 public:
  uint32_t add(std::string_view s);
  void clear();
  std::vector<std::string_view> distinct;
  std::vector<uint64_t> hashes;  // StringPool::hash of each

 private:
  void grow();
  std::vector<uint32_t> table_ = std::vector<uint32_t>(1024, kAbsentText);  // open addressing
  std::vector<uint32_t> used_;  // the slots of table_ in use, for clear()
};

struct BatchEvent {
  ParsedEvent event;      // its NameId fields are filled in by the builder
  uint32_t texts_end;     // this event's strings are texts[previous event's texts_end, texts_end)
  uint64_t file_offset;   // where the event starts in the (uncompressed) input
};

struct ParsedBatch {
  // The batch's own copy of its bytes: byte 0 is free for the '[' simdjson sees, and
  // simdjson's padding follows the ']'.
  std::unique_ptr<char[]> bytes;
  size_t capacity = 0;
  std::vector<EventSpan> spans;  // in `bytes`
  uint64_t bytes_file_offset = 0;  // position of bytes[0] in the input
  uint64_t first_index = 0;        // number of the batch's first event in traceEvents
  uint64_t expected_events = 0;    // the framer's estimate for TraceBuilder::reserve (0: none)

  simdjson::ondemand::parser parser;  // owns the string buffer texts point into
  std::vector<BatchEvent> events;     // the events parsed before `error`, in order
  std::vector<EventText> texts;
  BatchStrings strings;
  std::deque<std::string> owned;      // strings unescaped by whyslow itself (rare)
  uint64_t replaced_control_chars = 0;
  std::exception_ptr error;           // the batch's first error, after `events`
  double parse_seconds = 0;
};

// Appends an event's strings to its batch's texts, each distinct string added to the batch's
// table once. Each field's previous string and its index are kept: an event's category, pid and
// tid (often its name) repeat the previous event's, and one compare is cheaper than hashing.
struct BatchTextWriter {
  explicit BatchTextWriter(ParsedBatch& b) : batch(b) {}
  // `text` without data (a default string_view) is the absent name, kNoName; "" is the empty one.
  void text(TextField field, std::string_view text) {
    uint32_t index = kAbsentText;
    if (text.data()) {
      auto& [previous, previous_index] = last[static_cast<size_t>(field)];
      if (!previous.data() || !same_bytes(text, previous)) {
        previous = text;
        previous_index = batch.strings.add(text);
      }
      index = previous_index;
    }
    batch.texts.push_back({field, index});
  }
  ParsedBatch& batch;
  std::array<std::pair<std::string_view, uint32_t>, kTextFields> last{};
};

// Parses batch.bytes / batch.spans into batch.events and batch.texts; an error (LoadError naming
// the event) is stored in batch.error after the events before it. Touches nothing but `batch`.
// `path` is the file as messages print it.
void parse_batch(ParsedBatch& batch, const std::string& path);

}  // namespace whyslow
