// dependency_wait / cpu_prefix: the bound verdicts (bound_scope.hpp) whose GPU idles for a reason
// that is not per-launch CPU overhead, so that the advice is not CUDA graphs or a larger batch.
// - dependency_wait: work was queued on the GPU and still did not run: its stream waited on an
//   event, another stream or a host function (SGLang's stream waiting on an event for 463 ms
//   while the CPU blocks in a 256-byte copy).
// - cpu_prefix: the GPU waits for one block of CPU work before the window's first launch (or after
//   its last GPU work): preprocessing, tokenisation, data preparation (TimeSformer: 218 ms of
//   video preprocessing, then the GPU ~99 % busy).
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
#include "analysis/core/track_range.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"
#include "explain/rules/host_op.hpp"

namespace whyslow {
namespace {

// What the GPU does outside the wait is worth a sentence when there is a millisecond of it.
constexpr int64_t kRestWordedNs = 1'000'000;

// The CPU work a prefix is made of: the longest event on `thread` inside [from, to), unless it
// covers under half of it and an event starting inside covers more while running past `to` (a
// `data` block whose last op launches the step's first copy) with most of its own time inside; one
// mostly outside (a `forward` block around the whole step) is not the prefix's work.
struct PrefixWork {
  EventId event = kNoEvent;
  int64_t inside_ns = 0;  // its part inside [from, to)
};
PrefixWork prefix_work(const Trace& t, TrackId thread, int64_t from, int64_t to, EventId except) {
  PrefixWork ended, overhanging;
  for (EventId e : starting_in(t, thread, from, to)) {
    if (e == except || t.kind[e] == EventKind::Instant) continue;
    const int64_t inside = std::min(t.end_ns(e), to) - t.start_ns[e];
    PrefixWork& best = t.end_ns(e) <= to ? ended : overhanging;
    if (2 * inside < t.dur_ns[e]) continue;
    if (best.event == kNoEvent || inside > best.inside_ns) best = {e, inside};
  }
  if (2 * ended.inside_ns >= to - from || overhanging.inside_ns <= ended.inside_ns) return ended;
  return overhanging;
}

// The part of `work` that none of its children on its thread covers: time the profiler saw no op in.
int64_t uncovered_ns(const Trace& t, EventId work) {
  int64_t covered = 0;
  for (EventId c : starting_in(t, t.track[work], t.start_ns[work], t.end_ns(work)))
    if (t.parent[c] == work) covered += std::min(t.end_ns(c), t.end_ns(work)) - t.start_ns[c];
  return std::max<int64_t>(0, t.dur_ns[work] - covered);
}

// "After the wait, the GPU is busy 493 ms of the remaining 495 ms (99.6 %)".
std::string busy_rest_words(const BoundScope& b, int64_t waited_ns) {
  const int64_t rest = b.total_ns - waited_ns;
  if (rest < kRestWordedNs) return "";
  const double share = static_cast<double>(b.idle.busy_ns) / static_cast<double>(rest);
  return fmt::format(" Outside it, the GPU is busy {} of the remaining {} ({}){}.", human_duration(b.idle.busy_ns),
                     human_duration(rest), human_percent(share),
                     share >= 0.8 ? ": once its work can start, the GPU sets the pace" : "");
}

void common_evidence(const BoundScope& b, Finding& x) {
  x.evidence = {us("step_us", b.windows.empty() ? 0 : b.total_ns / static_cast<int64_t>(b.windows.size())),
                us("gpu_busy_us", b.windows.empty() ? 0 : b.idle.busy_ns / static_cast<int64_t>(b.windows.size()))};
  add_idle_evidence(b, x.evidence);
}

void dependency_wait(const Trace& t, const Facts& f, const BoundScope& b, std::vector<Finding>& out) {
  Finding x = make_finding(FindingId::dependency_wait);
  const int64_t mean = b.total_ns / static_cast<int64_t>(b.windows.size());
  const int64_t waited = b.idle.ns[static_cast<size_t>(IdleCause::Dependency)];
  x.severity = b.dependency >= kBoundWarningShare ? Severity::Warning : Severity::Info;
  x.title = fmt::format("{}he GPU's queued work waits on a dependency {} of {}: not CPU overhead",
                        b.mixed ? "Mixed, mostly: t" : "T", human_percent(b.dependency), scope_span(f, b, mean));
  common_evidence(b, x);
  x.evidence.push_back(count("stream_waits", b.idle.stream_waits));
  std::string longest;
  const EventId ended_by = b.idle.longest_ended_by;
  if (b.idle.longest_cause == IdleCause::Dependency && ended_by != kNoEvent) {
    const EventId launch = t.launch_link[ended_by];
    longest = fmt::format(
        " The longest gap lasts {} from +{}: it ends when {} starts, which {} queued at +{}, {} before it could run.",
        human_duration(b.idle.longest_ns), human_duration(b.idle.longest_at_ns - f.window.start_ns),
        t.name_of(ended_by), launch != kNoEvent ? fmt::format("{} had", t.name_of(launch)) : std::string("was"),
        human_duration((launch != kNoEvent ? t.start_ns[launch] : t.start_ns[ended_by]) - f.window.start_ns),
        human_duration(t.start_ns[ended_by] - (launch != kNoEvent ? t.start_ns[launch] : t.start_ns[ended_by])));
    x.events.push_back({ended_by, "work held back"});
    if (launch != kNoEvent) x.events.push_back({launch, "its launch, long before"});
    x.highlights.shade.emplace_back(b.idle.longest_at_ns, b.idle.longest_at_ns + b.idle.longest_ns);
  }
  const int64_t sync = median_of(b.windows, &StepFacts::sync_wait_ns);
  x.detail = fmt::format(
      "In {}, the GPU idles {} while work for it is already queued: the launch calls had returned, yet the work "
      "did not start. Its stream was waiting on something outside its own queue — an event recorded on another "
      "stream, a host function (cudaLaunchHostFunc), another process's work — so neither faster kernels nor less "
      "CPU time per launch would shorten this.{}{}{}{} {}",
      scope_unit(f, b), human_duration(waited / static_cast<int64_t>(b.windows.size())),
      b.idle.stream_waits > 0
          ? fmt::format(" The windows make {} stream-wait calls (cudaStreamWaitEvent/hipStreamWaitEvent).", b.idle.stream_waits)
          : "",
      longest,
      sync > 0 ? fmt::format(" The CPU meanwhile sits {}{} in blocking calls: waiting on the same dependency, "
                             "not CPU overhead.", human_duration(sync), b.windows.size() > 1 ? " per window" : "")
               : "",
      busy_rest_words(b, waited), idle_split_words(b));
  x.try_next = {"Find what the stream waits on: the event's record (the trace shows the wait, not its source) — "
                "another stream's work, a host function, an event shared with another process or rank. Record "
                "with experimental_config=_ExperimentalConfig(enable_cuda_sync_events=True) to see the waits on the "
                "GPU lanes.",
                "If the wait is for another process or device (a scheduler, a tokenizer, a peer), queue independent "
                "work before the wait, or move the dependency earlier so it is ready when the stream reaches it.",
                "CUDA graphs and a larger batch will not help here: the work is already on the GPU, waiting."};
  x.impact_ns = waited / static_cast<int64_t>(b.windows.size());
  x.impact_what = "the GPU's idle time with work queued behind a dependency, per window";
  x.impact_basis_ns = mean;
  out.push_back(std::move(x));
}

void cpu_prefix(const Trace& t, const Facts& f, const BoundScope& b, std::vector<Finding>& out) {
  Finding x = make_finding(FindingId::cpu_prefix);
  const int64_t n = static_cast<int64_t>(b.windows.size());
  const int64_t mean = b.total_ns / n;
  const int64_t prefix = b.idle.ns[static_cast<size_t>(IdleCause::Prefix)] / n;
  const int64_t tail = b.idle.ns[static_cast<size_t>(IdleCause::Tail)] / n;
  const bool before = prefix >= tail;
  x.severity = b.cpu_block >= kBoundWarningShare ? Severity::Warning : Severity::Info;
  // Under lazy submission the first launch came earlier but its work reached the GPU only with the
  // host's next wait: the block of CPU work is before the GPU's first work, not its first launch.
  const bool lazy = shows_lazy_submission(b);
  const std::string_view first = lazy ? "before the GPU's first work in" : "before the first GPU launch of";
  const HostOp op = dominant_host_op(t, f, b);
  x.title = fmt::format("{}{} of CPU work {} {}{}: the GPU idles {} of the time", b.mixed ? "Mixed, mostly: " : "",
                        human_duration(before ? prefix : tail), before ? first : "after the last GPU work of",
                        scope_span(f, b, mean),
                        op.found() ? fmt::format(", {} of the step in {}", human_percent(op.share), t.names.view(op.name))
                                   : std::string(),
                        human_percent(b.cpu_block));
  common_evidence(b, x);
  // The CPU work itself, in the window that holds the longest prefix (or tail).
  const size_t cause = static_cast<size_t>(before ? IdleCause::Prefix : IdleCause::Tail);
  const StepFacts* w = *std::max_element(b.windows.begin(), b.windows.end(), [&](const StepFacts* p, const StepFacts* q) {
    return p->idle.ns[cause] < q->idle.ns[cause];
  });
  const TrackId thread = w->event != kNoEvent ? t.track[w->event] : f.window_thread;
  std::string what;
  if (thread < t.tracks.size()) {
    const int64_t from = before ? w->start_ns : w->end_ns - w->idle.ns[static_cast<size_t>(IdleCause::Tail)];
    const int64_t to = before ? w->start_ns + w->idle.ns[static_cast<size_t>(IdleCause::Prefix)] : w->end_ns;
    const PrefixWork piece = prefix_work(t, thread, from, to, w->event);
    const EventId work = piece.event;
    if (work != kNoEvent && op.found() && t.name[work] == op.name) {
      x.events.push_back({work, before ? "CPU work before the GPU's first work" : "CPU work after the last GPU work"});
    } else if (work != kNoEvent) {
      // A record_function block with no op recorded in most of it: say so, the profiler cannot show
      // what it was (an op or a runtime call is its own work).
      const int64_t blank = t.kind[work] == EventKind::UserAnnotation ? uncovered_ns(t, work) : 0;
      what = fmt::format(" {} {} ({}){}.", 2 * piece.inside_ns >= to - from ? "Most of it is" : "The longest piece of it is",
                         t.name_of(work), human_duration(t.dur_ns[work]),
                         2 * blank > t.dur_ns[work]
                             ? fmt::format(", with no op recorded inside it for {}: a sleep, I/O, a wait on another "
                                           "thread or process, or Python the profiler does not see", human_duration(blank))
                             : std::string());
      x.events.push_back({work, before ? "CPU work before the GPU's first work" : "CPU work after the last GPU work"});
    } else {
      what = " Nothing is recorded on the thread in it: Python between ops, a sleep, or work the profiler does not see.";
    }
    x.highlights.shade.emplace_back(from, to);
  }
  x.detail = fmt::format(
      "In {}, the GPU has nothing to do for {}{} {}: the CPU spends it in one stretch of its own "
      "(such as {}) and {}.{}{}{} This is one block of CPU work, not per-launch overhead: CUDA "
      "graphs or fewer launches would not shorten it; moving it off the critical path would.{} {}",
      scope_unit(f, b), human_duration(before ? prefix : tail), b.windows.size() > 1 ? " per window" : "",
      before ? (lazy ? "before its first GPU work starts" : "before its first GPU launch") : "after its last GPU work",
      "preprocessing, tokenisation, data preparation, logging",
      lazy ? "sends the GPU nothing meanwhile" : "launches nothing meanwhile", what,
      op.found() ? host_op_words(t, f, b, op) : std::string(), lazy_submission_words(b),
      busy_rest_words(b, b.idle.ns[static_cast<size_t>(IdleCause::Prefix)] + b.idle.ns[static_cast<size_t>(IdleCause::Tail)]),
      idle_split_words(b));
  x.try_next = {"Overlap it with the GPU's work: prepare step N+1's input while step N runs (DataLoader workers "
                "with num_workers > 0 and pin_memory=True, a background thread, prefetching).",
                "Or move it to the GPU: decode, resize and normalize with torch ops on CUDA tensors (or a GPU "
                "pipeline such as DALI).",
                "If it runs only once (set-up before the first step), keep it out of the profiled loop."};
  if (op.found()) {
    // The op's own fix first, then overlapping it; it runs in every window, so it is no set-up to
    // leave out, and moving it to the GPU is the op's advice to give, not a video pipeline's.
    x.try_next = {host_op_advice(t, b, op), x.try_next.front()};
    x.evidence.insert(x.evidence.end(), {us("host_op_us", op.ns / n), percent("host_op_pct", op.share),
                                         {"host_op_calls_per_window", static_cast<double>(op.calls) / static_cast<double>(n), "count"}});
    if (op.longest != kNoEvent && std::none_of(x.events.begin(), x.events.end(), [&](const EventRef& r) { return r.event == op.longest; }))
      x.events.push_back({op.longest, "the op that holds the host's time: its longest call"});
    x.fix_edit = "host-op";
    x.fix_param = t.names.view(op.name);
  }
  if (lazy) x.evidence.push_back(count("submitted_at_wait", b.idle.submitted_at_wait));
  x.impact_ns = before ? prefix : tail;
  x.impact_what = "the GPU's idle time during the block of CPU work, per window";
  x.impact_basis_ns = mean;
  out.push_back(std::move(x));
}

}  // namespace

void rule_gpu_waits(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const BoundScope b = bound_scope(f);
  if (b.windows.empty()) return;
  if (b.verdict == BoundVerdict::Dependency) dependency_wait(t, f, b, out);
  else if (b.verdict == BoundVerdict::CpuBlock) cpu_prefix(t, f, b, out);
  else if (b.verdict == BoundVerdict::Launch) {
    // overhead_bound names the host collectives the launch wait is made of; a block of CPU work that
    // outweighs the launch overhead left beside them is a cause of its own.
    const int64_t step = median_of(b.windows, &StepFacts::duration_ns);
    if (!cpu_block_beside_host_comm(b, host_comm_wait(t, f, b, step).ns, step)) return;
    BoundScope block = b;
    block.verdict = BoundVerdict::CpuBlock;
    block.mixed = true;
    cpu_prefix(t, f, block, out);
  }
}

}  // namespace whyslow
