// Steps on the graph: where each step starts and ends among its thread's nodes, its replayed
// length, its critical path, and the steady step every what-if is measured by.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/graph/dependency_graph.hpp"
#include "analysis/graph/replay.hpp"

namespace whyslow {

// A stepless trace whose main thread's top-level work repeats (loops.cpp): its loop, whose
// iterations the graph takes as its steps (iteration 1, a prefill or a first pass, apart); nullptr else.
const LoopFacts* stepless_loop(const Facts& facts);

// A step's nodes on its thread's lane: ids first..last (a lane's ids are consecutive).
struct StepSpan {
  uint32_t lane = 0;
  NodeId first = kNoNode, last = kNoNode;
  bool empty() const { return first == kNoNode || last == kNoNode || last < first; }
};
// One per Facts::steps entry; a stepless trace: one per iteration of its loop (stepless_loop()),
// else one over its steady window (else its window).
std::vector<StepSpan> step_spans(const Trace& trace, const Facts& facts, const Graph& graph);
// The spans of the steady steps (steady_steps(); a stepless loop: iterations 2..N), as indices into
// step_spans()'s answer.
std::vector<size_t> steady_spans(const Facts& facts);

// The GPU work launched in a step: from any thread's calls that start within the step's span
// (the autograd thread launches the backward pass); `sources`, when given, gets those calls'
// CPU lanes' node ranges [first, last].
std::vector<NodeId> step_work(const Graph& graph, const StepSpan& span,
                              std::vector<std::pair<NodeId, NodeId>>* sources = nullptr);

// One step's length: from its first node's start to the later of its last node's end and, with
// `with_gpu`, the end of the GPU work launched in it (a loop that never waits for the GPU lags it).
int64_t span_length(const Graph& graph, const ReplayTimes& times, const StepSpan& span, bool with_gpu);
// The steady step: the median over the steady steps of the time from one step's completion (its
// CPU end or its GPU work's, the later) to the next one's. The one step time every what-if is measured by.
int64_t steady_step_ns(const Graph& graph, const ReplayTimes& times, const std::vector<StepSpan>& spans,
                       const std::vector<size_t>& steady);

// The chain of nodes and edges that set the step's end, walked back to its start, summed by what
// each part is; the parts add up to the step's replayed length.
std::vector<PathPart> critical_path(const Trace& trace, const Graph& graph, const GraphState& state,
                                    const ReplayTimes& times, const StepSpan& span);

// A step's critical path is drawn from this many segments at most. A GPU-bound step's path runs
// through every kernel of its stream (each with the gap before it: two segments), and an LLM's
// step launches tens of thousands: the HTML page carries five numbers per segment and draws them
// all each frame, so a few thousand (~100 KB of page) show a long path's beginning and stay light.
inline constexpr size_t kMaxPathSegments = 4096;

// The same walk as critical_path(), piece by piece: each node's replayed time and each edge's lag
// on the path, clipped to the step, in time order from the step's start (the first kMaxPathSegments).
std::vector<PathSegment> critical_path_segments(const Graph& graph, const GraphState& state,
                                                const ReplayTimes& times, const StepSpan& span);

// Parts summed by (kind, what), each divided by `divisor` (a count of steps), largest first.
std::vector<PathPart> largest_first(const std::map<std::pair<PathKind, std::string>, int64_t>& sum, int64_t divisor);

// The family of a piece of GPU work, as a critical path names it: "GEMM", "attention",
// "elementwise", "reduction", "Triton (torch.compile)", "communication", "copy HtoD", "memset", …
std::string gpu_family(const Trace& trace, EventId gpu_work);

}  // namespace whyslow
