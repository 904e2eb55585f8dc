// Streams a trace file's bytes, plain or gzip (detected by its magic bytes, not its name),
// into a caller's buffer. Nothing here allocates in proportion to the file.
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

  // Fills up to n bytes; returns 0 at the end. Throws LoadError on a read or gzip error.
  size_t read(char* dst, size_t n);
  bool compressed() const { return gz_ != nullptr; }
  // Bytes of the file on disk consumed so far (compressed bytes for .gz).
  uint64_t raw_bytes_read() const { return raw_read_; }

 private:
  size_t read_raw(char* dst, size_t n);
  struct Gzip;
  std::string path_;  // as messages print it (printable)
  int fd_ = -1;
  uint64_t raw_read_ = 0;
  std::unique_ptr<Gzip> gz_;
};

}  // namespace whyslow
