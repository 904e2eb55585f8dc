// A file that appears whole or not at all: bytes go to a temporary file beside the target
// (same directory, so the final rename cannot cross file systems), which is flushed to disk and
// renamed over the target only when complete. A crash mid-write leaves at most a stray
// "<name>.tmp-…" file, never a truncated trace under the final name.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace whyslow::profiler_detail {

class AtomicFile {
 public:
  // gzip: compress on the way (zlib, level 6). Throws ProfilerError naming the path and why.
  AtomicFile(std::string path, bool gzip);
  ~AtomicFile();  // without commit(): removes the temporary file
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  // Finishes the stream, syncs it to disk and renames it into place.
  void commit();

 private:
  void write_raw(const void* data, size_t size);
  [[noreturn]] void fail(const std::string& what, int error);
  struct Deflate;
  std::string path_, temp_path_;
  int fd_ = -1;
  std::unique_ptr<Deflate> deflate_;
};

}  // namespace whyslow::profiler_detail
