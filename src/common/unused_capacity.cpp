#include "common/unused_capacity.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace whyslow {

void release_pages_between(const void* begin, const void* end) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) / page * page;
  const uintptr_t last = reinterpret_cast<uintptr_t>(end) / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace whyslow
