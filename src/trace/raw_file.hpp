// A file's bytes as they lie on disk (compressed bytes for .gz), read sequentially.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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
  // The first bytes of the file (up to kPeekBytes), left for read() to hand out again: a pipe
  // cannot seek back. Only before the first read().
  std::string_view peek();
  static constexpr size_t kPeekBytes = 2;
  // Callable from another thread than read()'s (a progress display).
  uint64_t bytes_read() const { return read_.load(std::memory_order_relaxed); }
  uint64_t size() const { return size_; }
  bool is_regular() const { return regular_; }  // not a pipe, socket or device
  const std::string& shown_path() const { return shown_path_; }

 private:
  std::string shown_path_;
  int fd_ = -1;
  std::atomic<uint64_t> read_{0};  // written by read() only
  uint64_t size_ = 0;
  bool regular_ = false;
  char peeked_[kPeekBytes];
  size_t peeked_len_ = 0, peeked_used_ = 0;  // bytes peek() took that read() has not handed out
};

}  // namespace whyslow
