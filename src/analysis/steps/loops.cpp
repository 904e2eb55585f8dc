// Loops inside a step: a step that does the same work N times (the forward passes of an HF
// generate(), a micro-batch loop) is split into its iterations by the repetition of its top-level
// work. No op or module name is special: the pass looks at the sequence of names of the events
// directly under the step on its thread (ops, modules, Python frames, compiled regions, runtime
// calls such as cudaGraphLaunch) and finds a name that opens every iteration.
//
// The definition, step by step (tools/oracles/loops.py implements it again, by brute force):
// 1. The block: the step (a trace without steps: its main thread's top-level events, over their
//    span), or, while one child of the block fills ≥ kSingleChildShare of it, that
//    child (a record_function or a generate() frame around everything). Its children, in time
//    order, are the top-level events; their names are the sequence S.
// 2. A marker candidate is a name occurring ≥ kMinIterations times in S whose gaps (positions
//    between consecutive occurrences) after the first are all within kGapTolerance of their
//    median, the period p. The first gap is iteration 1, which may differ (a prefill); an
//    occurrence whose gap to the next is under p/2 is not an iteration of this loop but the
//    same name in the set-up before it, and is dropped from the front (at most
//    kMaxSetupOccurrences of them).
//    A marker occurring late in each iteration (a model's flatten, with conv2d, batch_norm and relu
//    repeating inside it) opens its iterations where the loop's work starts when the s events before
//    every occurrence repeat the block's first s events (s = the first occurrence's position, under
//    the shortest gap): each iteration is then shifted s events earlier, so the first starts with the
//    block (the process's first call of a model, 97 % of a stepless trace, is the loop's first
//    iteration, not set-up before it).
// 3. Iteration k spans from the k-th occurrence to the next; the last from the last occurrence
//    over at most p events (what follows is the step's epilogue), kept only when it holds at least
//    p/2 events (else it is a partial iteration: the marker also ran after the loop).
// 4. Iterations 2..N together (from the start of the second to the end of the last's last event)
//    take at least kMinLaterShare of iteration 1's time (start of the first to start of the second),
//    unless iteration 1 holds the same sequence of names as most of them (step 5's).
// 5. At least kMinMatchingShare of iterations 2..N, and kMinMatching, must repeat exactly the same sequence of names
//    (a name that happens to be evenly spaced in work that does not repeat is not a loop). Where the
//    marker records input shapes, at least kMinMatching of iterations 2..N must also open on the same
//    shapes: a loop runs the same work again, while the layers of one pass through a model repeat
//    names on ever new shapes (a convnet's conv2d → batch_norm → relu, its channels doubling).
// 6. Of all candidates, the one whose iterations cover the most top-level events wins (ties: the
//    earliest start, then the marker nearest it). Covering the most events is what makes iteration 1 start where the loop's
//    work starts: every marker of the same loop has the same period, and the one opening the
//    iteration earliest covers the most.
// 7. The loop is kept when it covers ≥ kMinLoopShare of the step's time and of its top-level events.
//
// Cost: linear in the step's events on its thread (positions are grouped by name in one pass, each
// candidate's gaps are its own positions, and sequence comparisons hash each iteration once).
#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "analysis/core/event_names.hpp"
#include "analysis/core/median.hpp"
#include "analysis/core/op_inputs.hpp"
#include "analysis/core/track_range.hpp"
#include "analysis/passes.hpp"

namespace whyslow {
namespace {

// Fewer than three iterations is no evidence of a loop: the first may differ, so a loop must
// show at least two that repeat.
constexpr size_t kMinIterations = 3;
// Iterations of one loop differ by a few top-level events (the last decode pass of generate()
// skips a cache update: 78 events instead of 79); 10 % allows that, not different work.
constexpr double kGapTolerance = 0.10;
// Iteration 1 may take longer than the others (a prefill, a first pass that warms up), but
// iterations 2..N together must take at least a tenth of its time: a first "iteration" holding
// nearly all the work is the work before a loop that happens to start with the marker's name
// (profile()'s cudaDeviceSynchronize at entry, then everything, then the two at exit).
constexpr double kMinLaterShare = 0.1;
// Set-up work before a loop shares the marker's name a few times at most (generate()'s input
// checks run one `is_nonzero` before its loop): a name needing more occurrences dropped from the
// front is no marker. Also what keeps a name's test linear in its occurrences.
constexpr size_t kMaxSetupOccurrences = 3;
// A wrapper filling 90 % of its parent (a record_function or a Python frame around the whole
// step) is descended into: the loop is among its children, not the parent's one child.
constexpr double kSingleChildShare = 0.90;
// Half of iterations 2..N, and at least two of them, must repeat one sequence of names exactly: a
// last iteration that differs, or a rare branch, is allowed; evenly spaced occurrences in work
// that does not repeat are not (four layers of a model, one of them a different class, are not
// four iterations of one loop).
constexpr double kMinMatchingShare = 0.5;
constexpr size_t kMinMatching = 2;
// A loop under half the step's time or half its top-level events does not split the step: the
// step is something else with a loop inside (a layer loop inside a forward pass that a backward
// follows, a few small ops repeated next to one long one).
constexpr double kMinLoopShare = 0.5;

// The events nested under `root` on its track, in the track's order, with the position just past
// each one's own descendants. Nesting closes an event at the first event it does not enclose, so an
// event's descendants are the run right after it; its children are found by hopping from one to the
// position past its descendants, a sibling that starts inside the one before it included (a
// record_function block entered inside profiler.py's __enter__ frame: marcalph/kernelforge's
// transformer trace, where searching by time skipped it). One pass over the run, kept for every
// level below `root`: a chain of N single children stays linear.
class Subtree {
 public:
  Subtree(const Trace& t, EventId root) {
    const std::vector<EventId>& ev = t.tracks[t.track[root]].events;
    const auto at = std::lower_bound(ev.begin(), ev.end(), root, [&](EventId a, EventId b) { return t.nests_before(a, b); });
    std::vector<uint32_t> open;  // positions in run_ of the events whose descendants are being read
    for (auto it = at; it != ev.end(); ++it) {
      if (*it != root && t.kind[*it] == EventKind::Instant) continue;  // instants are never nested
      while (!open.empty() && run_[open.back()] != t.parent[*it]) {
        next_[open.back()] = static_cast<uint32_t>(run_.size());
        open.pop_back();
      }
      if (open.empty() && !run_.empty()) break;  // past root's descendants
      open.push_back(static_cast<uint32_t>(run_.size()));
      run_.push_back(*it);
      next_.push_back(0);
    }
    for (uint32_t k : open) next_[k] = static_cast<uint32_t>(run_.size());
  }

  EventId event(uint32_t k) const { return run_[k]; }
  // The positions of the children of the event at position k (the root is at 0).
  std::vector<uint32_t> children(uint32_t k) const {
    std::vector<uint32_t> out;
    for (uint32_t i = k + 1; i < next_[k]; i = next_[i]) out.push_back(i);
    return out;
  }

 private:
  std::vector<EventId> run_;
  std::vector<uint32_t> next_;
};

// The thread's top-level events.
std::vector<EventId> top_level_events(const Trace& t, TrackId thread) {
  std::vector<EventId> out;
  for (EventId e : t.tracks[thread].events)
    if (t.parent[e] == kNoEvent && t.kind[e] != EventKind::Instant) out.push_back(e);
  return out;
}

// The span a block's children may fill: the block's own, or the top-level events' for a thread.
int64_t span_of(const Trace& t, EventId block, const std::vector<EventId>& kids) {
  if (block != kNoEvent) return t.dur_ns[block];
  int64_t end = INT64_MIN;
  for (EventId e : kids) end = std::max(end, t.end_ns(e));
  return kids.empty() ? 0 : end - t.start_ns[kids.front()];
}

// The block whose children may repeat, and those children: from a step, or from a stepless
// trace's main thread (block kNoEvent).
std::pair<EventId, std::vector<EventId>> top_level(const Trace& t, EventId step, TrackId thread) {
  EventId block = step;
  std::vector<EventId> kids = step == kNoEvent ? top_level_events(t, thread) : std::vector<EventId>{};
  // The nesting under the step, or under the stepless thread's longest top-level event once the
  // search descends into it; positions of the children in it.
  std::optional<Subtree> below;
  std::vector<uint32_t> at;
  const auto children_in = [&](uint32_t k) {
    at = below->children(k);
    std::vector<EventId> out;
    for (uint32_t i : at) out.push_back(below->event(i));
    return out;
  };
  if (step != kNoEvent) {
    below.emplace(t, step);
    kids = children_in(0);
  }
  while (!kids.empty()) {
    const size_t longest = static_cast<size_t>(
        std::max_element(kids.begin(), kids.end(), [&](EventId a, EventId b) { return t.dur_ns[a] < t.dur_ns[b]; }) -
        kids.begin());
    // A child of no duration fills nothing: nothing below it can split the block's time.
    if (t.dur_ns[kids[longest]] <= 0 ||
        static_cast<double>(t.dur_ns[kids[longest]]) < kSingleChildShare * static_cast<double>(span_of(t, block, kids)))
      break;
    uint32_t k = 0;
    if (below) {
      k = at[longest];
    } else {
      below.emplace(t, kids[longest]);
    }
    const EventId next_block = kids[longest];
    std::vector<EventId> next = children_in(k);
    if (next.empty()) break;
    block = next_block;
    kids = std::move(next);
  }
  return {block, std::move(kids)};
}

struct Iterations {
  NameId marker = kNoName;
  uint32_t marker_at = 0;  // the marker's first occurrence in S (after step 2's shift, the iterations start earlier)
  uint32_t period = 0;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // [first, last] positions in S, per iteration
  size_t covered() const { return spans.empty() ? 0 : spans.back().second + 1 - spans.front().first; }
};

// Steps 2–4 of the definition for one name's positions; nothing when it does not mark a loop.
// The top-level events' names and times, in order.
struct TopLevel {
  std::vector<NameId> names;
  std::vector<NameId> dims;  // each event's recorded input shapes, kNoName without
  std::vector<int64_t> starts, ends;
};

std::optional<Iterations> iterations_of(const TopLevel& top, const std::vector<uint64_t>& prefix_hash,
                                        const std::vector<uint64_t>& powers, NameId name,
                                        std::vector<uint32_t> pos) {
  for (size_t dropped = 0;; ++dropped) {
    if (pos.size() < kMinIterations) return std::nullopt;
    std::vector<int64_t> later;
    for (size_t i = 2; i < pos.size(); ++i) later.push_back(pos[i] - pos[i - 1]);
    const int64_t p = median(later);
    if (p <= 0) return std::nullopt;
    if (2 * static_cast<int64_t>(pos[1] - pos[0]) >= p) break;
    if (dropped == kMaxSetupOccurrences) return std::nullopt;
    pos.erase(pos.begin());  // set-up work that happens to share the marker's name
  }
  if (pos.size() < kMinIterations) return std::nullopt;
  std::vector<int64_t> later;
  for (size_t i = 2; i < pos.size(); ++i) later.push_back(pos[i] - pos[i - 1]);
  const int64_t p = median(later);
  const double slack = std::max(1.0, kGapTolerance * static_cast<double>(p));
  for (int64_t g : later)
    if (std::abs(static_cast<double>(g - p)) > slack) return std::nullopt;
  // Step 2's shift to the block's start: the events before every occurrence are the block's first ones.
  const uint32_t marker_at = pos[0], shift = pos[0];
  bool opens_block = shift > 0;
  for (size_t i = 1; i < pos.size() && opens_block; ++i)
    opens_block = shift < pos[i] - pos[i - 1] &&
                  std::equal(top.names.begin(), top.names.begin() + shift, top.names.begin() + (pos[i] - shift));
  if (opens_block)
    for (uint32_t& at : pos) at -= shift;
  Iterations it;
  it.marker = name;
  it.marker_at = marker_at;
  it.period = static_cast<uint32_t>(p);
  for (size_t i = 0; i + 1 < pos.size(); ++i) it.spans.emplace_back(pos[i], pos[i + 1] - 1);
  const size_t last_end = std::min(top.names.size(), static_cast<size_t>(pos.back()) + static_cast<size_t>(p));
  if (2 * (last_end - pos.back()) >= static_cast<size_t>(p)) it.spans.emplace_back(pos.back(), last_end - 1);
  if (it.spans.size() < kMinIterations) return std::nullopt;
  // Iterations 2..N repeating one sequence of names: compare polynomial hashes of their spans.
  const auto hash = [&](std::pair<uint32_t, uint32_t> s) {
    return prefix_hash[s.second + 1] - prefix_hash[s.first] * powers[s.second + 1 - s.first];
  };
  std::unordered_map<uint64_t, size_t> same;
  size_t most = 0;
  uint64_t usual = 0;
  for (size_t i = 1; i < it.spans.size(); ++i)
    if (const uint64_t h = hash(it.spans[i]); ++same[h] > most) most = same[h], usual = h;
  if (most < kMinMatching || static_cast<double>(most) < kMinMatchingShare * static_cast<double>(it.spans.size() - 1))
    return std::nullopt;
  // Step 4, unless iteration 1 repeats the usual sequence of names itself: then it is the same work,
  // only slower (a model's first call paying its libraries' first use), not set-up before a loop.
  const int64_t first_ns = top.starts[it.spans[1].first] - top.starts[it.spans[0].first];
  const int64_t later_ns = top.ends[it.spans.back().second] - top.starts[it.spans[1].first];
  if (hash(it.spans[0]) != usual && static_cast<double>(later_ns) < kMinLaterShare * static_cast<double>(first_ns))
    return std::nullopt;
  if (top.dims[it.spans[1].first] != kNoName) {
    std::unordered_map<NameId, size_t> same_shapes;
    size_t repeated = 0;
    for (size_t i = 1; i < it.spans.size(); ++i)
      repeated = std::max(repeated, ++same_shapes[top.dims[it.spans[i].first]]);
    if (repeated < kMinMatching) return std::nullopt;
  }
  return it;
}

std::optional<Iterations> find_iterations(const TopLevel& top) {
  const std::vector<NameId>& seq = top.names;
  // Polynomial hashes of every prefix (mod 2^64): an iteration's hash in O(1).
  constexpr uint64_t kBase = 1'000'003;
  std::vector<uint64_t> prefix(seq.size() + 1, 0), powers(seq.size() + 1, 1);
  for (size_t i = 0; i < seq.size(); ++i) {
    prefix[i + 1] = prefix[i] * kBase + seq[i] + 1;
    powers[i + 1] = powers[i] * kBase;
  }
  std::unordered_map<NameId, std::vector<uint32_t>> positions;
  for (size_t i = 0; i < seq.size(); ++i) positions[seq[i]].push_back(static_cast<uint32_t>(i));
  std::optional<Iterations> best;
  for (auto& [name, pos] : positions) {
    if (pos.size() < kMinIterations) continue;
    auto found = iterations_of(top, prefix, powers, name, pos);
    if (!found) continue;
    const auto key = [](const Iterations& i) {
      return std::make_tuple(i.covered(), -static_cast<int64_t>(i.spans.front().first), -static_cast<int64_t>(i.marker_at));
    };
    if (!best || key(*found) > key(*best)) best = std::move(found);
  }
  return best;
}

// The first aten::embedding in [start, end) on the thread, or kNoEvent.
EventId first_embedding(const Trace& t, TrackId thread, int64_t start, int64_t end) {
  for (EventId e : starting_in(t, thread, start, end))
    if (t.kind[e] == EventKind::CpuOp && t.name_of(e) == "aten::embedding") return e;
  return kNoEvent;
}

// Does autograd run a backward in [start, end) on the thread (its engine's or a *Backward node's events)?
bool runs_backward(const Trace& t, TrackId thread, int64_t start, int64_t end) {
  for (EventId e : starting_in(t, thread, start, end)) {
    if (is_backward_event_name(t.name_of(e))) return true;
  }
  return false;
}

// The token ids' shape [B, S] of an aten::embedding, when the trace recorded shapes.
std::optional<std::pair<int64_t, int64_t>> token_shape(const Trace& t, EventId embedding) {
  if (embedding == kNoEvent) return std::nullopt;
  const auto in = op_inputs(t, embedding);
  // A shape no tensor has (2^40 × 2^40 token ids) would overflow B·S.
  if (!in || in->size() < 2 || (*in)[1].dims.size() != 2 || !element_count((*in)[1].dims)) return std::nullopt;
  return std::make_pair((*in)[1].dims[0], (*in)[1].dims[1]);
}

}  // namespace

std::vector<LoopFacts> find_loops(const Trace& t, const std::vector<StepFacts>& steps, const StepFacts& window,
                                  TrackId window_thread) {
  std::vector<LoopFacts> loops;
  // Per loop, the top-level event opening each iteration, and the last event of the last one.
  std::vector<std::vector<EventId>> openers;
  std::vector<EventId> last_events;
  // A stepless trace is searched as one step: its main thread's top-level work.
  const bool stepless = steps.empty();
  if (stepless && (window_thread >= t.tracks.size() || window.duration_ns <= 0)) return loops;
  const size_t scopes = stepless ? 1 : steps.size();
  for (size_t s = 0; s < scopes; ++s) {
    const TrackId thread = stepless ? window_thread : t.track[steps[s].event];
    const auto [block, kids] = top_level(t, stepless ? kNoEvent : steps[s].event, thread);
    TopLevel top;
    for (EventId e : kids) {
      top.names.push_back(t.name[e]);
      top.dims.push_back(t.input_dims_of(e));
      top.starts.push_back(t.start_ns[e]);
      top.ends.push_back(t.end_ns(e));
    }
    const auto found = find_iterations(top);
    if (!found) continue;
    const EventId last_event = kids[found->spans.back().second];
    const int64_t span = t.end_ns(last_event) - t.start_ns[kids[found->spans.front().first]];
    const int64_t scope_ns = stepless ? span_of(t, kNoEvent, top_level_events(t, thread))
                                      : steps[s].end_ns - steps[s].start_ns;
    if (static_cast<double>(span) < kMinLoopShare * static_cast<double>(scope_ns) ||
        static_cast<double>(found->covered()) < kMinLoopShare * static_cast<double>(kids.size()))
      continue;
    LoopFacts loop;
    loop.step = stepless ? kLoopOverWindow : s;
    loop.thread = thread;
    loop.block = block;
    loop.marker = found->marker;
    loop.period = found->period;
    loop.iteration_count = found->spans.size();
    loop.end_ns = t.end_ns(last_event);
    loops.push_back(std::move(loop));
    openers.emplace_back();
    for (const auto& [first, last] : found->spans) openers.back().push_back(kids[first]);
    last_events.push_back(last_event);
  }
  // Every iteration of every loop, in time order, measured at once (one pass over the trace), then
  // the first kMaxLoopIterationsKept of each moved into its loop: the one copy of them all.
  std::vector<StepFacts> windows;
  std::vector<TrackId> owners;
  size_t all = 0;
  for (const LoopFacts& l : loops) all += l.iteration_count;
  windows.reserve(all);
  owners.reserve(all);
  for (size_t k = 0; k < loops.size(); ++k) {
    const std::vector<EventId>& opens = openers[k];
    for (size_t i = 0; i < opens.size(); ++i) {
      StepFacts w;
      w.event = opens[i];
      w.name = std::string(t.name_of(opens[i]));
      w.start_ns = t.start_ns[opens[i]];
      // An iteration ends where the next begins; the last where its last event ends.
      w.end_ns = i + 1 < opens.size() ? t.start_ns[opens[i + 1]] : t.end_ns(last_events[k]);
      windows.push_back(std::move(w));
      owners.push_back(loops[k].thread);
    }
  }
  openers = {};
  measure_windows(t, windows, owners);
  size_t next = 0;
  for (LoopFacts& l : loops) {
    std::vector<int64_t> wall, cpu, gpu;
    for (size_t i = next + 1; i < next + l.iteration_count; ++i) {
      wall.push_back(windows[i].duration_ns);
      cpu.push_back(windows[i].cpu_ns);
      gpu.push_back(windows[i].gpu_busy_ns);
    }
    l.median_ns = median(wall);
    l.cpu_median_ns = median(cpu);
    l.gpu_median_ns = median(gpu);
    const auto kept = windows.begin() + static_cast<std::ptrdiff_t>(next);
    l.iterations.assign(std::make_move_iterator(kept),
                        std::make_move_iterator(kept + static_cast<std::ptrdiff_t>(
                                                           std::min(l.iteration_count, kMaxLoopIterationsKept))));
    next += l.iteration_count;
    const TrackId thread = l.thread;
    const StepFacts& first = l.iterations.front();
    const StepFacts& typical = l.iterations[1];
    const EventId first_embed = first_embedding(t, thread, first.start_ns, first.end_ns);
    const EventId typical_embed = first_embedding(t, thread, typical.start_ns, typical.end_ns);
    const auto prefill = token_shape(t, first_embed);
    const auto decode = token_shape(t, typical_embed);
    // Tokens only for the prefill → decode signature: later iterations embed fewer tokens per
    // sequence than the first, or none on the host (a compiled decode pass). Equal shapes (a
    // pipeline's batches, a vision model's patch positions) say nothing about tokens.
    if (prefill && (!decode || (decode->first == prefill->first && decode->second < prefill->second))) {
      l.first_tokens = prefill->first * prefill->second;
      l.tokens_per_iteration = decode ? decode->first * decode->second : prefill->first;
    }
    // Forward passes of a language model, shapes or not: every pass embeds token ids and none runs
    // a backward (a training loop over a text model embeds too); with shapes, they must also say
    // prefill → decode.
    l.forward_passes = first_embed != kNoEvent && typical_embed != kNoEvent &&
                       !runs_backward(t, thread, typical.start_ns, typical.end_ns) &&
                       (!prefill || l.first_tokens > 0);
  }
  return loops;
}

}  // namespace whyslow
