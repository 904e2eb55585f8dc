// Host waits: each synchronize call or blocking copy, how long the CPU was blocked, and how
// much GPU work (on any stream) actually ran while it waited.
#include "analysis/comm/comm_names.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/passes.hpp"

namespace whyslow {

SyncFacts sync_waits(const Trace& t, const std::vector<Interval>& gpu_busy) {
  SyncFacts f;
  std::vector<Interval> comm;
  CommKernels comm_kernels(t);
  for (EventId e = 0; e < t.size(); ++e)
    if (comm_kernels.is(e)) comm.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(comm);
  // A call is the distributed library's when an enclosing op, annotation or Python frame on its
  // thread names DDP, FSDP or c10d.
  NearestAncestor library_frame(t, [&](EventId a) { return is_distributed_library_frame(t.name_of(a)); });
  HostWaitNames waits(t);
  for (EventId e = 0; e < t.size(); ++e) {
    const HostWait w = waits.of(e);
    if (w == HostWait::None) continue;
    SyncCall c;
    c.event = e;
    c.wait_ns = t.dur_ns[e];
    c.gpu_busy_ns = covered_length(gpu_busy, t.start_ns[e], t.end_ns(e));
    c.comm_busy_ns = covered_length(comm, t.start_ns[e], t.end_ns(e));
    f.total_comm_busy_ns += c.comm_busy_ns;
    c.blocking_copy = w == HostWait::BlockingCopy;
    c.distributed_library = library_frame.of(t.parent[e]) != kNoEvent;
    if (c.distributed_library) {
      ++f.library_calls;
      f.library_wait_ns += c.wait_ns;
    }
    f.total_wait_ns += c.wait_ns;
    f.total_gpu_busy_ns += c.gpu_busy_ns;
    f.calls.push_back(c);
  }
  return f;
}

}  // namespace whyslow
