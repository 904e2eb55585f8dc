// What each CPU-work node of the graph is made of: each instant of a thread counts where its
// innermost open event's self time counts (Facts::cpu_category, cpu_time.cpp's rules; no event
// open: Other). A node keeps its largest category (its name on a critical path), the part a CUDA
// graph replay would not do, and its DataLoader time.
#include <algorithm>
#include <array>

#include "analysis/core/innermost_sweep.hpp"
#include "analysis/graph/dependency_graph.hpp"

namespace whyslow {
namespace {

// What a captured CUDA graph's replay does not do again: the host work that only issued the
// captured launches (dispatch, the launch calls, allocator calls inside the region, Python that
// drives the model, the profiler's bookkeeping, unannotated time between them). CPU math, data
// loading, compilation and waiting stay.
bool graph_skips(CpuCategory c) {
  switch (c) {
    case CpuCategory::Dispatch:
    case CpuCategory::Launch:
    case CpuCategory::Allocator:
    case CpuCategory::Python:
    case CpuCategory::Profiler:
    case CpuCategory::Other: return true;
    default: return false;
  }
}

// The most enclosing events taken from before a windowed lane's start: deeper nesting is a
// hostile trace's, not a program's (Python frames nest a few hundred deep at most).
constexpr size_t kMaxOpenDepth = 4096;

}  // namespace

void split_cpu_work(const Trace& t, const Facts& f, TrackId main_track, Graph& g) {
  g.graph_skippable_ns.assign(g.size(), 0);
  g.data_loading_ns.assign(g.size(), 0);
  for (const GraphLane& lane : g.lanes) {
    if (lane.gpu || lane.nodes.empty()) continue;
    const Track& tr = t.tracks[lane.track];
    size_t k = 0;  // the node the sweep is in
    CpuBreakdown in_node{};
    int64_t idle = 0;  // of the node, time with no event open
    auto finish_node = [&](size_t at) {
      const NodeId id = lane.nodes[at];
      GraphNode& node = g.nodes[id];
      if (node.kind == NodeKind::CpuWork) {
        size_t best = static_cast<size_t>(CpuCategory::Other);
        for (size_t c = 0; c < kCpuCategories; ++c) {
          if (in_node[c] > in_node[best]) best = c;
          if (graph_skips(static_cast<CpuCategory>(c))) g.graph_skippable_ns[id] += in_node[c];
        }
        node.category = static_cast<CpuCategory>(best);
        g.data_loading_ns[id] = in_node[static_cast<size_t>(CpuCategory::DataLoading)];
        if (lane.track != main_track && idle == node.dur_ns && node.dur_ns >= kMinHandoffIdleNs) node.kind = NodeKind::ThreadWait;
      } else {
        // Of the host calls, a replay skips the launches (and allocator calls): event records,
        // queries and waits outside the captured work stay.
        const bool skipped = node.event != kNoEvent && (t.is_launch(node.event) || node.category == CpuCategory::Allocator);
        g.graph_skippable_ns[id] = skipped ? node.dur_ns : 0;
      }
      in_node = {};
      idle = 0;
    };
    // [a, b) of category c, handed to the nodes it overlaps (ascending calls).
    auto add = [&](int64_t a, int64_t b, CpuCategory c, bool open) {
      while (a < b && k < lane.nodes.size()) {
        const GraphNode& node = g.nodes[lane.nodes[k]];
        if (node.end_ns <= a) {
          finish_node(k++);
          continue;
        }
        const int64_t lo = std::max(a, node.start_ns), hi = std::min(b, node.end_ns);
        if (lo < hi) {
          in_node[static_cast<size_t>(c)] += hi - lo;
          if (!open) idle += hi - lo;
        }
        if (node.end_ns >= b) return;
        a = node.end_ns;
      }
    };
    // The sweep starts at the lane's first node: the events open then (the first event's
    // ancestors that enclose it) go on the stack first, outermost first.
    const int64_t from = g.nodes[lane.nodes.front()].start_ns, to = g.nodes[lane.nodes.back()].end_ns;
    auto category = [&](EventId e) { return e < f.cpu_category.size() ? f.cpu_category[e] : CpuCategory::Other; };
    const auto first = std::lower_bound(tr.events.begin(), tr.events.end(), from,
                                        [&](EventId e, int64_t ts) { return t.start_ns[e] < ts; });
    const auto last = std::lower_bound(first, tr.events.end(), to, [&](EventId e, int64_t ts) { return t.start_ns[e] < ts; });
    std::vector<OpenEvent<CpuCategory>> open;
    if (first != tr.events.end()) {
      for (EventId a = t.parent[*first]; a != kNoEvent && open.size() < kMaxOpenDepth; a = t.parent[a])
        if (t.end_ns(a) > from) open.push_back({t.end_ns(a), category(a)});
      std::reverse(open.begin(), open.end());
    }
    sweep_innermost<CpuCategory>(t, first, last, from, to, std::move(open), CpuCategory::Other,
                                 [&](std::vector<EventId>::const_iterator it) { return category(*it); }, add);
    while (k < lane.nodes.size()) finish_node(k++);
  }
}

}  // namespace whyslow
