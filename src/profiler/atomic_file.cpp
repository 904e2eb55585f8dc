#include "profiler/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "whyslow/profiler.hpp"

namespace whyslow::profiler_detail {

struct AtomicFile::Deflate {
  z_stream stream{};
  unsigned char out[64 * 1024];
};

namespace {

std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

AtomicFile::AtomicFile(std::string path, bool gzip) : path_(std::move(path)) {
  temp_path_ = temporary_name(path_);
  // 0666 less the umask, like any file the program would create itself.
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot create a file in its directory", errno);
  if (gzip) {
    deflate_ = std::make_unique<Deflate>();
    // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
    if (deflateInit2(&deflate_->stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      deflate_.reset();
      fail("zlib could not start compressing", 0);
    }
  }
}

AtomicFile::~AtomicFile() {
  if (deflate_) deflateEnd(&deflate_->stream);
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void AtomicFile::fail(const std::string& what, int error) {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    ::unlink(temp_path_.c_str());
  }
  std::string message = "cannot write the trace to '" + path_ + "': " + what;
  if (error != 0) message += std::string(" (") + std::strerror(error) + ")";
  throw ProfilerError(message);
}

void AtomicFile::write_raw(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing failed", n < 0 ? errno : EIO);
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void AtomicFile::write(std::string_view bytes) {
  if (!deflate_) {
    write_raw(bytes.data(), bytes.size());
    return;
  }
  z_stream& z = deflate_->stream;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  while (z.avail_in > 0) {
    z.next_out = deflate_->out;
    z.avail_out = sizeof deflate_->out;
    deflate(&z, Z_NO_FLUSH);
    write_raw(deflate_->out, sizeof deflate_->out - z.avail_out);
  }
}

void AtomicFile::commit() {
  if (deflate_) {
    z_stream& z = deflate_->stream;
    int status = Z_OK;
    while (status != Z_STREAM_END) {
      z.next_out = deflate_->out;
      z.avail_out = sizeof deflate_->out;
      status = deflate(&z, Z_FINISH);
      if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
        fail("zlib could not finish the gzip stream", 0);
      write_raw(deflate_->out, sizeof deflate_->out - z.avail_out);
    }
  }
  if (::fsync(fd_) != 0) fail("flushing it to disk failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    ::unlink(temp_path_.c_str());
    throw ProfilerError("cannot write the trace to '" + path_ + "': closing failed (" +
                        std::strerror(errno) + ")");
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp_path_.c_str());
    throw ProfilerError("cannot write the trace to '" + path_ + "': renaming '" + temp_path_ +
                        "' into place failed (" + std::strerror(error) + ")");
  }
}

}  // namespace whyslow::profiler_detail
