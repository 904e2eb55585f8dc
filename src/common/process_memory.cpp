#include "common/process_memory.hpp"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace whyslow {

// glibc's own starting threshold; setting it fixes it (no dynamic raise).
constexpr int kLargeBlockBytes = 128 << 10;

void return_large_blocks_to_the_system() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, kLargeBlockBytes);
#endif
}

}  // namespace whyslow
