// zlib's inflate: the fallback where ISA-L is not installed (see gzip_stream.hpp).
#ifndef WHYSLOW_HAVE_ISAL
#include <zlib.h>

#include <vector>

#include "trace/gzip_stream.hpp"
#include "trace/load_error.hpp"

namespace whyslow {

struct GzipStream::State {
  explicit State(RawFile& f) : file(f) {}
  ~State() { inflateEnd(&zs); }
  RawFile& file;
  z_stream zs{};
  std::vector<unsigned char> in = std::vector<unsigned char>(1 << 20);
  bool input_done = false;
  bool stream_end = false;
  uint64_t decoded = 0;  // bytes handed out, over all members
};

GzipStream::GzipStream(RawFile& file) : s_(std::make_unique<State>(file)) {
  // 15 + 32: zlib detects the gzip header itself.
  if (inflateInit2(&s_->zs, 15 + 32) != Z_OK)
    throw LoadError(LoadError::Kind::Io, file.shown_path() + ": cannot start gzip decoder", 0);
}
GzipStream::~GzipStream() = default;

const char* GzipStream::implementation() { return "zlib"; }

uint64_t GzipStream::compressed_consumed() const { return s_->file.bytes_read() - s_->zs.avail_in; }

size_t GzipStream::read(char* dst, size_t n) {
  State& g = *s_;
  g.zs.next_out = reinterpret_cast<Bytef*>(dst);
  g.zs.avail_out = static_cast<uInt>(n);
  while (g.zs.avail_out > 0) {
    if (g.zs.avail_in == 0 && !g.input_done) {
      const size_t got = g.file.read(reinterpret_cast<char*>(g.in.data()), g.in.size());
      if (got == 0) g.input_done = true;
      g.zs.next_in = g.in.data();
      g.zs.avail_in = static_cast<uInt>(got);
    }
    if (g.stream_end) {
      // Another member may follow; anything else after the end of a member ends the data.
      if (g.zs.avail_in == 0) break;
      if (g.zs.next_in[0] != 0x1f) break;
      inflateReset(&g.zs);
      g.stream_end = false;
    }
    if (g.zs.avail_in == 0 && g.input_done) {
      // The compressed stream stopped before its end marker: the writer died mid-file.
      if (g.decoded + (n - g.zs.avail_out) == 0) throw_gzip_nothing_decoded(g.file);
      break;
    }
    const int rc = inflate(&g.zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      g.stream_end = true;
    } else if (rc == Z_BUF_ERROR) {
      if (g.input_done) break;
    } else if (rc != Z_OK) {
      throw_gzip_corrupt(g.file, g.file.bytes_read() - g.zs.avail_in, g.zs.msg ? g.zs.msg : "inflate failed");
    }
  }
  g.decoded += n - g.zs.avail_out;
  return n - g.zs.avail_out;
}

}  // namespace whyslow
#endif  // !WHYSLOW_HAVE_ISAL
