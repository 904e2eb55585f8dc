// Finds where a JSON value ends without parsing it, so the loader can cut the traceEvents
// array into whole events and hand simdjson batches of them out of a fixed-size buffer.
// Tracks only nesting depth and string/escape state; simdjson validates everything else.
#pragma once

#include <cstddef>
#include <cstdint>

namespace whyslow {

struct FrameScan {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;  // the previous byte was a backslash inside a string
};

// Scans data[from, to) continuing `state`. Returns the index one past the end of the value
// (the byte closing the outermost object/array or string) or `to` when the value continues
// past the buffer. The value must start with '{', '[' or '"' at the first scanned byte when
// state is fresh.
size_t scan_value_end(const char* data, size_t from, size_t to, FrameScan& state);

// Replaces raw control bytes (< 0x20) inside strings of data[from, to) with spaces; JSON forbids
// them but some writers emit them. Returns how many were replaced.
size_t blank_control_chars_in_strings(char* data, size_t from, size_t to);

}  // namespace whyslow
