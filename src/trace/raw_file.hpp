// A file's bytes as they lie on disk (compressed bytes for .gz), read sequentially.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace whyslow {

class RawFile {
 public:
  // Throws LoadError(Io) when the file cannot be opened. `shown_path` is the path as messages
  // print it (printable()).
  RawFile(const std::string& path, std::string shown_path);
  ~RawFile();
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;

  // Fills up to n bytes, fewer only at the end of the file. Throws LoadError(Io).
  size_t read(char* dst, size_t n);
  void rewind();
  uint64_t bytes_read() const { return read_; }
  uint64_t size() const { return size_; }
  const std::string& shown_path() const { return shown_path_; }

 private:
  std::string shown_path_;
  int fd_ = -1;
  uint64_t read_ = 0;
  uint64_t size_ = 0;
};

}  // namespace whyslow
