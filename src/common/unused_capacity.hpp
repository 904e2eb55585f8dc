// Gives the memory behind a vector's unused capacity back to the system, keeping the vector as it
// is. The loader reserves each column for the events it expects (an estimate, 1.25× and more), and
// with transparent huge pages the huge page that holds a column's last event is backed whole: on
// the bench's 542 MB trace the columns' tails held 6 MB that no event uses, a twelfth of the
// trace in memory (measured: RSS after the load 77.0 → 70.8 MiB).
#pragma once

#include <type_traits>
#include <vector>

namespace whyslow {

// Returns to the system the whole pages inside [begin, end) (MADV_DONTNEED): their contents read
// as zeros afterwards. Pages only partly inside are kept, so neighbouring memory (malloc's
// headers, another block) is never touched. A no-op where the system refuses.
void release_pages_between(const void* begin, const void* end);

// The pages of v's capacity past its size. Elements past the size are never read, and a later
// push_back writes its element before reading it, so the vector stays valid for any use.
template <class T>
void release_unused_capacity(const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>, "the capacity of a vector of T holds no live object");
  release_pages_between(v.data() + v.size(), v.data() + v.capacity());
}

}  // namespace whyslow
