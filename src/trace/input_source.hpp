// Streams a trace file's bytes, plain or gzip (detected by its magic bytes, not its name),
// into a caller's buffer. A background thread reads (and inflates) ahead into a few fixed
// chunks, so decompression runs on the other core while the caller parses. Nothing here
// allocates in proportion to the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

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
  // Seconds the background thread spent reading and inflating, and seconds read() waited for it.
  double produce_seconds() const;
  double wait_seconds() const { return wait_seconds_; }
  // The file's size on disk, and how much of it the background thread has read so far.
  uint64_t file_size() const;
  uint64_t file_bytes_read() const;

 private:
  struct Prefetch;
  bool compressed_ = false;
  double wait_seconds_ = 0;
  std::unique_ptr<Prefetch> prefetch_;
};

}  // namespace whyslow
