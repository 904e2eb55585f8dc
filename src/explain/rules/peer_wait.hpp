// How long each collective of one rank's trace sat waiting for a late peer, as that one trace can
// tell (shared by comm_wait, which reports the wait, and exposed_comm, which leaves it out of what
// overlapping can win back). A collective ends only when every rank of its group has joined, so
// an early rank spends the difference inside the kernel; its own trace shows that as a collective
// far longer than it needs:
//   - by its bytes, where the trace says its size and the GPU's link is known: beyond its bytes at
//     half the link's peak bus bandwidth plus a fixed latency;
//   - else by the pattern of its kind: beyond the median of this trace's calls of the same kind
//     and process group, when it takes several times that median and few of them do.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/rules/comm_steps.hpp"

namespace whyslow {

enum class WaitBasis : uint8_t { None, Bytes, Pattern };

struct PeerWait {
  int64_t wait_ns = 0;    // beyond what the call needs
  int64_t typical_ns = 0; // WaitBasis::Pattern: the median of its kind and group it is measured against
  WaitBasis basis = WaitBasis::None;
};

// One per call of `calls`, in its order.
std::vector<PeerWait> peer_waits(const Trace& trace, const Facts& facts, const SteadyCalls& calls);

// The median over the steady steps of the waits summed per step.
int64_t median_wait_per_step(const SteadyCalls& calls, const std::vector<PeerWait>& waits);

// Whether a wait of `wait_ns` per step of `step_ns` is comm_wait's to report: the one test, so that
// exposed_comm names comm_wait exactly where it is in the output.
bool peer_wait_reported(int64_t wait_ns, int64_t step_ns);

}  // namespace whyslow
