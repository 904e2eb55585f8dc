#include "trace/parse_pipeline.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/terminal_text.hpp"
#include "trace/load_error.hpp"
#include "trace/time_range.hpp"

namespace whyslow {
namespace {

// Batches in flight: one the parser thread works on while the caller builds the other (and
// frames the next). More would only hold more memory: each holds ~1 MiB of JSON plus
// simdjson's index of it.
constexpr size_t kSlots = 2;
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;

enum class SlotState { Free, Queued, Parsed };

}  // namespace

struct ParsePipeline::Shared {
  explicit Shared(std::string p) : path(std::move(p)) { thread = std::thread([this] { parse_all(); }); }
  ~Shared() {
    {
      std::lock_guard lock(m);
      stop = true;
    }
    cv.notify_all();
    thread.join();
  }

  // The parser thread: parses the slots in ring order as the caller queues them.
  void parse_all() {
    for (size_t k = 0;; k = (k + 1) % kSlots) {
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stop || state[k] == SlotState::Queued; });
        if (stop) return;
      }
      parse_batch(slots[k], path);
      {
        std::lock_guard lock(m);
        state[k] = SlotState::Parsed;
      }
      cv.notify_all();
    }
  }

  std::string path;
  ParsedBatch slots[kSlots];
  SlotState state[kSlots] = {};
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  std::thread thread;
};

ParsePipeline::ParsePipeline(TraceBuilder& builder, std::string path)
    : builder_(builder), path_(printable(path)), shared_(std::make_unique<Shared>(path_)) {}

ParsePipeline::~ParsePipeline() = default;

void ParsePipeline::submit(const char* buf, const std::vector<EventSpan>& spans, uint64_t buf_file_offset,
                           uint64_t first_index) {
  if (spans.empty()) return;
  if (submitted_ - built_ == kSlots) build_oldest();
  const size_t k = submitted_ % kSlots;
  ParsedBatch& b = shared_->slots[k];
  // bytes[0] is left for the '[' the parser writes; the ']' goes after the last event.
  const size_t first = spans.front().begin, len = spans.back().end - first;
  if (b.capacity < len + 2 + kPadding) {
    b.capacity = len + 2 + kPadding;
    b.bytes = std::make_unique_for_overwrite<char[]>(b.capacity);
  }
  std::memcpy(b.bytes.get() + 1, buf + first, len);
  std::memset(b.bytes.get() + 1 + len, ' ', kPadding + 1);  // simdjson reads the padding
  b.spans.resize(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) b.spans[i] = {spans[i].begin - first + 1, spans[i].end - first + 1};
  b.bytes_file_offset = buf_file_offset + first - 1;
  b.first_index = first_index;
  {
    std::lock_guard lock(shared_->m);
    shared_->state[k] = SlotState::Queued;
  }
  shared_->cv.notify_all();
  ++submitted_;
}

void ParsePipeline::drain() {
  while (built_ < submitted_) build_oldest();
}

void ParsePipeline::build_oldest() {
  const size_t k = built_ % kSlots;
  {
    std::unique_lock lock(shared_->m);
    shared_->cv.wait(lock, [&] { return shared_->state[k] == SlotState::Parsed; });
  }
  ParsedBatch& b = shared_->slots[k];
  ++built_;  // built or failed: either way it is no longer queued
  parse_seconds_ += b.parse_seconds;
  const auto t0 = std::chrono::steady_clock::now();
  struct Release {  // the slot is free again once built, even when building throws
    Shared& s; size_t k; ParsePipeline& p; std::chrono::steady_clock::time_point t0;
    ~Release() {
      p.build_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard lock(s.m);
      s.state[k] = SlotState::Free;
    }
  } release{*shared_, k, *this, t0};
  build(b);
}

// Adds a parsed batch to the builder: interns its strings in the order the parser met them
// (so names get the ids a one-thread load gives them), checks the times that depend on the
// events before, and throws the batch's parse error after the events that precede it.
void ParsePipeline::build(ParsedBatch& b) {
  replaced_control_chars_ += b.replaced_control_chars;
  StringPool& names = builder_.names();
  ids_.resize(b.strings.distinct.size());
  for (size_t i = 0; i < ids_.size(); ++i) ids_[i] = names.intern(b.strings.distinct[i], b.strings.hashes[i]);
  uint32_t text = 0;
  for (size_t i = 0; i < b.events.size(); ++i) {
    BatchEvent& be = b.events[i];
    ParsedEvent& e = be.event;
    for (; text < be.texts_end; ++text) {
      const EventText& t = b.texts[text];
      const NameId id = t.text == kAbsentText ? kNoName : ids_[t.text];
      switch (t.field) {
        case TextField::Name: e.name = id; break;
        case TextField::Category: e.category = id; break;
        case TextField::Pid: e.pid = id; break;
        case TextField::Tid: e.tid = id; break;
        case TextField::InputDims: e.shapes.input_dims = id; break;
        case TextField::InputType: e.shapes.input_type = id; break;
        case TextField::InputStrides: e.shapes.input_strides = id; break;
        case TextField::ConcreteInputs: e.shapes.concrete_inputs = id; break;
        case TextField::SyncKind: e.sync_kind = id; break;
        case TextField::MetaValue: e.meta_value = id; break;
        case TextField::CommDtype: e.comm.dtype = id; break;
        case TextField::CommCollective: e.comm.collective = id; break;
        case TextField::CommGroupName: e.comm.group = id; break;  // the name wins over the number
        case TextField::CommGroupId: if (e.comm.group == kNoName) e.comm.group = id; break;
      }
    }
    switch (e.ph) {
      case 'X': case 'i': case 'I':
        if (const char* wrong = times_.add(e)) {
          throw LoadError(LoadError::Kind::Schema,
                          path_ + ": byte " + std::to_string(be.file_offset) + " (event #" +
                              std::to_string(b.first_index + i) + "): " + wrong,
                          be.file_offset);
        }
        builder_.add_event(e);
        break;
      case 'M': builder_.add_metadata(e); break;
      case 's': case 'f': builder_.add_flow(e); break;
      default: builder_.count_ignored(); break;
    }
  }
  if (b.error) std::rethrow_exception(b.error);
}

}  // namespace whyslow
