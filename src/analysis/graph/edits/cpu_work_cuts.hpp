// Cutting CPU work out of a lane of the graph, for the edits that take host time off a step
// (one-off: first-call work; host-op: a named op's own work).
#pragma once

#include <cstdint>
#include <utility>

#include "analysis/graph/replay.hpp"

namespace whyslow {

// The nodes of lane nodes first..last that overlap [a, b), as [from, to): a CPU lane's nodes are
// numbered in time order and follow one another without overlap, so they are a range found by
// halving (a scan of the whole step for each op was quadratic in the cold step's length).
std::pair<NodeId, NodeId> nodes_within(const Graph& g, NodeId first, NodeId last, int64_t a, int64_t b);

// Removes up to `ns` (INT64_MAX: all of it) from the CPU-work nodes of lane nodes first..last in
// [a, b), each in proportion to the part of it inside [a, b) that is left, at the state's
// durations; returns what it removed.
int64_t shrink_work(const Graph& g, GraphState& s, NodeId first, NodeId last, int64_t a, int64_t b, int64_t ns);

}  // namespace whyslow
