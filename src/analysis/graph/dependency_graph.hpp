// The trace as a dependency graph (docs/GRAPH.md): every CPU thread that launches GPU work and
// every GPU stream a lane of nodes, every edge backed by the trace: order on a thread or a stream,
// a launch call → the GPU work it launched (correlation), a host wait → the GPU work it waited for,
// a stream wait → the other stream's work. A replay of it reproduces the measured times; an edit
// (graph/edits/) changes durations and lags and is replayed again.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

enum class NodeKind : uint8_t {
  CpuWork,   // a thread's time between two host calls (ops, Python, dispatch, idle): measured length
  HostCall,  // a runtime/driver call that does not wait for the GPU: a launch, an async copy, a query
  HostWait,  // a call that blocks until GPU work ends: a synchronize, a blocking copy
  GpuWork,   // a kernel, copy or memset on its stream
  // A helper thread idle until another thread hands it work (the autograd engine's thread before a
  // backward pass): it ends when its Handoff edge says.
  ThreadWait,
};

enum class EdgeKind : uint8_t {
  Launch,      // launch call (its start) → the GPU work (its start): correlation
  HostSync,    // GPU work (its end) → the host wait that returned after it (its end)
  StreamWait,  // GPU work on another stream (its end) → work queued behind a cudaStreamWaitEvent (its start)
  Handoff,     // the steps' thread (a node's end) → a helper thread's idle stretch that ended then (its end)
  // A host wait (its start) → queued work the driver sent only when the host waited (its start):
  // lazy submission (analysis/gpu/lazy_submission.hpp), only in a trace with no dependency evidence.
  Submit,
};
// A helper thread idle this long between events waits for another thread to hand it work: shorter
// stretches are the thread's own unrecorded time between calls (Python, the interpreter).
inline constexpr int64_t kMinHandoffIdleNs = 20'000;

// The edges that set their target's end (a wait's return) rather than its start.
inline bool sets_end(EdgeKind k) { return k == EdgeKind::HostSync || k == EdgeKind::Handoff; }
// The edges anchored at their source's start rather than its end: a launch, a submission.
inline bool from_source_start(EdgeKind k) { return k == EdgeKind::Launch || k == EdgeKind::Submit; }

// An incoming edge other than the order on the node's lane (which is implicit: Graph::prev).
struct GraphEdge {
  NodeId from = kNoNode;
  EdgeKind kind = EdgeKind::Launch;
  int64_t lag_ns = 0;  // from the anchor (the source's start for a launch, else its end)
};

struct GraphNode {
  int64_t start_ns = 0, end_ns = 0;  // measured
  // Its own work: end − start, except a host wait bound by the GPU: the call's own cost, the rest
  // being the wait (its HostSync edge sets its end).
  int64_t dur_ns = 0;
  EventId event = kNoEvent;  // the host call or GPU work; kNoEvent for CPU work between calls
  uint32_t lane = 0;
  NodeKind kind = NodeKind::CpuWork;
  CpuCategory category = CpuCategory::Other;  // CPU nodes: where most of its time counts (cpu_time.cpp)
};

struct GraphLane {
  TrackId track = 0;
  bool gpu = false;
  std::vector<NodeId> nodes;  // in time order
};


// The stretch of the trace a graph covers: the events of the CPU lanes that start in it, the GPU
// work that starts in it or was launched in it.
struct GraphWindow {
  int64_t start_ns = INT64_MIN, end_ns = INT64_MAX;
};

struct Graph {
  GraphWindow window;
  std::vector<GraphNode> nodes;
  std::vector<NodeId> prev;          // the previous node on its lane, kNoNode for the first
  std::vector<int64_t> order_lag;    // the lag after prev's end (CPU lanes: 0; streams: the gap)
  std::vector<uint32_t> edge_begin;  // node i's other incoming edges: edges[edge_begin[i], edge_begin[i + 1])
  std::vector<GraphEdge> edges;
  std::vector<GraphLane> lanes;
  // Per node: of a CPU node's time, what a CUDA graph replay would not do (dispatch, launches,
  // Python, allocator and profiler work: what a captured region skips) and its time in DataLoader spans.
  std::vector<int64_t> graph_skippable_ns, data_loading_ns;
  NominalLags nominal;
  // Every launch edge as (launch call, GPU work), sorted: the work a range of a lane's nodes launched.
  std::vector<std::pair<NodeId, NodeId>> launches;
  // replay()'s order of the events 2i (node i's start) and 2i + 1 (its end) (order_events()), and
  // the nodes left on a cycle of edges (lanes whose clocks disagree), ordered by measured time.
  std::vector<uint32_t> event_order;
  uint64_t cycle_nodes = 0;

  size_t size() const { return nodes.size(); }
  std::pair<const GraphEdge*, const GraphEdge*> in_edges(NodeId n) const {
    return {edges.data() + edge_begin[n], edges.data() + edge_begin[n + 1]};
  }
};

// The graph of a window of the trace (all of it by default): the CPU lanes are the threads with
// host calls and the steps' (or the main) thread, cut at each step's bounds so that a step starts
// and ends at a node.
Graph build_graph(const Trace& trace, const Facts& facts, GraphWindow window = {});

// Parts of build_graph, each in its own file: the trace's nominal lags (nominal_lags.cpp), what
// each CPU node is made of (cpu_work.cpp).
NominalLags measure_nominal_lags(const Trace& trace, const Graph& graph);
// split_cpu_work also turns a helper thread's idle stretches (off `main_track`) into ThreadWait nodes.
void split_cpu_work(const Trace& trace, const Facts& facts, TrackId main_track, Graph& graph);

}  // namespace whyslow
