// Which host API calls block the CPU until the GPU catches up: synchronize calls, synchronous
// copies, and copies to or from pageable memory (CUDA stages those through a bounce buffer and
// returns only when the copy is done).
#pragma once

#include "trace/trace.hpp"

namespace whyslow {

enum class HostWait : uint8_t { None, Sync, BlockingCopy };
HostWait host_wait_kind(const Trace& trace, EventId host_call);

}  // namespace whyslow
