#include "trace/input_source.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/terminal_text.hpp"
#include "trace/load_error.hpp"

namespace whyslow {

struct InputSource::Gzip {
  z_stream zs{};
  std::vector<unsigned char> in = std::vector<unsigned char>(1 << 20);
  bool input_done = false;
  bool stream_end = false;
  uint64_t decoded = 0;  // bytes handed out, over all members
  ~Gzip() { inflateEnd(&zs); }
};

InputSource::InputSource(const std::string& path) : path_(printable(path)) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw LoadError(LoadError::Kind::Io, path_ + ": cannot open: " + std::strerror(errno), 0);
  posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  unsigned char magic[2];
  const size_t got = read_raw(reinterpret_cast<char*>(magic), 2);
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    gz_ = std::make_unique<Gzip>();
    // 15 + 32: zlib detects the gzip header itself.
    if (inflateInit2(&gz_->zs, 15 + 32) != Z_OK)
      throw LoadError(LoadError::Kind::Io, path_ + ": cannot start gzip decoder", 0);
    gz_->in[0] = magic[0];
    gz_->in[1] = magic[1];
    gz_->zs.next_in = gz_->in.data();
    gz_->zs.avail_in = 2;
  } else {
    ::lseek(fd_, 0, SEEK_SET);
    raw_read_ = 0;
  }
}

InputSource::~InputSource() {
  if (fd_ >= 0) ::close(fd_);
}

size_t InputSource::read_raw(char* dst, size_t n) {
  size_t total = 0;
  while (total < n) {
    const ssize_t r = ::read(fd_, dst + total, n - total);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw LoadError(LoadError::Kind::Io,
                      path_ + ": read error at byte " + std::to_string(raw_read_) + ": " +
                          std::strerror(errno),
                      raw_read_);
    }
    if (r == 0) break;
    total += static_cast<size_t>(r);
    raw_read_ += static_cast<uint64_t>(r);
  }
  return total;
}

size_t InputSource::read(char* dst, size_t n) {
  if (!gz_) return read_raw(dst, n);
  Gzip& g = *gz_;
  g.zs.next_out = reinterpret_cast<Bytef*>(dst);
  g.zs.avail_out = static_cast<uInt>(n);
  while (g.zs.avail_out > 0) {
    if (g.zs.avail_in == 0 && !g.input_done) {
      const size_t got = read_raw(reinterpret_cast<char*>(g.in.data()), g.in.size());
      if (got == 0) g.input_done = true;
      g.zs.next_in = g.in.data();
      g.zs.avail_in = static_cast<uInt>(got);
    }
    if (g.stream_end) {
      // A file may hold several gzip members back to back; anything else after the end
      // of a member is the end of the data.
      if (g.zs.avail_in == 0) break;
      if (g.zs.next_in[0] != 0x1f) break;
      inflateReset(&g.zs);
      g.stream_end = false;
    }
    if (g.zs.avail_in == 0 && g.input_done) {
      // The compressed stream stopped before its end marker: the writer died mid-file.
      // Hand back what was decoded; the JSON layer reports the truncation. When nothing could
      // be decoded at all, the JSON layer would see an empty file, so say it here.
      if (g.decoded + (n - g.zs.avail_out) == 0)
        throw LoadError(LoadError::Kind::Truncated,
                        path_ + ": truncated: the gzip file ends at byte " +
                            std::to_string(raw_read_) +
                            " before any data could be decoded (the program that wrote it "
                            "probably stopped mid-write). No complete event comes before the cut.",
                        raw_read_);
      break;
    }
    const int rc = inflate(&g.zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      g.stream_end = true;
    } else if (rc == Z_BUF_ERROR) {
      if (g.input_done) break;
    } else if (rc != Z_OK) {
      throw LoadError(LoadError::Kind::Io,
                      path_ + ": corrupt gzip data near compressed byte " +
                          std::to_string(raw_read_ - g.zs.avail_in) + ": " +
                          (g.zs.msg ? g.zs.msg : "inflate failed"),
                      raw_read_ - g.zs.avail_in);
    }
  }
  g.decoded += n - g.zs.avail_out;
  return n - g.zs.avail_out;
}

}  // namespace whyslow
