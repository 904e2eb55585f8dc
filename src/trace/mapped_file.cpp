#include "trace/mapped_file.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace whyslow {
namespace {

// Consumed pages are released in steps of this much: one madvise per step (each costs a TLB
// flush), a step small enough that the window resident at once stays under the load's other
// buffers (batches in flight, ~1-2 MiB).
constexpr uint64_t kReleaseStep = uint64_t{4} << 20;

}  // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return nullptr;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t file_pages = (size + page - 1) / page * page;
  const uint64_t mapped = file_pages + (kReadablePadding + page - 1) / page * page;
  if (mapped > SIZE_MAX) return nullptr;
  // Address space for the file and its padding, then the file over the front of it: the padding
  // stays anonymous zeros (pages of a file mapping past its end would fault with SIGBUS).
  void* base = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  if (::mmap(base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    ::munmap(base, mapped);
    return nullptr;
  }
  ::madvise(base, size, MADV_SEQUENTIAL);  // read ahead aggressively, drop behind
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<char*>(base), size, mapped));
}

MappedFile::~MappedFile() { ::munmap(data_, mapped_); }

void MappedFile::release_before(uint64_t offset) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t end = std::min(offset, size_) / page * page;
  if (end < released_ + kReleaseStep) return;
  // MADV_DONTNEED on a private file mapping drops the pages from this process; read again,
  // they would come back from the file, but the loader never goes back.
  ::madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

}  // namespace whyslow
