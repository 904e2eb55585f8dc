// CPU time by category: where every nanosecond of a step goes on the step's own thread.
//
// At each instant the innermost event open on the thread owns the time (its self time), and its
// category is decided by these rules, the first that matches:
//   1. data_loading  an enclosing event (or the event) is a DataLoader span: the step is getting
//                    its next batch, whatever runs inside (collation, transforms, pinning);
//   2. profiler      … is the profiler's own bookkeeping (Activity Buffer Request);
//   3. compile       … is torch.compile's own CPU work (Dynamo cache lookup and guards,
//                    compilation) — not the compiled region, whose launches are real work;
//   4. by the innermost event itself:
//        runtime/driver call: sync_wait if it blocks the host (host_waits.hpp: synchronize calls,
//                    synchronous copies, copies from pageable memory), allocator if it allocates
//                    or frees memory, else launch;
//        the profiler's overhead events other than its bookkeeping (Runtime Triggered Module
//                    Loading, Lazy Function Loading): launch, driver work done for a first launch;
//        python_function: python — but cpu_compute inside a Python call of ≥ 1 ms that launches
//                    no GPU work (a preprocessing function in NumPy or PIL, say);
//        cpu_op: dispatch when its top-level op (the outermost op around it on the thread)
//                    launches GPU work — framework overhead on the way to the GPU — else
//                    cpu_compute (CPU math, preprocessing on CPU tensors); but an aten::copy_
//                    with no runtime or driver call inside it is cpu_compute wherever it sits:
//                    a copy that touches a GPU calls the runtime (a kernel, a memcpy), so one
//                    that calls nothing moved its bytes on the CPU (a strided tensor gathered
//                    into a contiguous buffer inside aten::to before its upload: 4.4 ms a step in
//                    truth_round3/coalesce_once_recorded);
//        anything else (a record_function's self time): other;
//        no event at all: profiler while the profiler keeps its books on a track of its own
//                    (CUPTI's buffer requests: the thread stalls in CUPTI meanwhile, a warm call's
//                    3.1 ms before its first op), else other.
// The categories of a step sum to its duration exactly: one sweep over the thread's events hands
// each instant to the top of the open-event stack.
#include <algorithm>
#include <array>
#include <tuple>

#include "analysis/core/event_names.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "analysis/core/innermost_sweep.hpp"
#include "analysis/core/intervals.hpp"
#include "trace/name_memo.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

// A Python call that launches nothing for this long is doing work of its own (decoding,
// resizing, NumPy), not issuing GPU work: issuing a launch from Python takes microseconds.
constexpr int64_t kMinPythonCpuWorkNs = 1'000'000;

// Context an event passes down to everything nested in it (rules 1–3), strongest first.
enum class Context : uint8_t { None, Compile, Profiler, DataLoading };

CpuCategory with_context(Context c) {
  switch (c) {
    case Context::DataLoading: return CpuCategory::DataLoading;
    case Context::Profiler: return CpuCategory::Profiler;
    case Context::Compile: return CpuCategory::Compile;
    case Context::None: break;
  }
  return CpuCategory::Other;
}

Context context_of_name(std::string_view n) {
  if (is_data_loader_span(n)) return Context::DataLoading;
  if (is_profiler_bookkeeping(n)) return Context::Profiler;
  if (is_dynamo_cache_lookup(n) || is_compilation_event(n)) return Context::Compile;
  return Context::None;
}

// The name tests the passes below ask of every event, answered once per distinct name
// (name_memo.hpp). Belongs to one pass on one thread.
class NameTraits {
 public:
  explicit NameTraits(const Trace& t) : memo_(t, &test) {}
  Context context(EventId e) { return memo_.of(e).context; }
  bool record_function(EventId e) { return memo_.of(e).record_function; }
  bool allocator(EventId e) { return memo_.of(e).allocator; }
  bool data_loader(EventId e) { return memo_.of(e).data_loader; }
  bool tensor_copy(EventId e) { return memo_.of(e).tensor_copy; }

 private:
  struct Traits {
    Context context;
    bool record_function, allocator, data_loader, tensor_copy;
  };
  static Traits test(std::string_view n) {
    return {context_of_name(n), is_record_function_name(n), is_allocator_call(n), is_data_loader_span(n),
            n == "aten::copy_"};
  }
  NameMemo<Traits, Traits (*)(std::string_view)> memo_;
};

// Per event of one thread: the category of its self time by its own kind (rule 4), in one pass
// forward (parents come before children on a track) after one pass backward marking the ops whose
// subtree launches GPU work. `out` gets each event's category with the context of the events
// around it by nesting (rules 1–3); the step sums apply the context by time instead (contexts()),
// which also covers a block entered while a Python frame was open.
std::vector<CpuCategory> categorize_thread(const Trace& t, const Track& tr, NameTraits& names,
                                           HostWaitNames& waits, std::vector<CpuCategory>& out) {
  // Each event's parent's position in tr.events. The track is in nesting order (parents first),
  // and an event passed over by a later one's search for its parent is closed for good (the
  // nesting rule), so a stack of the events so far, popped down to each parent, finds it.
  std::vector<uint32_t> index_of_parent(tr.events.size(), UINT32_MAX);
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < tr.events.size(); ++i) {
    const EventId p = t.parent[tr.events[i]];
    if (p != kNoEvent) {  // an unnested event (top level, instant) closes nothing: it pops nothing
      while (!open.empty() && tr.events[open.back()] != p) open.pop_back();
      if (!open.empty()) index_of_parent[i] = open.back();
    }
    open.push_back(i);
  }
  // What the passes hand between parent and child, one byte per event (the main thread of a
  // large trace holds most of its events).
  enum TopOp : uint8_t { kNoTopOp, kTopOpLaunches, kTopOpQuiet };
  struct Slot {
    uint8_t launches_below : 1 = 0;  // its subtree launches GPU work
    uint8_t calls_api_below : 1 = 0; // its subtree holds a runtime or driver call
    uint8_t in_python_work : 1 = 0;  // inside a long Python call that launches nothing
    uint8_t top_op : 2 = kNoTopOp;   // the outermost op above (or itself): launches GPU work below?
    uint8_t context : 2 = static_cast<uint8_t>(Context::None);
  };
  static_assert(sizeof(Slot) == 1);
  std::vector<Slot> slot(tr.events.size());
  for (uint32_t i = static_cast<uint32_t>(tr.events.size()); i-- > 0;) {
    if (t.is_launch(tr.events[i])) slot[i].launches_below = 1;
    if (is_host_api(t.kind[tr.events[i]])) slot[i].calls_api_below = 1;
    if (index_of_parent[i] != UINT32_MAX) {
      Slot& parent = slot[index_of_parent[i]];
      parent.launches_below |= slot[i].launches_below;
      parent.calls_api_below |= slot[i].calls_api_below;
    }
  }
  std::vector<CpuCategory> cats(tr.events.size(), CpuCategory::Other);
  // An ATen op, not a record_function block filed as one (2021 traces).
  auto is_op = [&](EventId e) { return t.kind[e] == EventKind::CpuOp && !names.record_function(e); };
  for (uint32_t i = 0; i < tr.events.size(); ++i) {
    const EventId e = tr.events[i];
    const uint32_t p = index_of_parent[i];
    Slot& s = slot[i];
    const Context inherited = p != UINT32_MAX ? static_cast<Context>(slot[p].context) : Context::None;
    const Context context = std::max(names.context(e), inherited);
    s.context = static_cast<uint8_t>(context);
    s.top_op = p != UINT32_MAX ? slot[p].top_op : uint8_t{kNoTopOp};
    if (s.top_op == kNoTopOp && is_op(e)) s.top_op = s.launches_below ? kTopOpLaunches : kTopOpQuiet;
    s.in_python_work = (p != UINT32_MAX && slot[p].in_python_work) ||
                       (t.kind[e] == EventKind::PythonFunction && !s.launches_below && t.dur_ns[e] >= kMinPythonCpuWorkNs);
    CpuCategory c = CpuCategory::Other;
    if (is_host_api(t.kind[e])) {
      c = waits.of(e) != HostWait::None ? CpuCategory::SyncWait
          : names.allocator(e)              ? CpuCategory::Allocator
                                            : CpuCategory::Launch;
    } else if (t.kind[e] == EventKind::Overhead) {
      c = CpuCategory::Launch;  // driver work for a first launch: module and lazy function loading
    } else if (t.kind[e] == EventKind::PythonFunction) {
      c = s.in_python_work ? CpuCategory::CpuCompute : CpuCategory::Python;
    } else if (is_op(e)) {
      const bool cpu_copy = !s.calls_api_below && names.tensor_copy(e);
      c = s.top_op == kTopOpLaunches && !cpu_copy ? CpuCategory::Dispatch : CpuCategory::CpuCompute;
    }
    cats[i] = c;
    out[e] = context == Context::None ? c : with_context(context);
  }
  return cats;
}

// The thread's time under each context (rules 1–3), strongest first where they overlap:
// disjoint, ascending pieces.
struct ContextPiece {
  int64_t start, end;
  Context context;
};
std::vector<ContextPiece> contexts(const Trace& t, const Track& tr, NameTraits& names) {
  std::vector<std::tuple<int64_t, int, Context>> edges;  // (time, +1/-1, context)
  for (EventId e : tr.events) {
    const Context c = names.context(e);
    if (c == Context::None || t.dur_ns[e] <= 0) continue;
    edges.emplace_back(t.start_ns[e], +1, c);
    edges.emplace_back(t.end_ns(e), -1, c);
  }
  std::sort(edges.begin(), edges.end());
  std::vector<ContextPiece> out;
  std::array<int, 4> open{};
  int64_t last = 0;
  auto strongest = [&] {
    for (Context c : {Context::DataLoading, Context::Profiler, Context::Compile})
      if (open[static_cast<size_t>(c)] > 0) return c;
    return Context::None;
  };
  for (const auto& [ts, delta, c] : edges) {
    const Context before = strongest();
    if (before != Context::None && ts > last) {
      if (!out.empty() && out.back().end == last && out.back().context == before) out.back().end = ts;
      else out.push_back({last, ts, before});
    }
    open[static_cast<size_t>(c)] += delta;
    last = ts;
  }
  return out;
}

// A thread's windows (ascending, disjoint) and where the last lookup found itself: the passes
// below look times up in time order, so each lookup starts where the previous one stopped
// instead of searching all the windows (a trace has thousands of steps and millions of events).
class Windows {
 public:
  explicit Windows(std::vector<StepFacts*>& windows) : w_(windows) {}
  // The first window that ends after ts, or end(). A time before the previous one's (which the
  // passes do not ask) is searched for from the start.
  std::vector<StepFacts*>::iterator first_ending_after(int64_t ts) {
    if (at_ > 0 && ts < w_[at_ - 1]->end_ns) at_ = 0;
    while (at_ < w_.size() && w_[at_]->end_ns <= ts) ++at_;
    return w_.begin() + static_cast<std::ptrdiff_t>(at_);
  }
  std::vector<StepFacts*>::iterator end() { return w_.end(); }

 private:
  std::vector<StepFacts*>& w_;
  size_t at_ = 0;
};

// Adds [a, b) of category c to the windows it overlaps. This and the next are inlined into the
// sweep, which calls them twice per event, mostly with an empty span: as calls they were a tenth
// of the pass (big.json's CPU-time pass 40.6 -> 37.8 ms on one core).
[[gnu::always_inline]] inline void add_span(Windows& windows, int64_t a, int64_t b, CpuCategory c) {
  if (a >= b) return;
  for (auto it = windows.first_ending_after(a); it != windows.end() && (*it)->start_ns < b; ++it) {
    const int64_t lo = std::max(a, (*it)->start_ns), hi = std::min(b, (*it)->end_ns);
    if (lo < hi) (*it)->cpu_breakdown[static_cast<size_t>(c)] += hi - lo;
  }
}

// Hands [a, b) of base category `c` to the windows, the parts under a context to the context's
// category. `pieces` are the thread's context pieces; `next` walks them as the calls come in time order.
[[gnu::always_inline]] inline void add_span_in_context(Windows& windows, const std::vector<ContextPiece>& pieces,
                                                       size_t& next, int64_t a, int64_t b, CpuCategory c) {
  while (next < pieces.size() && pieces[next].end <= a) ++next;
  for (size_t k = next; a < b; ++k) {
    if (k >= pieces.size() || pieces[k].start >= b) {
      add_span(windows, a, b, c);
      return;
    }
    const ContextPiece& p = pieces[k];
    if (p.start > a) add_span(windows, a, p.start, c);
    const int64_t lo = std::max(a, p.start), hi = std::min(b, p.end);
    add_span(windows, lo, hi, with_context(p.context));
    a = hi;
  }
}

// One sweep over a thread: each instant goes to the innermost open event's category (instants
// with no open event to Profiler inside `bookkeeping`, profiler_buffer_intervals(), else Other),
// then to its context's when a context is open then.
void sweep_thread(const Trace& t, const Track& tr, NameTraits& names, const std::vector<CpuCategory>& cats,
                  const std::vector<Interval>& bookkeeping, std::vector<StepFacts*>& windows) {
  if (windows.empty()) return;
  const std::vector<ContextPiece> pieces = contexts(t, tr, names);
  size_t next = 0;
  Windows lookup(windows);
  auto book = bookkeeping.begin();  // the first piece that may end after the stretch being added
  // A stretch with no event open, split by the bookkeeping (the sweep's usual path, taken twice
  // per event, stays the one call it was).
  const auto add_unopened = [&](int64_t a, int64_t b, CpuCategory c) {
    for (; book != bookkeeping.end() && book->first < b; ++book) {
      if (book->second <= a) continue;
      if (book->first > a) add_span_in_context(lookup, pieces, next, a, book->first, c);
      const int64_t to = std::min(b, book->second);
      add_span_in_context(lookup, pieces, next, std::max(a, book->first), to, CpuCategory::Profiler);
      a = to;
      if (book->second > b) break;  // it goes on into the next stretch
    }
    if (b > a) add_span_in_context(lookup, pieces, next, a, b, c);
  };
  sweep_innermost<CpuCategory>(
      t, tr.events.begin(), tr.events.end(), windows.front()->start_ns, windows.back()->end_ns, {}, CpuCategory::Other,
      [&](std::vector<EventId>::const_iterator it) { return cats[static_cast<size_t>(it - tr.events.begin())]; },
      [&](int64_t a, int64_t b, CpuCategory c, bool open) {
        if (open || book == bookkeeping.end()) add_span_in_context(lookup, pieces, next, a, b, c);
        else add_unopened(a, b, c);
      });
}


// DataLoader time with no GPU work running, and allocator calls, per window on its thread.
void data_loading_and_allocator(const Trace& t, const Track& tr, NameTraits& names,
                                const std::vector<Interval>& gpu_busy, std::vector<StepFacts*>& windows) {
  Windows lookup(windows);
  // Memoized: 90,000 nested events are walked once, not once each.
  NearestAncestor loader_around(t, [&](EventId a) { return names.data_loader(a); });
  for (EventId e : tr.events) {  // by start time
    const int64_t s = t.start_ns[e];
    const auto it = lookup.first_ending_after(s);
    if (it == lookup.end() || s < (*it)->start_ns) continue;
    StepFacts& w = **it;
    if (is_host_api(t.kind[e]) && names.allocator(e)) ++w.allocator_calls;
    if (!names.data_loader(e)) continue;
    if (loader_around.of(t.parent[e]) != kNoEvent) continue;  // count a DataLoader span inside another once
    const int64_t end = std::min(t.end_ns(e), w.end_ns);
    w.data_loading_gpu_idle_ns += (end - s) - covered_length(gpu_busy, s, end);
  }
}

}  // namespace

// The thread a stepless trace is about: of the threads that launch GPU work (all threads in a
// CPU-only trace), the one whose top-level events take the most time. Launching matters: a
// profiler or logging thread can hold long idle events. The most launches alone would not do: in
// training, the autograd thread launches the backward pass, twice the forward's kernels, while the
// main thread runs the loop — the DataLoader, the forward, the optimizer — and waits for it.
TrackId main_thread(const Trace& t) {
  TrackId best = UINT32_MAX;
  std::pair<bool, int64_t> best_score{false, -1};  // (launches GPU work, top-level time)
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    const Track& tr = t.tracks[k];
    if (tr.kind != TrackKind::Cpu) continue;
    std::pair<bool, int64_t> score{false, 0};
    for (EventId e : tr.events) {
      score.first = score.first || t.is_launch(e);
      if (t.parent[e] == kNoEvent && t.kind[e] != EventKind::Instant && t.kind[e] != EventKind::TraceSpan)
        score.second += t.dur_ns[e];
    }
    if (score > best_score) best = k, best_score = score;
  }
  return best;
}

std::string_view to_string(CpuCategory c) {
  switch (c) {
    case CpuCategory::DataLoading: return "data_loading";
    case CpuCategory::SyncWait: return "sync_wait";
    case CpuCategory::Allocator: return "allocator";
    case CpuCategory::Launch: return "launch";
    case CpuCategory::Compile: return "compile";
    case CpuCategory::Profiler: return "profiler";
    case CpuCategory::Python: return "python";
    case CpuCategory::Dispatch: return "dispatch";
    case CpuCategory::CpuCompute: return "cpu_compute";
    case CpuCategory::Other: return "other";
    case CpuCategory::Count: break;
  }
  return "other";
}

void categorize_track(const Trace& t, TrackId track, std::vector<CpuCategory>& per_event) {
  NameTraits names(t);
  HostWaitNames waits(t);
  categorize_thread(t, t.tracks[track], names, waits, per_event);
}

std::vector<CpuCategory> attribute_cpu_time(const Trace& t, const std::vector<Interval>& gpu_busy,
                                            const std::vector<Interval>& profiler_books, std::vector<StepFacts>& steps,
                                            StepFacts& window, TrackId window_thread) {
  std::vector<CpuCategory> per_event(t.size(), CpuCategory::Other);
  NameTraits names(t);
  HostWaitNames waits(t);
  // Windows per thread: the steps on it, and the stepless window on the main thread.
  std::vector<std::vector<StepFacts*>> on_track(t.tracks.size());
  for (StepFacts& s : steps) on_track[t.track[s.event]].push_back(&s);
  if (steps.empty() && window_thread != UINT32_MAX && window.end_ns > window.start_ns)
    on_track[window_thread].push_back(&window);
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    std::vector<StepFacts*>& windows = on_track[k];
    if (windows.empty()) continue;
    std::sort(windows.begin(), windows.end(), [](const StepFacts* a, const StepFacts* b) { return a->start_ns < b->start_ns; });
    const std::vector<CpuCategory> cats = categorize_thread(t, t.tracks[k], names, waits, per_event);
    sweep_thread(t, t.tracks[k], names, cats, profiler_books, windows);
    data_loading_and_allocator(t, t.tracks[k], names, gpu_busy, windows);
  }
  // With steps, the whole-trace window is the sum of the steps (time outside steps is not broken down).
  if (!steps.empty()) {
    window.cpu_breakdown = {};
    window.data_loading_gpu_idle_ns = 0;
    window.allocator_calls = 0;
    for (const StepFacts& s : steps) {
      for (size_t c = 0; c < kCpuCategories; ++c) window.cpu_breakdown[c] += s.cpu_breakdown[c];
      window.data_loading_gpu_idle_ns += s.data_loading_gpu_idle_ns;
      window.allocator_calls += s.allocator_calls;
    }
  }
  return per_event;
}

void break_down_windows(const Trace& t, const std::vector<Interval>& gpu_busy,
                        const std::vector<Interval>& profiler_books, TrackId thread,
                        const std::vector<StepFacts*>& windows) {
  if (thread == UINT32_MAX || windows.empty()) return;
  std::vector<CpuCategory> scratch(t.size(), CpuCategory::Other);
  NameTraits names(t);
  HostWaitNames waits(t);
  const std::vector<CpuCategory> cats = categorize_thread(t, t.tracks[thread], names, waits, scratch);
  std::vector<StepFacts*> lookup = windows;  // the sweeps walk their own cursor over it
  sweep_thread(t, t.tracks[thread], names, cats, profiler_books, lookup);
  data_loading_and_allocator(t, t.tracks[thread], names, gpu_busy, lookup);
}

void break_down_window(const Trace& t, const std::vector<Interval>& gpu_busy,
                       const std::vector<Interval>& profiler_books, TrackId thread, StepFacts& window) {
  if (window.end_ns <= window.start_ns) return;
  break_down_windows(t, gpu_busy, profiler_books, thread, {&window});
}

}  // namespace whyslow
