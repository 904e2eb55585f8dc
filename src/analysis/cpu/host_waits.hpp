// Which host API calls block the CPU until the GPU catches up: synchronize calls, synchronous
// copies, and copies to or from pageable memory (CUDA stages those through a bounce buffer and
// returns only when the copy is done).
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/name_memo.hpp"
#include "trace/trace.hpp"

namespace whyslow {

enum class HostWait : uint8_t { None, Sync, BlockingCopy };

// One call's class, its name tested on the spot: for a few calls.
HostWait host_wait_kind(const Trace& trace, EventId host_call);

// The same answer for a pass that asks of every host call: each name is tested once, the first
// time a call (or the copy it launched) with that name comes up (name_memo.hpp). Belongs to one
// pass on one thread.
class HostWaitNames {
 public:
  explicit HostWaitNames(const Trace& trace);
  HostWait of(EventId host_call);

 private:
  struct Traits {
    HostWait wait;  // by the call's name alone
    bool pageable;  // a copy's name that says it went through pageable memory
  };
  static Traits test(std::string_view name);
  const Trace& t_;
  NameMemo<Traits, Traits (*)(std::string_view)> names_;
};

}  // namespace whyslow
