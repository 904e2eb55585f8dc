// What the cross-rank passes read of one rank: medians of its steady steps, its collectives'
// times and its blocks' time per step. Kept small and apart from Facts on purpose: it is what a
// rank hands over (an MPI driver will gather these, serialized, instead of whole traces).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

struct RankCollective {
  std::string group;      // process group name; "" when the trace does not say
  int64_t seq = -1;       // sequence number in the group; -1 when the trace does not say
  CollectiveKind kind = CollectiveKind::Other;
  int64_t start_ns = 0, end_ns = 0;  // the kernel, on this rank's clock
};

// Time per steady step in one block: a record_function block or DataLoader span ("## forward ##"),
// a CPU-time category ("cpu:python"), or the GPU's compute ("gpu:compute").
struct RankBlock {
  std::string name;
  int64_t per_step_ns = 0;
};

struct RankDigest {
  int32_t rank = -1;
  int32_t world_size = -1;  // distributedInfo; -1 when absent
  std::string path;
  uint32_t steps = 0;        // steady steps (1 for a trace without steps: its window)
  uint32_t trace_steps = 1;  // all steps (1 without steps): what the collectives spread over
  // Medians over the steady steps.
  int64_t step_ns = 0, compute_ns = 0, comm_ns = 0, exposed_comm_ns = 0;
  int64_t first_step_start_ns = 0;  // the first steady step's start (the window's without steps)
  CpuBreakdown cpu{};
  std::vector<RankCollective> collectives;  // in trace order
  std::vector<RankBlock> blocks;            // sorted by name
};

RankDigest make_digest(const Trace& trace, const Facts& facts, int32_t rank);

}  // namespace whyslow
