// Parses batches of events on parser threads while the loader's thread frames the next batch
// and builds the oldest parsed one; when that one is not parsed yet, the loader's thread parses
// a queued batch itself instead of waiting, so parsing (the largest cost) spreads over all
// cores while framing, interning and the columns stay on the loader's thread. Batches are built in file order, and a batch's error
// is thrown after the events before it are built, so a load fails on the same event, with the
// same message, as a one-thread load would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/parsed_batch.hpp"
#include "trace/time_range.hpp"
#include "trace/trace_builder.hpp"

namespace whyslow {

class ParsePipeline {
 public:
  ParsePipeline(TraceBuilder& builder, std::string path);
  ~ParsePipeline();
  ParsePipeline(const ParsePipeline&) = delete;
  ParsePipeline& operator=(const ParsePipeline&) = delete;

  // Copies the events `spans` of `buf` (ascending, separated only by commas and whitespace) into
  // a batch of their own and queues it: `buf` may change once this returns. May first build the
  // oldest queued batch, and throw its error. `buf_file_offset` is the position of buf[0] in the
  // (uncompressed) input; `first_index` numbers the first event.
  void submit(const char* buf, const std::vector<EventSpan>& spans, uint64_t buf_file_offset,
              uint64_t first_index);
  // Builds every queued batch, in order; throws the first error among them.
  void drain();
  // Stops the parser threads and frees the batches; after a drain(), with nothing submitted since.
  void close();

  uint64_t replaced_control_chars() const { return replaced_control_chars_; }
  double parse_seconds() const { return parse_seconds_; }  // all threads' parsing, summed
  double build_seconds() const { return build_seconds_; }  // on the caller's thread, in drain/submit
  // The part of parse_seconds() the caller spent parsing while it would otherwise have waited.
  double caller_parse_seconds() const { return caller_parse_seconds_; }

 private:
  struct Shared;
  void build_oldest();
  void build(ParsedBatch& batch);

  TraceBuilder& builder_;
  std::string path_;  // as messages print it
  std::unique_ptr<Shared> shared_;
  uint64_t submitted_ = 0, built_ = 0;  // batches
  TimeRange times_;
  std::vector<NameId> ids_;  // the batch's distinct strings → NameIds
  uint64_t replaced_control_chars_ = 0;
  double parse_seconds_ = 0, build_seconds_ = 0, caller_parse_seconds_ = 0;
};

}  // namespace whyslow
