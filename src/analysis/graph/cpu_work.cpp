// What each CPU-work node of the graph is made of: each instant of a thread counts where its
// innermost open event's self time counts (Facts::cpu_category, cpu_time.cpp's rules; no event
// open: Other). A node keeps its largest category (its name on a critical path), the part a CUDA
// graph replay would not do, and its DataLoader time. Of the Python and unrecorded time, only the
// short stretches between calls are the glue that drives launches; a long one that calls nothing
// (a sleep, a wait on another thread or a socket, a host collective's span) is the program's own
// host time, and a replay keeps it.
#include <algorithm>
#include <array>

#include "analysis/core/innermost_sweep.hpp"
#include "analysis/core/intervals.hpp"
#include "analysis/graph/dependency_graph.hpp"
#include "analysis/passes.hpp"

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

// A stretch of Python or unrecorded time (Other) this long with no call, op or launch inside is
// not the glue between launches that a CUDA graph replay skips: issuing a launch from Python takes
// microseconds, and the gaps between the ops of eager steps are 5–50 µs on the H200 fixtures
// (tests/fixtures/torch: none of 1 ms; the public corpus's launching threads have most of their
// gap time under 100 µs). What is longer launches nothing: time.sleep() in a record_function block
// (tests/fixtures/ranks/gloo/data_sleep: 30 ms), the main thread waiting in backward() for DDP's
// Gloo all-reduce, the Gloo worker inside `gloo:all_reduce`. The same line as cpu_time.cpp's
// kMinPythonCpuWorkNs, which calls a Python call that long that launches nothing CPU work.
constexpr int64_t kMinQuietHostNs = 1'000'000;

bool is_glue(CpuCategory c) { return c == CpuCategory::Python || c == CpuCategory::Other; }

// The most enclosing events taken from before a windowed lane's start: deeper nesting is a
// hostile trace's, not a program's (Python frames nest a few hundred deep at most).
constexpr size_t kMaxOpenDepth = 4096;

// Sweeps one CPU lane from its first node's start to its last node's end: each stretch with the
// innermost open event's category (sweep_innermost's add(a, b, category, open)).
template <class Add>
void sweep_lane(const Trace& t, const std::vector<CpuCategory>& categories, const Graph& g, const GraphLane& lane,
                Add&& add) {
  const Track& tr = t.tracks[lane.track];
  // The sweep starts at the lane's first node: the events open then (the first event's
  // ancestors that enclose it) go on the stack first, outermost first.
  const int64_t from = g.nodes[lane.nodes.front()].start_ns, to = g.nodes[lane.nodes.back()].end_ns;
  auto category = [&](EventId e) { return e < categories.size() ? categories[e] : CpuCategory::Other; };
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
}

// A lane's stretches of Python or unrecorded time of ≥ kMinQuietHostNs, ascending.
std::vector<Interval> quiet_stretches(const Trace& t, const std::vector<CpuCategory>& categories, const Graph& g,
                                      const GraphLane& lane) {
  std::vector<Interval> out;
  int64_t a = 0, b = INT64_MIN;  // the glue stretch so far
  auto close = [&] {
    if (b != INT64_MIN && b - a >= kMinQuietHostNs) out.emplace_back(a, b);
    b = INT64_MIN;
  };
  sweep_lane(t, categories, g, lane, [&](int64_t x, int64_t y, CpuCategory c, bool) {
    if (x >= y) return;
    if (!is_glue(c)) return close();
    if (b != x) close(), a = x;
    b = y;
  });
  close();
  return out;
}

}  // namespace

void split_cpu_work(const Trace& t, const Facts& f, TrackId main_track, Graph& g) {
  g.graph_skippable_ns.assign(g.size(), 0);
  g.data_loading_ns.assign(g.size(), 0);
  // Facts::cpu_category covers the steps' thread only: the graph's other threads (the autograd
  // engine's, Gloo's workers) are categorized here by the same rules, or all their time would be
  // Other — launches, ops and a host collective's span alike.
  std::vector<CpuCategory> categories = f.cpu_category;
  categories.resize(t.size(), CpuCategory::Other);
  for (const GraphLane& lane : g.lanes)
    if (!lane.gpu && !lane.nodes.empty() && lane.track != main_track) categorize_track(t, lane.track, categories);
  // Each lane's quiet stretches, and of them the part no other thread is active through: where
  // another thread of the graph works meanwhile (backward() on the steps' thread while the autograd
  // engine's thread launches the backward pass), the quiet thread waits for that work, which a
  // replay shortens; the graph has no edge for that join, so the wait goes as the glue does. Where
  // every thread is quiet or idle (a sleep; Gloo's workers inside their all-reduce), the time is held.
  std::vector<std::vector<Interval>> quiet(g.lanes.size());
  std::vector<Interval> span(g.lanes.size(), {0, 0});
  for (size_t i = 0; i < g.lanes.size(); ++i) {
    const GraphLane& lane = g.lanes[i];
    if (lane.gpu || lane.nodes.empty()) continue;
    quiet[i] = quiet_stretches(t, categories, g, lane);
    span[i] = {g.nodes[lane.nodes.front()].start_ns, g.nodes[lane.nodes.back()].end_ns};
  }
  std::vector<std::vector<Interval>> held(g.lanes.size());
  for (size_t i = 0; i < g.lanes.size(); ++i) {
    if (quiet[i].empty()) continue;
    std::vector<Interval> active;  // the other lanes' time outside their quiet stretches
    for (size_t j = 0; j < g.lanes.size(); ++j) {
      if (j == i || span[j].first >= span[j].second) continue;
      int64_t at = span[j].first;
      for (const Interval& q : quiet[j]) {
        if (q.first > at) active.emplace_back(at, q.first);
        at = std::max(at, q.second);
      }
      if (span[j].second > at) active.emplace_back(at, span[j].second);
    }
    merge_intervals(active);
    size_t k = 0;
    for (const Interval& q : quiet[i]) {
      int64_t at = q.first;
      while (k < active.size() && active[k].second <= at) ++k;
      for (size_t m = k; m < active.size() && active[m].first < q.second; ++m) {
        if (active[m].first > at) held[i].emplace_back(at, active[m].first);
        at = std::max(at, active[m].second);
      }
      if (q.second > at) held[i].emplace_back(at, q.second);
    }
  }
  for (size_t li = 0; li < g.lanes.size(); ++li) {
    const GraphLane& lane = g.lanes[li];
    if (lane.gpu || lane.nodes.empty()) continue;
    size_t k = 0;  // the node the sweep is in
    CpuBreakdown in_node{};
    int64_t idle = 0;  // of the node, time with no event open
    int64_t kept = 0;  // of the node, quiet time that no other thread is active through (held)
    auto finish_node = [&](size_t at) {
      const NodeId id = lane.nodes[at];
      GraphNode& node = g.nodes[id];
      if (node.kind == NodeKind::CpuWork) {
        size_t best = static_cast<size_t>(CpuCategory::Other);
        for (size_t c = 0; c < kCpuCategories; ++c) {
          if (in_node[c] > in_node[best]) best = c;
          if (graph_skips(static_cast<CpuCategory>(c))) g.graph_skippable_ns[id] += in_node[c];
        }
        g.graph_skippable_ns[id] = std::max<int64_t>(0, g.graph_skippable_ns[id] - kept);
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
      kept = 0;
    };
    // [a, b) of category c, handed to the nodes it overlaps (ascending calls).
    auto add = [&](int64_t a, int64_t b, CpuCategory c, bool open, bool is_held) {
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
          if (is_held) kept += hi - lo;
        }
        if (node.end_ns >= b) return;
        a = node.end_ns;
      }
    };
    // Glue pieces are cut at the lane's held stretches (ascending, as the pieces come).
    const std::vector<Interval>& h = held[li];
    size_t next_held = 0;
    sweep_lane(t, categories, g, lane, [&](int64_t a, int64_t b, CpuCategory c, bool is_open) {
      if (a >= b) return;
      if (!is_glue(c) || h.empty()) return add(a, b, c, is_open, false);
      while (a < b) {
        while (next_held < h.size() && h[next_held].second <= a) ++next_held;
        if (next_held == h.size() || h[next_held].first >= b) return add(a, b, c, is_open, false);
        const Interval& x = h[next_held];
        if (x.first > a) add(a, x.first, c, is_open, false), a = x.first;
        const int64_t to = std::min(b, x.second);
        add(a, to, c, is_open, true);
        a = to;
      }
    });
    while (k < lane.nodes.size()) finish_node(k++);
  }
}

}  // namespace whyslow
