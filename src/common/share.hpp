// A part of a whole as a fraction: a block's share of the step, a kernel's of the GPU's busy time.
#pragma once

#include <cstdint>

namespace whyslow {

// 0 when there is no whole (an empty step), so a caller's threshold test needs no guard.
inline double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

}  // namespace whyslow
