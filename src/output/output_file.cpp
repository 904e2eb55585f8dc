#include "output/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <climits>
#include <random>
#include <string_view>

#include "output/temp_files.hpp"

namespace whyslow {

struct OutputFile::Gzip {
  z_stream stream{};
  unsigned char out[256 * 1024];
  ~Gzip() { deflateEnd(&stream); }
};

namespace {

// Attempts at a temporary name before giving up: with 64 random bits a clash is already a sign
// that something else creates these names on purpose.
constexpr int kTempNameAttempts = 16;

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// 16 hex digits that no other process or thread will pick.
std::string random_suffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t bits = (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL) ^ (static_cast<uint64_t>(::getpid()) << 40);
  try {
    std::random_device device;
    bits ^= (static_cast<uint64_t>(device()) << 32) | device();
  } catch (const std::exception&) {
    bits ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// What the temporary name adds to the file's name: ".tmp-" and the 16 hex digits.
constexpr std::string_view kTempMark = ".tmp-";
constexpr size_t kTempNameExtra = kTempMark.size() + 16;

// "<path>.tmp-<random>", the file's own name cut where that would pass the folder's longest name
// (NAME_MAX, 255 bytes on Linux's filesystems): a legal 250-byte name must not be refused because
// of the temporary one beside it. The cut name still starts like the file it becomes.
std::string temp_name_for(const std::string& path, const std::string& suffix) {
  const size_t slash = path.rfind('/');
  const size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  const long folder_max = ::pathconf(folder_of(path).c_str(), _PC_NAME_MAX);
  const size_t name_max = folder_max > static_cast<long>(kTempNameExtra) ? static_cast<size_t>(folder_max) : NAME_MAX;
  const size_t keep = std::min(path.size() - name_start, name_max - kTempNameExtra);
  return path.substr(0, name_start + keep) + std::string(kTempMark) + suffix;
}

}  // namespace

OutputFile::OutputFile(std::string path, OutputOptions options) : path_(std::move(path)) {
  struct stat link {}, target {};
  const bool exists = ::lstat(path_.c_str(), &link) == 0;
  if (!exists && errno != ENOENT) fail("cannot look at the path", errno);
  const bool target_exists = exists && ::stat(path_.c_str(), &target) == 0;
  for (const std::string& input : options.inputs) {
    struct stat in {};
    if (!exists || ::stat(input.c_str(), &in) != 0) continue;
    if (same_file(link, in) || (target_exists && same_file(target, in)))
      throw OutputError("cannot write '" + path_ + "': it is the input '" + input +
                        "', which whyslow never modifies; write to another file");
  }
  if (target_exists && S_ISDIR(target.st_mode)) fail("it is a directory", 0);
  if (exists && S_ISLNK(link.st_mode) && (!target_exists || S_ISREG(target.st_mode)))
    fail(std::string("it is a symbolic link") + (target_exists ? "" : " to nothing") +
             ": whyslow neither writes through it nor replaces it; name the file itself", 0);

  // A FIFO, a device, a terminal, a socket (or a link to one, as /dev/stdout is): written in place.
  if (target_exists && !S_ISREG(target.st_mode)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open it", errno);
    struct stat opened {};
    if (::fstat(fd_, &opened) != 0 || S_ISREG(opened.st_mode) || !same_file(opened, target))
      fail("it was replaced while being opened", 0);
  } else {
    // A new file: 0666 less the umask, like any file the program would create itself. A file
    // replaced: its own permissions (a private 0600 report stays private), from the start, so that
    // nobody the old file kept out can open the new one while it is written.
    const mode_t replaced = target_exists ? target.st_mode & 0777 : 0;
    for (int attempt = 0; fd_ < 0; ++attempt) {
      temp_path_ = temp_name_for(path_, random_suffix());
      // O_EXCL | O_NOFOLLOW: a file or symbolic link already at that name is never opened.
      fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   target_exists ? replaced : 0666);
      if (fd_ < 0 && (errno != EEXIST || attempt + 1 == kTempNameAttempts)) {
        const int error = errno;
        temp_path_.clear();
        fail("cannot create a temporary file in the folder '" + folder_of(path_) + "'", error);
      }
    }
    temp_slot_ = remember_temp_file(temp_path_);
    // open() took the umask off; the replaced file's bits exactly.
    if (target_exists && ::fchmod(fd_, replaced) != 0) fail("cannot give the new file the old one's permissions", errno);
  }
  if (options.gzip) {
    gzip_ = std::make_unique<Gzip>();
    // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
    if (deflateInit2(&gzip_->stream, options.gzip_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      gzip_.reset();
      fail("zlib could not start compressing", 0);
    }
  }
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  forget_temp_file(temp_slot_);
  temp_slot_ = -1;
  temp_path_.clear();
}

void OutputFile::fail(const std::string& what, int error) {
  discard();
  std::string message = "cannot write '" + path_ + "': " + what;
  if (error != 0) message += std::string(": ") + std::strerror(error);
  throw OutputError(message);
}

void OutputFile::write_raw(const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing failed", n < 0 ? errno : EIO);
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) throw OutputError("cannot write '" + path_ + "': the file is already closed");
  if (!gzip_) {
    write_raw(bytes.data(), bytes.size());
    return;
  }
  z_stream& z = gzip_->stream;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  while (!bytes.empty()) {
    // zlib counts in uInt: feed at most 1 GiB at a time.
    const size_t feed = std::min<size_t>(bytes.size(), 1u << 30);
    z.avail_in = static_cast<uInt>(feed);
    while (z.avail_in > 0) {
      z.next_out = gzip_->out;
      z.avail_out = sizeof gzip_->out;
      deflate(&z, Z_NO_FLUSH);
      write_raw(reinterpret_cast<const char*>(gzip_->out), sizeof gzip_->out - z.avail_out);
    }
    bytes.remove_prefix(feed);
  }
}

void OutputFile::commit() {
  if (fd_ < 0) throw OutputError("cannot write '" + path_ + "': the file is already closed");
  if (gzip_) {
    z_stream& z = gzip_->stream;
    for (int status = Z_OK; status != Z_STREAM_END;) {
      z.next_out = gzip_->out;
      z.avail_out = sizeof gzip_->out;
      status = deflate(&z, Z_FINISH);
      if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
        fail("zlib could not finish the gzip stream", 0);
      write_raw(reinterpret_cast<const char*>(gzip_->out), sizeof gzip_->out - z.avail_out);
    }
  }
  if (temp_path_.empty()) {  // a special file: nothing to sync or rename
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("closing it failed", errno);
    return;
  }
  if (::fsync(fd_) != 0) fail("flushing it to disk failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("closing its temporary file failed", errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
    fail("renaming the temporary file '" + temp_path_ + "' into place failed", errno);
  forget_temp_file(temp_slot_);
  temp_slot_ = -1;
  temp_path_.clear();
  // The rename is in the folder's entries: sync them too, or a crash could lose the new name.
  const int folder = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

void write_file_atomically(const std::string& path, std::string_view content, const OutputOptions& options) {
  OutputFile file(path, options);
  file.write(content);
  file.commit();
}

}  // namespace whyslow
