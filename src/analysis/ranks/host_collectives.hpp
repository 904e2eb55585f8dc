// Collectives that run on the host: Gloo's (the backend torch uses for CPU tensors, and for CUDA
// tensors where NCCL cannot run: two ranks on one GPU) put no kernel on the GPU — each runs on a
// Gloo worker thread inside a `gloo:<collective>` annotation, from when this rank joins it until
// every rank has. Their spans are to the cross-rank passes what NCCL's kernels are: a collective
// ends on every rank together, and the rank that joins last starts it last.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/facts.hpp"
#include "analysis/ranks/rank_digest.hpp"

namespace whyslow {

// The `gloo:*` annotations, in the order they start, as collectives without group or sequence number (the
// trace records neither for them).
std::vector<RankCollective> host_collectives(const Trace& trace);

// Per steady step, the union of the host collectives that start in it, and the part of that union
// during which the GPU ran no work (a host collective's time is exposed unless GPU work runs
// beside it); medians over the steady steps.
struct HostCommTime {
  int64_t comm_ns = 0, exposed_ns = 0;
};
HostCommTime host_comm_time(const Trace& trace, const Facts& facts, const std::vector<RankCollective>& collectives);

}  // namespace whyslow
