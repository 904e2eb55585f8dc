// `annotate` reads its input twice: once to load and analyze it, once to copy it byte for byte
// into the output. A regular file can be read twice; a pipe or a terminal (`annotate /dev/stdin`)
// cannot, so such an input is first copied, once, into a private temporary file that both passes
// read and that goes away with this object.
#pragma once

#include <string>

#include "trace/load_trace.hpp"

namespace whyslow {

class RereadableInput {
 public:
  // Throws LoadError (Io) when the input cannot be opened or copied.
  explicit RereadableInput(std::string path);
  ~RereadableInput();
  RereadableInput(const RereadableInput&) = delete;
  RereadableInput& operator=(const RereadableInput&) = delete;

  // The input as the user named it, for messages and for refusing to write over it.
  const std::string& name() const { return name_; }
  // The file to read: the input itself, or its copy.
  const std::string& path() const { return copy_.empty() ? name_ : copy_; }
  // load_trace() on path(), with Trace::path and error messages naming the input, not its copy.
  Trace load(const LoadOptions& options) const;

 private:
  std::string name_;
  std::string copy_;  // empty when the input is a regular file
};

}  // namespace whyslow
