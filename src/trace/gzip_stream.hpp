// Decompresses a gzip file (one member, or several back to back as `cat a.gz b.gz` makes) as a
// stream. Two implementations, chosen at build time: ISA-L's igzip (gzip_stream_isal.cpp) when
// CMake finds libisal, else zlib (gzip_stream_zlib.cpp). igzip inflates Kineto JSON about 3x
// faster than zlib on this project's machine (bench/run_bench.sh's stage split shows it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "trace/raw_file.hpp"

namespace whyslow {

class GzipStream {
 public:
  // `file` is positioned at the start of the gzip data and outlives the stream.
  explicit GzipStream(RawFile& file);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Fills up to n bytes, fewer only at the end of the data; 0 at the end. A stream that stops
  // before its end marker hands back what it decoded (the JSON layer reports the truncation),
  // unless nothing could be decoded at all: that is LoadError(Truncated) here. Corrupt data is
  // LoadError(Io) naming the compressed byte offset.
  size_t read(char* dst, size_t n);
  // Compressed bytes the decoder has taken in so far (read from the file and decoded, not
  // just read ahead): where in the file the bytes handed out come from, for progress.
  uint64_t compressed_consumed() const;
  static const char* implementation();  // "igzip (ISA-L)" or "zlib"

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The two errors both implementations raise, worded once.
[[noreturn]] void throw_gzip_nothing_decoded(const RawFile& file);
[[noreturn]] void throw_gzip_corrupt(const RawFile& file, uint64_t compressed_offset, const char* why);

}  // namespace whyslow
