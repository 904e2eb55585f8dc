// The fuzz targets' input as a file: the loaders read files, so each input goes into one
// in-memory file, reopened by its /proc path.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace whyslow::fuzz {

inline int memory_file() {
  static const int fd = [] {
    const int f = memfd_create("whyslow_fuzz", MFD_CLOEXEC);
    if (f < 0) std::abort();
    return f;
  }();
  return fd;
}

// Writes the input to the in-memory file; returns its path.
inline std::string input_file(const uint8_t* data, size_t size) {
  const int fd = memory_file();
  if (ftruncate(fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

// 1 MiB: inputs are small, and the limit's error path gets exercised by the mutator's repeats.
constexpr size_t kFuzzMaxValueBytes = size_t{1} << 20;

}  // namespace whyslow::fuzz
