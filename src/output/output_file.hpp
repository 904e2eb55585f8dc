// The one way whyslow writes a file (`report -o`, `annotate -o`, the profiler's trace): whole or
// not at all, never over one of its inputs, never through a planted name.
//
// A regular file, or a missing one, is written to a fresh temporary file beside it
// ("<path>.tmp-<random>", created exclusively, so a file or link already at that name is never
// opened), flushed to disk and renamed over the path only when complete: a reader sees the old
// file or the new one; two writers each write their own temporary file and the last rename wins;
// a failed write removes its temporary file and names the cause (errno's text), and so does
// SIGINT, SIGTERM, SIGHUP or SIGPIPE (temp_files.hpp). A file replaced keeps its permissions.
//
// Anything else that exists at the path (a FIFO, a terminal, /dev/null, a link to one such as
// /dev/stdout) is written directly, streaming, and never renamed over: replacing /dev/full or a
// FIFO a reader waits on with a regular file would break the system or the reader. Such a write
// is not atomic; its errors are reported all the same.
//
// Refused: a directory, and a symbolic link to a regular file or to nothing: writing through it
// would change a file the command did not name (a link planted at the output path would redirect
// the write), and replacing it would silently break the link.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace whyslow {

// What went wrong, naming the path and the cause ("cannot write 'out.html': No space left on
// device"); what to do is for the caller to say.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OutputOptions {
  // gzip-compress on the way (zlib, at this level: 1 fastest … 9 smallest).
  bool gzip = false;
  int gzip_level = 6;
  // Files that must not be written: the output is refused when it is one of them, compared by
  // device and inode (so through symbolic and hard links), not by name.
  std::vector<std::string> inputs;
};

class OutputFile {
 public:
  // Creates the temporary file (or opens the special file). Throws OutputError.
  explicit OutputFile(std::string path, OutputOptions options = {});
  // Without commit(): removes the temporary file; the path is left as it was.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);  // throws OutputError
  // Finishes the gzip stream, syncs the bytes to disk and renames the file into place.
  void commit();  // throws OutputError

  const std::string& path() const { return path_; }

 private:
  struct Gzip;
  void write_raw(const char* data, size_t size);
  void discard() noexcept;
  [[noreturn]] void fail(const std::string& what, int error);

  std::string path_;
  std::string temp_path_;  // empty when writing straight to a special file
  int temp_slot_ = -1;     // temp_files.hpp: removed if a signal ends the process before commit()
  int fd_ = -1;
  std::unique_ptr<Gzip> gzip_;
};

// One call for text already in memory.
void write_file_atomically(const std::string& path, std::string_view content, const OutputOptions& options = {});

}  // namespace whyslow
