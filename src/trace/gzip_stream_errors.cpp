#include <string>

#include "trace/gzip_stream.hpp"
#include "trace/load_error.hpp"

namespace whyslow {

void throw_gzip_nothing_decoded(const RawFile& file) {
  const uint64_t at = file.bytes_read();
  throw LoadError(LoadError::Kind::Truncated,
                  file.shown_path() + ": truncated: the gzip file ends at byte " + std::to_string(at) +
                      " before any data could be decoded (the program that wrote it probably stopped "
                      "mid-write). No complete event comes before the cut.",
                  at);
}

void throw_gzip_corrupt(const RawFile& file, uint64_t compressed_offset, const char* why) {
  throw LoadError(LoadError::Kind::Io,
                  file.shown_path() + ": corrupt gzip data near compressed byte " +
                      std::to_string(compressed_offset) + ": " + why,
                  compressed_offset);
}

}  // namespace whyslow
