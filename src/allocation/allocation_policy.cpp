// How whyslow's executables allocate. Two rules, for the two kinds of block the pipeline makes:
//  - a block of kMinLargeBlock (4 MiB) or more (operator new below) is mapped on its own, aligned to
//    a huge page and advised for transparent huge pages (MADV_HUGEPAGE), and unmapped on delete;
//  - a block from 128 KiB up to that (malloc, set at start-up below) is one of malloc's own
//    mappings, returned to the system when freed.
//
// Why huge pages: whyslow's memory is a few dozen large arrays (the trace's columns, one entry per
// event, and the passes' per-event tables), each touched once from start to end. In 4 KiB pages a
// 542 MB trace took ~70 k page faults; on virtual machines where a fault exits to the hypervisor
// (this project's 2-core VM: 10 µs each, 0.2 µs per 4 KiB when faulted as a 2 MiB page) they were
// a third of the CPU time. On a kernel with THP disabled ("never") the advice is a no-op and the
// blocks behave as malloc's own mappings.
//
// Why return the medium blocks: glibc otherwise raises its mapping threshold to the size of the
// largest block freed so far (up to 32 MiB), after which the analyses' temporaries land in the
// heap and stay resident once freed: 14 MB more peak memory on a 540 MB trace.
//
// Linked into the command-line executables only (src/CMakeLists.txt): a library must not replace a
// program's operator new or its malloc settings, and the Python module runs inside the
// interpreter's.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace {

// A huge page on x86-64 and arm64 with 4 KiB base pages: the unit the kernel backs a
// MADV_HUGEPAGE range with, and the alignment a block needs for its first bytes to be backed so.
constexpr size_t kHugePage = size_t{2} << 20;
// Smaller blocks go to malloc. Below one huge page no part of a block could be backed by one; and
// a block's last huge page is backed whole once touched, so a block of two huge pages or less may
// hold up to a huge page it never uses: on the bench's traces (542 MB, and 509 MB with memory
// events) advising blocks from 4 MiB ran as fast as from 2 MiB (median of 5 runs each) with 5 MB
// less peak memory on the second; from 8 MiB, 15-25 % slower.
constexpr size_t kMinLargeBlock = 2 * kHugePage;

// The live large blocks (start → mapped length). Few (dozens), so a sorted vector under a mutex;
// delete looks here only for pointers aligned to a huge page, which malloc's 16-byte-aligned
// chunks almost never are, so a small block's delete takes no lock.
struct LargeBlocks {
  std::mutex m;
  std::vector<std::pair<uintptr_t, size_t>> live;  // by start
};

// Constructed on first use and never destroyed: delete may run after static destructors.
LargeBlocks& large_blocks() {
  static LargeBlocks* blocks = new (malloc(sizeof(LargeBlocks))) LargeBlocks;
  return *blocks;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// A mapping of `size` bytes starting on a huge page, advised for huge pages; nullptr when the
// system refuses it.
void* map_large(size_t size) {
  if (size > SIZE_MAX - 2 * kHugePage) return nullptr;
  const size_t length = round_up(size, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  // Over-map by one huge page, then unmap the unaligned head and the tail beyond `length`.
  const size_t span = length + kHugePage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = round_up(start, kHugePage);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + span;
  if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  void* p = reinterpret_cast<void*>(aligned);
  madvise(p, length, MADV_HUGEPAGE);  // advice: refused (THP off, old kernel) is not an error
  LargeBlocks& blocks = large_blocks();
  std::lock_guard lock(blocks.m);
  auto it = blocks.live.begin();
  while (it != blocks.live.end() && it->first < aligned) ++it;
  blocks.live.insert(it, {aligned, length});
  return p;
}

// Unmaps `p` if it is a large block; false when it is not one.
bool unmap_large(void* p) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  if (start % kHugePage != 0) return false;
  LargeBlocks& blocks = large_blocks();
  size_t length = 0;
  {
    std::lock_guard lock(blocks.m);
    for (auto it = blocks.live.begin(); it != blocks.live.end(); ++it) {
      if (it->first == start) {
        length = it->second;
        blocks.live.erase(it);
        break;
      }
    }
  }
  if (length == 0) return false;
  munmap(p, length);
  return true;
}

// glibc's own starting mapping threshold; setting it fixes it (no dynamic raise).
constexpr int kMediumBlockBytes = 128 << 10;

// Before main(): the malloc setting above, for every executable that links this file.
[[gnu::constructor]] void return_medium_blocks_to_the_system() { mallopt(M_MMAP_THRESHOLD, kMediumBlockBytes); }

void* allocate(size_t size) {
  for (;;) {
    void* p = size >= kMinLargeBlock ? map_large(size) : std::malloc(size ? size : 1);
    if (p) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void release(void* p) noexcept {
  if (p && !unmap_large(p)) std::free(p);
}

}  // namespace

// The plain and array forms; the sized, nothrow and array-delete forms of libstdc++ call these.
// The aligned forms (alignas above 16) are left to the library: they allocate and free together,
// through aligned_alloc and free, and never reach this code.
void* operator new(size_t size) { return allocate(size); }
void* operator new[](size_t size) { return allocate(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete[](void* p, size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
