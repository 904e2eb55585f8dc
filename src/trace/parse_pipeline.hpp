// Parses batches of events on parser threads while the framer cuts the next batch and the
// builder builds the oldest parsed one; when that one is not parsed yet, the builder parses a
// queued batch itself instead of waiting, so parsing (the largest cost) spreads over all cores
// while interning and the columns stay on one thread. Two arrangements:
//  - one thread frames and builds (the loader's thread; on up to three cores): submit() builds
//    the oldest batch itself when every slot is taken;
//  - the framer has a thread of its own (four cores or more, where framing and building on one
//    thread would hold back the parsers): submit() waits for the builder to free a slot, and
//    the builder takes batches with build_next() until end_of_input().
// Batches are built in file order, and a batch's error is thrown after the events before it
// are built, so a load fails on the same event, with the same message, as a one-thread load.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/parsed_batch.hpp"
#include "trace/time_range.hpp"
#include "trace/trace_builder.hpp"

namespace whyslow {

// How a load spreads over `cores` cores: whether the framer gets a thread of its own, and how
// many parser threads run besides.
struct LoadThreads {
  bool framer_thread;
  size_t parsers;
};
LoadThreads plan_load_threads(unsigned cores);

class ParsePipeline {
 public:
  // Thrown by submit() on the framer's thread once the builder has given up (cancel()).
  struct Cancelled {};

  ParsePipeline(TraceBuilder& builder, std::string path, LoadThreads threads);
  ~ParsePipeline();
  ParsePipeline(const ParsePipeline&) = delete;
  ParsePipeline& operator=(const ParsePipeline&) = delete;

  // Copies the events `spans` of `buf` (ascending, separated only by commas and whitespace) into
  // a batch of their own and queues it: `buf` may change once this returns. May first build the
  // oldest queued batch, and throw its error. `buf_file_offset` is the position of buf[0] in the
  // (uncompressed) input; `first_index` numbers the first event.
  // `expected_events` (0: none) is the framer's estimate of the file's events, for the builder
  // to reserve the columns by (TraceBuilder::reserve). With a framer thread, called on it.
  void submit(const char* buf, const std::vector<EventSpan>& spans, uint64_t buf_file_offset,
              uint64_t first_index, uint64_t expected_events = 0);
  // One thread: builds every queued batch, in order; throws the first error among them.
  void drain();
  // Framer thread: nothing more will be submitted (after the last batch, or an error).
  void end_of_input();
  // Builder (the loader's thread), with a framer thread: builds the next batch once submitted and
  // parsed; false once end_of_input() came and every batch is built. Throws the batch's error.
  bool build_next();
  // Builder: stop the framer (its submit() throws Cancelled), after a build error.
  void cancel();
  // Stops the parser threads and frees the batches; after a drain(), with nothing submitted since.
  void close();

  bool framer_thread() const { return framer_thread_; }
  uint64_t replaced_control_chars() const { return replaced_control_chars_; }
  double parse_seconds() const { return parse_seconds_; }  // all threads' parsing, summed
  double build_seconds() const { return build_seconds_; }  // on the builder's thread
  // The part of parse_seconds() the builder spent parsing while it would otherwise have waited.
  double caller_parse_seconds() const { return caller_parse_seconds_; }
  // With a framer thread: how long submit() waited for the builder to free a slot.
  double slot_wait_seconds() const { return slot_wait_seconds_; }

 private:
  struct Shared;
  void build_oldest();
  void build(ParsedBatch& batch);

  TraceBuilder& builder_;
  std::string path_;  // as messages print it
  bool framer_thread_;
  std::unique_ptr<Shared> shared_;
  uint64_t submitted_ = 0;  // batches: the framer's count
  uint64_t built_ = 0;      // the builder's
  TimeRange times_;
  std::vector<NameId> ids_;  // the batch's distinct strings → NameIds
  uint64_t replaced_control_chars_ = 0;
  double parse_seconds_ = 0, build_seconds_ = 0, caller_parse_seconds_ = 0, slot_wait_seconds_ = 0;
};

}  // namespace whyslow
