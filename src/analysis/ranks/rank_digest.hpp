// What the cross-rank passes read of one rank: medians of its steady steps, its collectives'
// times and its blocks' time per step. Kept small and apart from Facts on purpose: it is what a
// rank hands over (an MPI driver will gather these, serialized, instead of whole traces).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

struct RankCollective {
  std::string group;      // process group name; "" when the trace does not say
  int64_t seq = -1;       // sequence number in the group; -1 when the trace does not say
  CollectiveKind kind = CollectiveKind::Other;
  int64_t start_ns = 0, end_ns = 0;  // the kernel, on this rank's clock
};

// Where a rank's time per step goes, in what the straggler's cause is looked for in: the user's
// code first (what a record_function block, a module or a Python function of theirs takes is what
// they can change), then the CPU-time categories and the GPU's compute.
enum class RankBlockKind : uint8_t {
  Annotation,   // a record_function block or DataLoader span ("data", "## forward ##")
  Module,       // an nn.Module class, its instances together ("Linear")
  Function,     // a Python function of the user's files ("train.py(42): load_batch")
  CpuCategory,  // "cpu:python", … (CpuCategory)
  GpuCompute,   // "gpu:compute"
};
std::string_view to_string(RankBlockKind k);  // "annotation", "module", "function", "cpu_category", "gpu_compute"
inline bool is_code(RankBlockKind k) { return k <= RankBlockKind::Function; }

struct RankBlock {
  RankBlockKind kind = RankBlockKind::Annotation;
  std::string name;   // the block group's label (BlockGroup::label); "cpu:python"; "gpu:compute"
  int64_t per_step_ns = 0;      // code: its calls' CPU time per step (children included); else the category's, the GPU's compute
  int64_t gpu_per_step_ns = 0;  // code: the GPU work launched beneath it per step; 0 otherwise
};
inline bool operator<(const RankBlock& a, const RankBlock& b) {
  return a.kind != b.kind ? a.kind < b.kind : a.name < b.name;
}

struct RankDigest {
  int32_t rank = -1;
  int32_t world_size = -1;  // distributedInfo; -1 when absent
  std::string path;       // the trace's, as it was read
  std::string read_from;  // the digest file this was read from; empty when read from the trace itself
  uint32_t steps = 0;        // steady steps (1 for a trace without steps: its window)
  uint32_t trace_steps = 1;  // all steps (1 without steps): what the collectives spread over
  // Medians over the steady steps.
  int64_t step_ns = 0, compute_ns = 0, comm_ns = 0, exposed_comm_ns = 0;
  int64_t first_step_start_ns = 0;  // the first steady step's start (the window's without steps)
  CpuBreakdown cpu{};
  std::vector<RankCollective> collectives;  // in trace order
  std::vector<RankBlock> blocks;            // sorted by (kind, name), each once
};

// The file to name in an error about this rank: the one the user gave ("r3.digest.json, the digest
// of rank-3.json"), not only the trace the digest was made from, which may be long gone.
std::string named_file(const RankDigest& d);

RankDigest make_digest(const Trace& trace, const Facts& facts, int32_t rank);

}  // namespace whyslow
