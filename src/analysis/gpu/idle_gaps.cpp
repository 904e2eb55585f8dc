// Why the GPU is idle: every stretch of a window (a step, a loop iteration, the whole trace) in
// which no kernel, copy or memset runs on any stream, split by what it waited for. The bound
// verdicts read this split: a GPU idle because the CPU launches late is a different problem from
// one whose queued work waits on an event, or one that waits for a block of CPU work before the
// step's first launch.
//
// The definition, rule by rule (tools/oracles/idle_gaps.py implements it again over the raw JSON):
// 1. GPU busy is the union of all GPU work clipped to the window; the gaps are the rest of it.
// 2. A gap that reaches the window's end is `Tail`: no GPU work after it in the window.
// 3. Otherwise the work that ends it (the activity starting at the gap's end; of several, the
//    first in event order) was queued at its launch call's start when the call is a graph launch
//    (its nodes start while the call runs) or blocks the host and is not an upload (a sync copy
//    queues its copy, then waits for it; a blocking upload first stages the data on the CPU),
//    else at the call's end. No launch call in the trace: `Unlinked`.
//    Lazy submission (lazy_submission.hpp, the rule the dependency graph's `Submit` edge reads
//    too): in a trace with no evidence of a dependency (GpuIdle::dependency_evidence), work still
//    queued more than kQueueLatencyNs before it starts, that starts within kSubmittedByWaitNs after a
//    host-blocking call on its launching thread began (a sync, a blocking copy) inside a gap longer
//    than kQueueLatencyNs, was sent by that wait: it was queued at that call's start
//    (GpuIdle::submitted_at_wait).
// 4. The part of the gap before that is the CPU's: `Prefix` when the gap opens the window, else
//    `Sync` when a host-blocking call on the launching thread ended inside that part (the CPU sat
//    waiting for the GPU to drain, then had to launch again), else `Launch`.
// 5. The part after it is the GPU's: up to kQueueLatencyNs (facts.hpp) `Scheduling`; longer, `Backlog` when it
//    ends at or before the trace's first GPU work (the GPU was busy with work from before the
//    profiler started), else `Dependency`.
// 6. Of the CPU's part (rule 4) and of a `Tail`, the time the profiler spent on its own books
//    (CUPTI's Activity Buffer Request, on any track) is `Profiler`: a run without the profiler does
//    not pay it (a warm call's 3.1 ms "prefix" that was the profiler's first buffer).
// busy + the causes = the window's duration, exactly.
//
// Cost: one pass over the events, one sort of the GPU work; per window a binary search and its
// own gaps.
#include <algorithm>

#include "analysis/core/event_names.hpp"
#include "analysis/core/intervals.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "analysis/gpu/lazy_submission.hpp"
#include "analysis/passes.hpp"
#include "common/sort_runs.hpp"

namespace whyslow {
namespace {

// A run of merged GPU work and the activity that opens it.
struct Run {
  int64_t start, end;
  EventId first;
};

struct IdleIndex {
  std::vector<Run> runs;                            // merged, in time order
  std::vector<std::vector<int64_t>> wait_ends;      // per track: ends of its host-blocking calls, sorted
  std::vector<std::vector<int64_t>> wait_starts;    // per track: starts of its host-blocking calls, sorted
  std::vector<int64_t> stream_waits;                // starts of stream-wait calls, sorted
  std::vector<uint8_t> queued_at_start;             // per event: a launch that queues its work at its start
  const std::vector<Interval>* profiler = nullptr;  // profiler_buffer_intervals()
  int64_t first_gpu_ns = INT64_MAX;
  bool dependency_evidence = false;  // GpuIdle::dependency_evidence
};

// Rule 6: [a, b)'s time spent in the profiler's bookkeeping goes to `Profiler`, the rest to `c`.
void add_cpu_part(const IdleIndex& x, int64_t a, int64_t b, IdleCause c, std::array<int64_t, kIdleCauses>& mine) {
  const int64_t profiler = covered_length(*x.profiler, a, b);
  mine[static_cast<size_t>(IdleCause::Profiler)] += profiler;
  mine[static_cast<size_t>(c)] += b - a - profiler;
}

IdleIndex index_of(const Trace& t, const std::vector<Interval>& profiler_books) {
  IdleIndex x;
  x.profiler = &profiler_books;
  x.wait_ends.resize(t.tracks.size());
  x.wait_starts.resize(t.tracks.size());
  // The GPU activities by (start, event): their ids only, sized to them (4 bytes an activity,
  // where (start, id) pairs grown by doubling held up to 32).
  std::vector<EventId> work;
  work.reserve(static_cast<size_t>(std::count_if(t.kind.begin(), t.kind.end(), is_gpu_activity)));
  HostWaitNames waits(t);
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    if (k == EventKind::Sync) x.dependency_evidence = true;  // the GPU's own wait records
    if (is_gpu_activity(k)) {
      work.push_back(e);
    } else if (is_host_api(k)) {
      const bool blocks = waits.of(e) != HostWait::None;
      if (blocks) {
        x.wait_ends[t.track[e]].push_back(t.end_ns(e));
        x.wait_starts[t.track[e]].push_back(t.start_ns[e]);
      }
      const std::string_view n = t.name_of(e);
      if (is_stream_wait(n)) x.stream_waits.push_back(t.start_ns[e]);
      if (is_cross_stream_call(n)) x.dependency_evidence = true;
      if (t.is_launch(e) && queues_at_start(t, e, blocks)) {
        if (x.queued_at_start.empty()) x.queued_at_start.resize(t.size(), 0);
        x.queued_at_start[e] = 1;
      }
    }
  }
  // Each stream's activities come in start order: a few ascending runs to merge.
  sort_runs(work.begin(), work.end(),
            [&](EventId a, EventId b) { return t.start_ns[a] != t.start_ns[b] ? t.start_ns[a] < t.start_ns[b] : a < b; });
  x.runs.reserve(work.size());
  for (const EventId e : work) {
    const int64_t start = t.start_ns[e], end = t.end_ns(e);
    if (!x.runs.empty() && start <= x.runs.back().end) x.runs.back().end = std::max(x.runs.back().end, end);
    else x.runs.push_back({start, end, e});
  }
  if (!x.runs.empty()) x.first_gpu_ns = x.runs.front().start;
  for (auto& v : x.wait_ends) std::sort(v.begin(), v.end());
  for (auto& v : x.wait_starts) std::sort(v.begin(), v.end());
  std::sort(x.stream_waits.begin(), x.stream_waits.end());
  return x;
}

// One gap [a, b) that GPU work `next` ends, split by rules 3–5 into `mine`; true when its work
// was queued at a host wait's start (rule 3, lazy submission).
bool split_gap(const Trace& t, const IdleIndex& x, int64_t a, int64_t b, bool opens_window, EventId next,
               std::array<int64_t, kIdleCauses>& mine) {
  const EventId launch = t.launch_link[next];
  if (launch == kNoEvent) {
    mine[static_cast<size_t>(IdleCause::Unlinked)] += b - a;
    return false;
  }
  const bool at_start = !x.queued_at_start.empty() && x.queued_at_start[launch];
  int64_t queued = at_start ? t.start_ns[launch] : t.end_ns(launch);
  bool by_wait = false;
  if (!x.dependency_evidence) {
    const std::vector<int64_t>& starts = x.wait_starts[t.track[launch]];
    const std::ptrdiff_t w = submitting_wait(starts, queued, a, b);
    if (w >= 0) {
      queued = starts[static_cast<size_t>(w)];
      by_wait = true;
    }
  }
  const int64_t split = std::clamp(queued, a, b);
  if (split > a) {
    IdleCause c = IdleCause::Launch;
    if (opens_window) {
      c = IdleCause::Prefix;
    } else {
      const std::vector<int64_t>& ends = x.wait_ends[t.track[launch]];
      const auto it = std::upper_bound(ends.begin(), ends.end(), a);
      if (it != ends.end() && *it <= split) c = IdleCause::Sync;
    }
    add_cpu_part(x, a, split, c, mine);
  }
  if (b > split) {
    const IdleCause c = b - split <= kQueueLatencyNs ? IdleCause::Scheduling
                        : b <= x.first_gpu_ns     ? IdleCause::Backlog
                                                  : IdleCause::Dependency;
    mine[static_cast<size_t>(c)] += b - split;
  }
  return by_wait;
}

void classify(const Trace& t, const IdleIndex& x, StepFacts& w) {
  GpuIdle idle;
  const int64_t s = w.start_ns, e = w.end_ns;
  if (e <= s) {
    w.idle = idle;
    return;
  }
  const auto sw0 = std::lower_bound(x.stream_waits.begin(), x.stream_waits.end(), s);
  const auto sw1 = std::lower_bound(x.stream_waits.begin(), x.stream_waits.end(), e);
  idle.stream_waits = static_cast<uint32_t>(sw1 - sw0);
  idle.dependency_evidence = x.dependency_evidence;
  // The first run that ends after the window starts (runs are disjoint and sorted: ends are too).
  auto run = std::upper_bound(x.runs.begin(), x.runs.end(), s, [](int64_t v, const Run& r) { return v < r.end; });
  int64_t cursor = s;
  const auto gap = [&](int64_t a, int64_t b, EventId next) {
    std::array<int64_t, kIdleCauses> mine{};
    if (next == kNoEvent) add_cpu_part(x, a, b, IdleCause::Tail, mine);
    else if (split_gap(t, x, a, b, a == s, next, mine)) ++idle.submitted_at_wait;
    size_t largest = 0;
    for (size_t c = 0; c < kIdleCauses; ++c) {
      idle.ns[c] += mine[c];
      if (mine[c] > mine[largest]) largest = c;
    }
    ++idle.gaps;
    if (b - a > idle.longest_ns) {
      idle.longest_ns = b - a;
      idle.longest_at_ns = a;
      idle.longest_cause = static_cast<IdleCause>(largest);
      idle.longest_ended_by = next;
    }
  };
  for (; run != x.runs.end() && run->start < e; ++run) {
    if (run->start > cursor) gap(cursor, run->start, run->first);
    const int64_t from = std::max(run->start, s), to = std::min(run->end, e);
    if (to > from) idle.busy_ns += to - from;
    cursor = std::max(cursor, to);
  }
  if (cursor < e) gap(cursor, e, kNoEvent);
  w.idle = idle;
}

}  // namespace

std::string_view to_string(IdleCause c) {
  switch (c) {
    case IdleCause::Prefix: return "prefix";
    case IdleCause::Launch: return "launch";
    case IdleCause::Sync: return "sync";
    case IdleCause::Scheduling: return "scheduling";
    case IdleCause::Dependency: return "dependency";
    case IdleCause::Backlog: return "backlog";
    case IdleCause::Tail: return "tail";
    case IdleCause::Unlinked: return "unlinked";
    case IdleCause::Profiler: return "profiler";
    case IdleCause::Count: break;
  }
  return "";
}

void classify_gpu_idle(const Trace& t, const std::vector<Interval>& profiler_books,
                       const std::vector<StepFacts*>& windows) {
  if (windows.empty()) return;
  const IdleIndex x = index_of(t, profiler_books);
  for (StepFacts* w : windows) classify(t, x, *w);
}

}  // namespace whyslow
