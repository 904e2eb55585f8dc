// A trace file's bytes, plain or gzip (detected by its magic bytes, not its name), streamed into
// a caller's buffer (read()). A plain regular file is mapped, and a caller may instead read it
// in place (mapped()) and say what it is done with, so its pages leave memory. Any other file
// is read and inflated ahead by a background thread into a few fixed chunks, so decompression
// runs on the other core while the caller parses. Neither way holds memory in proportion to
// the file.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "trace/mapped_file.hpp"

namespace whyslow {

class InputSource {
 public:
  // Throws LoadError(Io) when the file cannot be opened.
  explicit InputSource(const std::string& path);
  ~InputSource();
  InputSource(const InputSource&) = delete;
  InputSource& operator=(const InputSource&) = delete;

  // The whole file, when it is mapped (a caller reads it either in place or through read(),
  // not both).
  MappedFile* mapped() const { return mapped_.get(); }
  // The caller no longer needs the bytes before `offset` (of a mapped file: they are released).
  void done_before(uint64_t offset);

  // Fills up to n bytes, fewer only at the end; returns 0 at the end. Throws LoadError on a read
  // or gzip error, after handing out every byte that came before it.
  size_t read(char* dst, size_t n);
  bool compressed() const { return compressed_; }
  // Seconds the background thread spent reading and inflating, and seconds read() waited for it
  // (0 for a mapped file: its reading is page faults in the caller's own time).
  double produce_seconds() const;
  double wait_seconds() const { return wait_seconds_; }
  // The file's size on disk, and how much of it lies behind the bytes produced so far (for
  // gzip, the compressed bytes decoded, not those merely read ahead; for a mapped file, what the
  // caller is done with).
  uint64_t file_size() const;
  uint64_t file_bytes_read() const;

 private:
  struct Prefetch;
  bool compressed_ = false;
  std::unique_ptr<MappedFile> mapped_;
  std::atomic<uint64_t> mapped_done_{0};  // read by file_bytes_read() on another thread (progress)
  double wait_seconds_ = 0;
  std::unique_ptr<Prefetch> prefetch_;
};

}  // namespace whyslow
