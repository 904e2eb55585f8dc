// What the dependency graph says (src/analysis/graph/, docs/GRAPH.md): each step replayed and its
// critical path, and what each edit would make of the step. Facts::graph holds it; the graph itself
// is built, replayed and dropped inside analyze().
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

// The typical latencies of the trace's edges, measured in it (nominal_lags.cpp): what an edge
// costs when it is not waiting for anything else. An edge that binds a node gets its measured
// lag; the excess over its nominal is a wait the trace shows no cause for.
struct NominalLags {
  int64_t launch_ns = 0;      // launch call start → its work's start, the stream idle
  int64_t stream_gap_ns = 0;  // one piece of work's end → the next one's start on a busy stream
  int64_t wake_ns = 0;        // the GPU work's end → the host wait's return
  int64_t wait_call_ns = 0;   // a host wait's own cost, with nothing left to wait for
};

// One part of a step's critical path: what held the step's end back for `ns`.
enum class PathKind : uint8_t {
  Cpu,      // CPU work on the launching thread: `what` is its category (python, dispatch, launch, …)
  Gpu,      // GPU work: `what` is its family (GEMM, elementwise, copy HtoD, communication, …)
  Latency,  // an edge's nominal cost: launch latency, stream gap, sync wake-up
  Wait,     // an edge's lag beyond its nominal cost: another stream, or a cause the trace does not show
};
std::string_view to_string(PathKind k);  // "cpu", "gpu", "latency", "wait"

struct PathPart {
  PathKind kind = PathKind::Cpu;
  std::string what;
  int64_t ns = 0;
};

// One stretch of a step's critical path as it lies on the timeline (the HTML report draws it).
struct PathSegment {
  EventId event = kNoEvent;  // the host call or GPU work; kNoEvent for CPU work between host calls and an edge's lag
  int64_t start_ns = 0, end_ns = 0;  // replayed: the measured times, the graph unedited
  PathKind kind = PathKind::Cpu;
  TrackId track = 0;  // its lane's; an edge's lag: the lane of the node it leads to
};

struct StepReplay {
  int64_t measured_ns = 0;  // the step's span on its thread, as the graph cut it
  int64_t replay_ns = 0;    // the same span replayed
  std::vector<PathPart> critical_path;  // summed by (kind, what), largest first; adds up to replay_ns
};

// One edit replayed (graph/edits/): the step it predicts.
struct WhatIf {
  std::string edit;      // "cuda-graphs", "no-sync", … (the --edit name)
  std::string param;     // its parameter, "" for the default
  std::string title;     // "capture each step in a CUDA graph"
  std::string change;    // what it changed, in numbers: "26 launches → 1 graph launch per step"
  std::string scope;     // what the step is: "steady step" (or iteration), the cold step's name, "whole trace"
  bool per_step = true;  // scope is the steady step (iteration), not a one-off stretch
  int64_t step_ns = 0;            // the step as replayed without the edit (= as measured)
  int64_t predicted_step_ns = 0;  // with it
};

struct GraphFacts {
  bool built = false;
  uint64_t nodes = 0, edges = 0, cycle_nodes = 0;
  NominalLags nominal;
  std::vector<StepReplay> steps;  // one per Facts::steps entry; a stepless trace: one, its (steady) window
  // The steady step (the steady steps' span to the end of their last GPU work, per step), measured and replayed.
  int64_t steady_step_ns = 0, steady_replay_ns = 0;
  double worst_replay_error = 0;  // |replay − measured| / measured, worst step
  // What sets the pace of a steady step: the steady steps' critical paths summed by (kind, what)
  // and divided by their count, largest first.
  std::vector<PathPart> steady_path;
  // The critical path of one steady step (the first the graph replays; `path_step` indexes `steps`,
  // -1 for none) piece by piece in time order: the pieces the parts above sum, clipped to the step.
  // At most kMaxPathSegments (step_replay.hpp), from the step's start.
  int32_t path_step = -1;
  std::vector<PathSegment> path;
  std::vector<WhatIf> what_if;    // every default edit that applies, largest gain first
  WhatIf all_together;            // all of them at once: the floor that remains (edit "all")
  // Edits the model cannot judge on this trace, with why: their findings keep their own estimate.
  std::vector<std::pair<std::string, std::string>> unmodelled;
};

}  // namespace whyslow
