// ISA-L's igzip inflate (see gzip_stream.hpp for why it is preferred to zlib).
#ifdef WHYSLOW_HAVE_ISAL
#include <isa-l/igzip_lib.h>

#include <vector>

#include "trace/gzip_stream.hpp"

namespace whyslow {

struct GzipStream::State {
  explicit State(RawFile& f) : file(f) { start_member(); }
  void start_member() {
    isal_inflate_init(&st);  // clears the stream pointers too: read() sets them after this
    st.crc_flag = ISAL_GZIP;  // parse the gzip header, check the trailer's CRC and length
  }
  RawFile& file;
  inflate_state st{};
  std::vector<unsigned char> in = std::vector<unsigned char>(1 << 20);
  bool input_done = false;
  uint64_t decoded = 0;  // bytes handed out, over all members
};

GzipStream::GzipStream(RawFile& file) : s_(std::make_unique<State>(file)) {}
GzipStream::~GzipStream() = default;

const char* GzipStream::implementation() { return "igzip (ISA-L)"; }

uint64_t GzipStream::compressed_consumed() const { return s_->file.bytes_read() - s_->st.avail_in; }

namespace {

const char* isal_error_text(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "inflate failed";
  }
}

}  // namespace

size_t GzipStream::read(char* dst, size_t n) {
  State& g = *s_;
  inflate_state& st = g.st;
  st.next_out = reinterpret_cast<uint8_t*>(dst);
  st.avail_out = static_cast<uint32_t>(n);
  while (st.avail_out > 0) {
    if (st.avail_in == 0 && !g.input_done) {
      const size_t got = g.file.read(reinterpret_cast<char*>(g.in.data()), g.in.size());
      if (got == 0) g.input_done = true;
      st.next_in = g.in.data();
      st.avail_in = static_cast<uint32_t>(got);
    }
    if (st.block_state == ISAL_BLOCK_FINISH) {
      // Another member may follow; anything else after the end of a member ends the data.
      if (st.avail_in == 0 || st.next_in[0] != 0x1f) break;
      const inflate_state was = st;
      g.start_member();
      st.next_in = was.next_in;
      st.avail_in = was.avail_in;
      st.next_out = was.next_out;
      st.avail_out = was.avail_out;
    }
    if (st.avail_in == 0 && g.input_done) {
      // The compressed stream stopped before its end marker: the writer died mid-file.
      if (g.decoded + (n - st.avail_out) == 0) throw_gzip_nothing_decoded(g.file);
      break;
    }
    const uint32_t avail_in_before = st.avail_in, avail_out_before = st.avail_out;
    const int rc = isal_inflate(&st);
    if (rc < 0 || rc == ISAL_NEED_DICT)
      throw_gzip_corrupt(g.file, g.file.bytes_read() - st.avail_in, isal_error_text(rc));
    // igzip buffers whatever input it is given, so a call that moves nothing with input left
    // cannot be followed by one that does: stop rather than spin.
    if (st.avail_in == avail_in_before && st.avail_in > 0 && st.avail_out == avail_out_before &&
        st.block_state != ISAL_BLOCK_FINISH)
      throw_gzip_corrupt(g.file, g.file.bytes_read() - st.avail_in, "inflate made no progress");
  }
  g.decoded += n - st.avail_out;
  return n - st.avail_out;
}

}  // namespace whyslow
#endif  // WHYSLOW_HAVE_ISAL
