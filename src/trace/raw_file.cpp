#include "trace/raw_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trace/load_error.hpp"

namespace whyslow {

RawFile::RawFile(const std::string& path, std::string shown_path) : shown_path_(std::move(shown_path)) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw LoadError(LoadError::Kind::Io, shown_path_ + ": cannot open: " + std::strerror(errno), 0);
  posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  struct stat st{};
  if (::fstat(fd_, &st) == 0) {
    size_ = static_cast<uint64_t>(st.st_size);
    regular_ = S_ISREG(st.st_mode);
  }
}

RawFile::~RawFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t RawFile::read(char* dst, size_t n) {
  size_t total = 0;
  for (; total < n && peeked_used_ < peeked_len_; ++total) dst[total] = peeked_[peeked_used_++];
  while (total < n) {
    const ssize_t r = ::read(fd_, dst + total, n - total);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw LoadError(LoadError::Kind::Io,
                      shown_path_ + ": read error at byte " + std::to_string(bytes_read()) + ": " + std::strerror(errno),
                      bytes_read());
    }
    if (r == 0) break;
    total += static_cast<size_t>(r);
    read_.store(bytes_read() + static_cast<uint64_t>(r), std::memory_order_relaxed);
  }
  return total;
}

std::string_view RawFile::peek() {
  peeked_len_ = read(peeked_, kPeekBytes);  // counted in read_: the file's bytes read so far
  peeked_used_ = 0;
  return {peeked_, peeked_len_};
}

}  // namespace whyslow
