// Parses batches of Kineto events with simdjson On-Demand straight into the TraceBuilder.
// A batch is a run of whole events that the framer found in the read buffer, presented to
// simdjson as one JSON array so its SIMD structural pass runs once per batch, not per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/trace_builder.hpp"

namespace whyslow {

struct EventSpan {
  size_t begin, end;  // byte range of one event in the buffer
};

class EventParser {
 public:
  EventParser(TraceBuilder& builder, std::string path);
  ~EventParser();

  // Parses the events `spans` (ascending, separated only by commas and whitespace) of `buf`.
  // Writes '[' before the first and ']' after the last (restoring both), so buf[first-1] and
  // buf[last.end] must be writable, and `buf_capacity` must leave simdjson's padding readable.
  // `buf_file_offset` is the position of buf[0] in the (uncompressed) input, for messages;
  // `first_index` numbers the batch's first event. Throws LoadError.
  void parse_batch(char* buf, size_t buf_capacity, const std::vector<EventSpan>& spans,
                   uint64_t buf_file_offset, uint64_t first_index);

  uint64_t replaced_control_chars() const { return replaced_control_chars_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t replaced_control_chars_ = 0;
};

}  // namespace whyslow
