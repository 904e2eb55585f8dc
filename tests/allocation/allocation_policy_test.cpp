// How the executables allocate (src/allocation/allocation_policy.cpp), linked into this test
// alone: blocks of two huge pages or more are their own mappings, aligned and advised for huge pages,
// and unmapped on delete; smaller ones, and malloc's own chunks that happen to be aligned, stay
// malloc's, from its heap: malloc maps nothing below 4 MiB, however large a block was freed before.
#include <malloc.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kMinLargeBlock = 2 * kHugePage;  // allocation_policy.cpp's

bool aligned_to_huge_page(const void* p) { return reinterpret_cast<uintptr_t>(p) % kHugePage == 0; }

// The VmFlags line of the mapping that contains address `a` (/proc/self/smaps), or "" when no mapping does.
std::string vm_flags_of(uintptr_t a) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < 17) {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST(LargeBlocks, ABlockOfTwoHugePagesOrMoreIsAlignedAdvisedAndUnmappedOnDelete) {
  const size_t size = 3 * kHugePage + 12345;
  char* p = static_cast<char*>(::operator new(size));
  EXPECT_TRUE(aligned_to_huge_page(p));
  for (size_t i = 0; i < size; i += 4096) p[i] = static_cast<char>(i / 4096);
  p[size - 1] = 'z';
  for (size_t i = 0; i < size; i += 4096) ASSERT_EQ(p[i], static_cast<char>(i / 4096));
  EXPECT_EQ(p[size - 1], 'z');
  // "hg": MADV_HUGEPAGE was applied to the mapping (the kernel may still back it in small pages).
  // A kernel built without transparent huge pages refuses the advice: nothing to see there.
  const uintptr_t where = reinterpret_cast<uintptr_t>(p);
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    EXPECT_NE(vm_flags_of(where).find(" hg"), std::string::npos) << vm_flags_of(where);
  }
  ::operator delete(p);
  EXPECT_EQ(vm_flags_of(where), "") << "the block's mapping is still there after delete";
}

TEST(LargeBlocks, ASmallerBlockIsMallocs) {
  void* p = ::operator new(kMinLargeBlock - 1);
  EXPECT_GE(malloc_usable_size(p), kMinLargeBlock - 1);  // a malloc chunk: malloc knows its size
  ::operator delete(p);
  void* q = ::operator new(0);  // a distinct, deletable pointer
  EXPECT_NE(q, nullptr);
  ::operator delete(q);
}

TEST(LargeBlocks, AMallocChunkThatHappensToBeAlignedIsFreedByMalloc) {
  // What delete meets when one of malloc's chunks starts on a huge page: not a large block, so
  // it goes back to malloc. (aligned_alloc makes one on purpose; delete of it is what the library's
  // own aligned operator new pairs with free, exercised here through the plain delete's lookup.)
  void* p = std::aligned_alloc(kHugePage, 64);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(aligned_to_huge_page(p));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
  ::operator delete(p);
#pragma GCC diagnostic pop
  void* again = std::aligned_alloc(kHugePage, 64);  // malloc still works: its chunk came back intact
  ASSERT_NE(again, nullptr);
  std::free(again);
}

// glibc marks a chunk it mapped on its own with bit 1 (IS_MMAPPED) of the size word before it.
bool mapped_by_malloc(const void* p) { return (reinterpret_cast<const size_t*>(p)[-1] & 2) != 0; }

TEST(SmallerBlocks, ComeFromMallocsHeapEvenAfterALargerOneWasFreed) {
  // By default glibc maps a block of 128 KiB or more on its own and raises that threshold to the
  // size of a mapped block freed; set at start-up, malloc maps nothing below 4 MiB, whatever was
  // freed before. (volatile: the compiler may not drop the pairs of calls.)
  char* volatile medium = static_cast<char*>(std::malloc(size_t{1} << 20));
  medium[0] = 1;
  EXPECT_FALSE(mapped_by_malloc(medium));
  std::free(medium);
  char* volatile larger = static_cast<char*>(std::malloc(kMinLargeBlock));  // malloc itself, not new
  larger[0] = 1;
  EXPECT_TRUE(mapped_by_malloc(larger));
  std::free(larger);
  char* volatile again = static_cast<char*>(std::malloc(kMinLargeBlock));  // the threshold did not rise
  again[0] = 1;
  EXPECT_TRUE(mapped_by_malloc(again));
  std::free(again);
}

TEST(LargeBlocks, VectorsGrowingAcrossTheThresholdKeepTheirContents) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < 3'000'000; ++i) v.push_back(i * 2654435761u);
  EXPECT_TRUE(aligned_to_huge_page(v.data()));
  for (uint32_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i * 2654435761u);
  std::vector<uint32_t> copy = v;
  EXPECT_NE(copy.data(), v.data());
  EXPECT_EQ(copy, v);
  v.clear();
  v.shrink_to_fit();  // the large block goes back; the copy's stays
  EXPECT_EQ(copy[2'999'999], 2'999'999u * 2654435761u);
}

TEST(LargeBlocks, ArrayFormsAndNothrowForms) {
  auto* a = new uint64_t[kHugePage];  // 16 MiB
  a[0] = 1;
  a[kHugePage - 1] = 2;
  EXPECT_TRUE(aligned_to_huge_page(a));
  delete[] a;
  void* n = ::operator new(4 * kHugePage, std::nothrow);
  ASSERT_NE(n, nullptr);
  ::operator delete(n, std::nothrow);
  // Sizes no system maps: a runtime value, so the compiler cannot refuse them first.
  volatile size_t too_big = SIZE_MAX - kHugePage;
  EXPECT_EQ(::operator new(too_big, std::nothrow), nullptr);
  EXPECT_THROW((void)::operator new(too_big), std::bad_alloc);
  EXPECT_EQ(::operator new[](too_big / 2, std::nothrow), nullptr);
}

TEST(LargeBlocks, ThreadsAllocatingAndFreeingAtOnce) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int round = 0; round < 50; ++round) {
        const size_t words = (kHugePage / 8) * (1 + (round + t) % 3) + 17 * round;
        std::vector<uint64_t> block(words);
        std::iota(block.begin(), block.end(), static_cast<uint64_t>(t) << 40);
        std::vector<uint64_t> small(1000, static_cast<uint64_t>(round));
        for (size_t i = 0; i < words; i += 4096)
          if (block[i] != (static_cast<uint64_t>(t) << 40) + i) ++failures[t];
        if (small[999] != static_cast<uint64_t>(round)) ++failures[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
