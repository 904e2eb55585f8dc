// How whyslow's executables allocate. Two rules, for the two kinds of block the pipeline makes:
//  - a block of kMinLargeBlock (4 MiB) or more (operator new below) is mapped on its own, aligned to
//    a huge page and advised for transparent huge pages (MADV_HUGEPAGE), and unmapped on delete;
//  - a smaller block comes from malloc's heap, never from a mapping of its own (malloc's mapping
//    threshold is set to kMinLargeBlock at start-up, below), and is reused there once freed.
//
// Why huge pages: whyslow's memory is a few dozen large arrays (the trace's columns, one entry per
// event, and the passes' per-event tables), each touched once from start to end. In 4 KiB pages a
// 542 MB trace took ~70 k page faults; on virtual machines where a fault exits to the hypervisor
// (this project's 2-core VM: 10 µs each, 0.2 µs per 4 KiB when faulted as a 2 MiB page) they were
// a third of the CPU time. On a kernel with THP disabled ("never") the advice is a no-op and the
// blocks behave as malloc's own mappings.
//
// Why the heap below that: malloc maps a block of 128 KiB or more on its own by default, and
// unmaps it when freed, so the passes' medium tables (a column of a 100 k-event trace, a vector
// growing by doubling) were faulted in afresh each time; from the heap they reuse the pages freed
// before. Measured (median of 5 runs each, against a 128 KiB threshold): owlv2 (55.6 MB) 0.158 →
// 0.110 s, the 542 MB trace 0.79 → 0.67 s, for 5-6 MB more peak memory. A fixed threshold, not
// glibc's default that rises to the largest block freed so far (up to 32 MiB): then the large
// temporaries landed in the heap and stayed resident once freed (14 MB more on a 540 MB trace).
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

// The live large blocks (start → mapped length). Few (dozens), so a vector under a mutex, searched
// in full; delete looks here only for pointers aligned to a huge page, which malloc's
// 16-byte-aligned chunks almost never are, so a small block's delete takes no lock.
struct LargeBlocks {
  std::mutex m;
  std::vector<std::pair<uintptr_t, size_t>> live;
};

// Constructed on first use (a small block: malloc's, through the operator new below) and never
// destroyed: delete may run after static destructors.
LargeBlocks& large_blocks() {
  static LargeBlocks* blocks = new LargeBlocks;
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
  blocks.live.emplace_back(aligned, length);
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
    for (auto& block : blocks.live) {
      if (block.first == start) {
        length = block.second;
        block = blocks.live.back();
        blocks.live.pop_back();
        break;
      }
    }
  }
  if (length == 0) return false;
  munmap(p, length);
  return true;
}

// Before main(), for every executable that links this file: malloc maps nothing below
// kMinLargeBlock (setting the threshold also stops glibc from raising it).
[[gnu::constructor]] void keep_smaller_blocks_in_the_heap() {
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMinLargeBlock));
}

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

// Every form that allocates or frees an ordinary block: plain, array, nothrow and sized. The
// aligned forms (alignas above 16) are left to the library: they allocate and free together,
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
