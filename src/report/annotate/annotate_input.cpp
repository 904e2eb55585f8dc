#include "report/annotate/annotate_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "trace/load_error.hpp"

namespace whyslow {
namespace {

constexpr size_t kCopyBytes = 1u << 20;

[[noreturn]] void io_error(const std::string& what, int error, uint64_t offset) {
  throw LoadError(LoadError::Kind::Io, what + ": " + std::strerror(error), offset);
}

void write_all(int fd, const char* data, size_t n, const std::string& copy) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) io_error("cannot copy the input to " + copy, w < 0 ? errno : EIO, 0);
    data += w;
    n -= static_cast<size_t>(w);
  }
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

RereadableInput::RereadableInput(std::string path) : name_(std::move(path)) {
  struct stat st {};
  // A missing or unreadable input is the loader's to report, with its usual message.
  if (::stat(name_.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return;
  const int in = ::open(name_.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return;
  std::string pattern = (std::filesystem::temp_directory_path() / "whyslow-input-XXXXXX").string();
  const int out = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (out < 0) {
    const int error = errno;
    ::close(in);
    io_error(name_ + ": cannot be read twice (not a regular file), and no temporary copy can be made in " +
                 std::filesystem::temp_directory_path().string(),
             error, 0);
  }
  copy_ = pattern;
  const auto buffer = std::make_unique_for_overwrite<char[]>(kCopyBytes);
  uint64_t copied = 0;
  try {
    for (;;) {
      const ssize_t n = ::read(in, buffer.get(), kCopyBytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_error(name_ + ": read error at byte " + std::to_string(copied), errno, copied);
      if (n == 0) break;
      write_all(out, buffer.get(), static_cast<size_t>(n), copy_);
      copied += static_cast<uint64_t>(n);
    }
  } catch (...) {
    ::close(in);
    ::close(out);
    ::unlink(copy_.c_str());
    throw;
  }
  ::close(in);
  if (::close(out) != 0) {
    const int error = errno;
    ::unlink(copy_.c_str());
    io_error("cannot copy the input to " + copy_, error, 0);
  }
}

RereadableInput::~RereadableInput() {
  if (!copy_.empty()) ::unlink(copy_.c_str());
}

Trace RereadableInput::load(const LoadOptions& options) const {
  if (copy_.empty()) return load_trace(name_, options);
  try {
    Trace t = load_trace(copy_, options);
    t.path = name_;
    return t;
  } catch (const LoadError& e) {
    throw LoadError(e.kind(), replace_all(e.what(), copy_, name_), e.byte_offset());
  }
}

}  // namespace whyslow
