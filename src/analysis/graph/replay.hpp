// Replaying the dependency graph: every node starts when its last incoming edge is ready (the
// source's anchor plus the edge's lag) and lasts its duration; a host wait ends when its own cost
// is paid and the GPU work it waits for has ended plus the wake-up. With the measured state the
// replay gives back the measured times; an edit changes the state and the replay says what follows.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/graph/dependency_graph.hpp"

namespace whyslow {

// An edge an edit took away (a host sync removed): it no longer holds its target back.
inline constexpr int64_t kEdgeRemoved = INT64_MIN;

// What an edit may change: each node's own duration, the lag after its predecessor on its lane,
// each other edge's lag.
struct GraphState {
  std::vector<int64_t> dur, order_lag, edge_lag;
};
GraphState measured_state(const Graph& graph);

// Which edge set a node's start or a host wait's end.
inline constexpr uint32_t kByOwnTime = UINT32_MAX;   // a source (pinned at its measured start), or start + duration
inline constexpr uint32_t kByOrder = UINT32_MAX - 1; // its predecessor on the lane
struct ReplayTimes {
  std::vector<int64_t> start, end;
  std::vector<uint32_t> start_by, end_by;  // kByOwnTime, kByOrder or an index into Graph::edges
  uint64_t cycle_nodes = 0;  // nodes on a cycle of edges (clock skew between lanes), replayed at their measured order
};
ReplayTimes replay(const Graph& graph, const GraphState& state);

// The order replay() times the graph's events in (each node's start and end): topological, once
// per graph (build_graph calls it), since edits change durations and lags, never edges.
void order_events(Graph& graph);

// Sets each edge's lag so that the replay reproduces the measured times: the edge that binds a
// node (the latest to be ready at its nominal lag) gets the measured lag, the others their nominal
// one, never more than the measured start allows. build_graph calls it.
void bind_lags(Graph& graph);

}  // namespace whyslow
