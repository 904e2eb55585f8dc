// Binary search for a run of searches whose answers move a little at a time: a trace's launches
// and kernels come in nearly the order of their correlation ids, so the event a kernel looks up
// sits next to the one the kernel before it found.
#pragma once

#include <algorithm>
#include <cstddef>

namespace whyslow {

// std::lower_bound(first, last, value, less), searched from `hint` (any position in
// [first, last], such as the previous answer): steps of 1, 2, 4, … away from it until the answer
// is bracketed, then bisection inside the bracket. O(log d) for an answer d places from the hint,
// and the probes stay near each other in memory.
template <typename It, typename T, typename Less>
It gallop_lower_bound(It first, It last, It hint, const T& value, Less less) {
  std::ptrdiff_t step = 1;
  if (hint != last && less(*hint, value)) {
    // The answer lies after the hint: lo only ever holds an element below the value.
    It lo = hint;
    for (;;) {
      if (last - lo <= step) return std::lower_bound(lo + 1, last, value, less);
      const It probe = lo + step;
      if (!less(*probe, value)) return std::lower_bound(lo + 1, probe + 1, value, less);
      lo = probe;
      step *= 2;
    }
  }
  // The answer is the hint or lies before it: hi is never past the answer.
  It hi = hint;
  for (;;) {
    if (hi - first <= step) return std::lower_bound(first, hi, value, less);
    const It probe = hi - step;
    if (less(*probe, value)) return std::lower_bound(probe + 1, hi, value, less);
    hi = probe;
    step *= 2;
  }
}

}  // namespace whyslow
