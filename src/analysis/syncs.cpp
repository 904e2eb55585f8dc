// Host waits: each synchronize call or blocking copy, how long the CPU was blocked, and how
// much GPU work (on any stream) actually ran while it waited.
#include "analysis/host_waits.hpp"
#include "analysis/passes.hpp"

namespace whyslow {

SyncFacts sync_waits(const Trace& t, const std::vector<Interval>& gpu_busy) {
  SyncFacts f;
  for (EventId e = 0; e < t.size(); ++e) {
    const HostWait w = host_wait_kind(t, e);
    if (w == HostWait::None) continue;
    SyncCall c;
    c.event = e;
    c.wait_ns = t.dur_ns[e];
    c.gpu_busy_ns = covered_length(gpu_busy, t.start_ns[e], t.end_ns(e));
    c.blocking_copy = w == HostWait::BlockingCopy;
    f.total_wait_ns += c.wait_ns;
    f.total_gpu_busy_ns += c.gpu_busy_ns;
    f.calls.push_back(c);
  }
  return f;
}

}  // namespace whyslow
