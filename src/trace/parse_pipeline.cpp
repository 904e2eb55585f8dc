#include "trace/parse_pipeline.hpp"

#include <algorithm>
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

// With three parsers or fewer, one thread frames and builds (and parses when it would wait):
// parsing a batch costs about what framing and building it cost together, so on two cores one
// parser thread and that thread share the work. From four cores on, framing and building on
// one thread would hold back the parsers (framing ~0.2 s and building ~0.2 s per 540 MB, parsing
// ~0.8 s spread): the framer gets a thread, the loader's thread builds, the rest parse.
constexpr unsigned kMinCoresForFramerThread = 4;
// Parser threads at most: the framer and the builder each take ~0.2 s per 540 MB, so past about
// six parsers (parsing ~0.8 s of CPU / 6 ≈ 0.13 s) more would wait on them.
constexpr size_t kMaxParserThreads = 6;

}  // namespace

LoadThreads plan_load_threads(unsigned cores) {
  if (cores >= kMinCoresForFramerThread) return {true, std::min<size_t>(cores - 2, kMaxParserThreads)};
  return {false, cores > 1 ? size_t{cores} - 1 : 1};
}

namespace {

// Batches in flight per parsing thread: one being parsed and one parsed, waiting to be built.
// More would only hold more memory: each holds ~128 KiB of JSON plus simdjson's index of it.
constexpr size_t kSlotsPerParser = 2;

}  // namespace

// Batches are numbered in submission order; batch n lives in slot n % slots.size(). Parsing
// threads (and the caller) claim queued batches in order, so the oldest queued batch is always
// the next one claimed.
struct ParsePipeline::Shared {
  enum class SlotState { Free, Queued, Parsing, Parsed };

  Shared(std::string p, size_t parsers)
      : path(std::move(p)), slots((parsers + 1) * kSlotsPerParser), state(slots.size()) {
    for (size_t i = 0; i < parsers; ++i) threads.emplace_back([this] { parse_all(); });
  }
  ~Shared() {
    {
      std::lock_guard lock(m);
      stop = true;
    }
    cv.notify_all();
    for (std::thread& t : threads) t.join();
  }

  // A parser thread: claims and parses queued batches until stopped.
  void parse_all() {
    for (;;) {
      size_t k;
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stop || claimed < queued; });
        if (stop) return;
        k = claim_locked();
      }
      parse_claimed(k);
    }
  }

  // With m held and claimed < queued: the oldest unclaimed batch's slot, now Parsing.
  size_t claim_locked() {
    const size_t k = claimed++ % slots.size();
    state[k] = SlotState::Parsing;
    return k;
  }

  void parse_claimed(size_t k) {
    parse_batch(slots[k], path);
    {
      std::lock_guard lock(m);
      state[k] = SlotState::Parsed;
    }
    cv.notify_all();
  }

  std::string path;
  std::vector<ParsedBatch> slots;
  std::vector<SlotState> state;
  uint64_t queued = 0, claimed = 0;  // batches
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  bool input_ended = false;  // with a framer thread: end_of_input() came
  bool cancelled = false;    // with a framer thread: the builder gave up
  std::vector<std::thread> threads;
};

ParsePipeline::ParsePipeline(TraceBuilder& builder, std::string path, LoadThreads threads)
    : builder_(builder),
      path_(printable(path)),
      framer_thread_(threads.framer_thread),
      shared_(std::make_unique<Shared>(path_, threads.parsers)) {}

ParsePipeline::~ParsePipeline() = default;

void ParsePipeline::submit(const char* buf, const std::vector<EventSpan>& spans, uint64_t buf_file_offset,
                           uint64_t first_index, uint64_t expected_events) {
  if (spans.empty()) return;
  const size_t k = submitted_ % shared_->slots.size();
  if (!framer_thread_) {
    if (submitted_ - built_ == shared_->slots.size()) build_oldest();
  } else {  // the builder frees slots; wait for this one
    std::unique_lock lock(shared_->m);
    if (shared_->state[k] != Shared::SlotState::Free || shared_->cancelled) {
      const auto t0 = std::chrono::steady_clock::now();
      shared_->cv.wait(lock, [&] { return shared_->state[k] == Shared::SlotState::Free || shared_->cancelled; });
      slot_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (shared_->cancelled) throw Cancelled{};
  }
  ParsedBatch& b = shared_->slots[k];
  // bytes[0] is left for the '[' the parser writes; the ']' goes after the last event.
  const size_t first = spans.front().begin, len = spans.back().end - first;
  if (b.capacity < len + 2 + simdjson::SIMDJSON_PADDING) {
    b.capacity = len + 2 + simdjson::SIMDJSON_PADDING;
    b.bytes = std::make_unique_for_overwrite<char[]>(b.capacity);
  }
  std::memcpy(b.bytes.get() + 1, buf + first, len);
  std::memset(b.bytes.get() + 1 + len, ' ', simdjson::SIMDJSON_PADDING + 1);  // simdjson reads the padding
  b.spans.resize(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) b.spans[i] = {spans[i].begin - first + 1, spans[i].end - first + 1};
  b.bytes_file_offset = buf_file_offset + first - 1;
  b.first_index = first_index;
  b.expected_events = expected_events;
  {
    std::lock_guard lock(shared_->m);
    shared_->state[k] = Shared::SlotState::Queued;
    ++shared_->queued;
  }
  // notify_all: with a framer thread the builder may wait on the same condition as the parsers.
  if (framer_thread_) shared_->cv.notify_all();
  else shared_->cv.notify_one();
  ++submitted_;
}

void ParsePipeline::close() { shared_.reset(); }

void ParsePipeline::drain() {
  while (built_ < submitted_) build_oldest();
}

void ParsePipeline::end_of_input() {
  {
    std::lock_guard lock(shared_->m);
    shared_->input_ended = true;
  }
  shared_->cv.notify_all();
}

bool ParsePipeline::build_next() {
  {
    std::unique_lock lock(shared_->m);
    shared_->cv.wait(lock, [&] { return shared_->queued > built_ || shared_->input_ended; });
    if (shared_->queued == built_) return false;  // input ended, everything built
  }
  build_oldest();
  return true;
}

void ParsePipeline::cancel() {
  {
    std::lock_guard lock(shared_->m);
    shared_->cancelled = true;
  }
  shared_->cv.notify_all();
}

void ParsePipeline::build_oldest() {
  Shared& s = *shared_;
  const size_t k = built_ % s.slots.size();
  for (;;) {  // until the oldest batch is parsed: parse queued batches here rather than wait
    std::unique_lock lock(s.m);
    if (s.state[k] == Shared::SlotState::Parsed) break;
    if (s.claimed < s.queued) {
      const size_t mine = s.claim_locked();
      lock.unlock();
      s.parse_claimed(mine);
      caller_parse_seconds_ += s.slots[mine].parse_seconds;  // timed by parse_batch; the slot is ours until built
      continue;
    }
    s.cv.wait(lock, [&] { return s.state[k] == Shared::SlotState::Parsed; });
    break;
  }
  ParsedBatch& b = s.slots[k];
  ++built_;  // built or failed: either way it is no longer queued
  parse_seconds_ += b.parse_seconds;
  const auto t0 = std::chrono::steady_clock::now();
  struct Release {  // the slot is free again once built, even when building throws
    Shared& s; size_t k; ParsePipeline& p; std::chrono::steady_clock::time_point t0;
    ~Release() {
      p.build_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      {
        std::lock_guard lock(s.m);
        s.state[k] = Shared::SlotState::Free;
      }
      if (p.framer_thread_) s.cv.notify_all();  // the framer may wait for this slot
    }
  } release{s, k, *this, t0};
  build(b);
}

// Adds a parsed batch to the builder: interns its strings in the order the parser met them
// (so names get the ids a one-thread load gives them), checks the times that depend on the
// events before, and throws the batch's parse error after the events that precede it.
void ParsePipeline::build(ParsedBatch& b) {
  if (b.expected_events) builder_.reserve(b.expected_events);
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
    const auto add_timed = [&](const ParsedEvent& x) {
      if (const char* wrong = times_.add(x)) {
        throw LoadError(LoadError::Kind::Schema,
                        path_ + ": byte " + std::to_string(be.file_offset) + " (event #" +
                            std::to_string(b.first_index + i) + "): " + wrong,
                        be.file_offset);
      }
      builder_.add_event(x);
    };
    switch (e.ph) {
      case 'X': case 'i': case 'I': add_timed(e); break;
      case 'B':
        if (!builder_.open_duration(e))
          throw LoadError(LoadError::Kind::TooLarge,
                          path_ + ": byte " + std::to_string(be.file_offset) + " (event #" +
                              std::to_string(b.first_index + i) + "): more than " + std::to_string(kMaxOpenDurations) +
                              " \"B\" events open at once (each waits for its \"E\"), the limit no real trace meets "
                              "(they nest a few hundred deep): the trace's \"E\" events are missing",
                          be.file_offset);
        break;
      case 'E':
        if (const ParsedEvent* x = builder_.close_duration(e)) add_timed(*x);
        break;
      case 'M': builder_.add_metadata(e); break;
      case 's': case 'f': builder_.add_flow(e); break;
      default: builder_.count_ignored(e.ph); break;
    }
  }
  if (b.error) std::rethrow_exception(b.error);
}

}  // namespace whyslow
