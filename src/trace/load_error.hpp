// The one error the loader throws: it names the file, the byte offset and what was expected,
// so the CLI can print it as is and exit with code 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace whyslow {

class LoadError : public std::runtime_error {
 public:
  // TooLarge: one value is over LoadOptions::max_value_bytes (not a defect of the file).
  enum class Kind { Io, Syntax, Schema, Truncated, TooLarge };
  LoadError(Kind kind, std::string message, uint64_t byte_offset)
      : std::runtime_error(std::move(message)), kind_(kind), byte_offset_(byte_offset) {}
  Kind kind() const { return kind_; }
  uint64_t byte_offset() const { return byte_offset_; }

 private:
  Kind kind_;
  uint64_t byte_offset_;
};

}  // namespace whyslow
