// A trace file's bytes, plain or gzip (detected by its magic bytes, not its name), streamed into
// a caller's buffer. A plain regular file is read straight into that buffer on the caller's
// thread: one copy, out of the page cache. (Mapping it would save that copy, ~3 % of a load, but a
// file truncated while mapped kills the process with SIGBUS — a profiler rewriting the trace
// under the same name does that — and catching SIGBUS means a process-wide signal handler inside
// a library that also runs in Python.) gzip, a pipe or a device is read — and inflated — ahead by
// a background thread into a few fixed chunks, so decompression runs on another core while the
// caller parses. Nothing here holds memory in proportion to the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "trace/raw_file.hpp"

namespace whyslow {

class InputSource {
 public:
  // Throws LoadError(Io) when the file cannot be opened.
  explicit InputSource(const std::string& path);
  ~InputSource();
  InputSource(const InputSource&) = delete;
  InputSource& operator=(const InputSource&) = delete;

  // Fills up to n bytes, fewer only at the end; returns 0 at the end. Throws LoadError on a read
  // or gzip error, after handing out every byte that came before it.
  size_t read(char* dst, size_t n);
  bool compressed() const { return compressed_; }
  // Seconds spent reading and inflating (for a plain file, in read() on the caller's thread:
  // reads_on_caller_thread()), and seconds read() waited for the background thread.
  double produce_seconds() const;
  bool reads_on_caller_thread() const { return direct_ != nullptr; }
  double wait_seconds() const { return wait_seconds_; }
  // The file's size on disk, and how much of it lies behind the bytes produced so far (for
  // gzip, the compressed bytes decoded, not those merely read ahead). Callable from another
  // thread than read()'s (a progress display).
  uint64_t file_size() const;
  uint64_t file_bytes_read() const;

 private:
  struct Prefetch;
  bool compressed_ = false;
  double wait_seconds_ = 0;
  std::unique_ptr<RawFile> direct_;     // a plain regular file
  double direct_seconds_ = 0;           // in direct_->read()
  std::unique_ptr<Prefetch> prefetch_;  // anything else
};

}  // namespace whyslow
