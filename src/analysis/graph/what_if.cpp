#include "analysis/graph/what_if.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

// The edits whyslow tries on every trace, in order. CUDA graphs: as torch.compile's
// reduce-overhead where the steady steps already run compiled code (the fix a compiled model
// takes); else by hand and, for a torch program, also as reduce-overhead, whose per-call cost can
// exceed the launches it saves (a 64×64 matmul: the step gets slower).
std::vector<EditRequest> default_edits(const Facts& f) {
  bool compiled = false;
  for (const StepCompile& s : f.compile.per_step) compiled = compiled || s.region_calls > 0;
  std::vector<EditRequest> edits = {{"one-off", ""}, {"cuda-graphs", compiled ? "reduce-overhead" : ""}};
  if (!compiled && f.recording.from_torch) edits.push_back({"cuda-graphs", "reduce-overhead"});
  for (const char* e : {"no-sync", "pin", "workers", "fuse", "tensor-cores", "roofline"}) edits.push_back({e, ""});
  return edits;
}

// Of a trace with many steps the graph covers the cold step and the first this many steady steps:
// their median is the steady step every what-if predicts, and a 500 MB trace of 430 steps is then
// replayed in milliseconds instead of building a graph of a million nodes (and replaying it once per
// edit) for steps that repeat the same work.
constexpr size_t kMaxReplayedSteps = 16;

// The steady steps the graph replays (the first kMaxReplayedSteps), and the window that holds them
// and the cold step.
std::pair<std::vector<size_t>, GraphWindow> replayed_steps(const Facts& f) {
  std::vector<size_t> steady = steady_spans(f);
  if (steady.empty()) return {steady, GraphWindow{}};
  if (steady.size() > kMaxReplayedSteps) steady.resize(kMaxReplayedSteps);
  // A stepless trace's loop: from the trace's start (its start-up stretch, the first iteration)
  // to the last replayed iteration's end.
  if (const LoopFacts* loop = stepless_loop(f)) return {steady, GraphWindow{INT64_MIN, loop->iterations[steady.back()].end_ns}};
  if (f.steps.empty()) return {steady, GraphWindow{}};
  GraphWindow w{f.steps[steady.front()].start_ns, f.steps[steady.back()].end_ns};
  const int cold = f.cold_start.step_index;
  if (cold >= 0 && static_cast<size_t>(cold) < f.steps.size()) {
    w.start_ns = std::min(w.start_ns, f.steps[cold].start_ns);
    w.end_ns = std::max(w.end_ns, f.steps[cold].end_ns);
  }
  return {steady, w};
}

struct Replayer {
  const Trace& t;
  const Facts& f;
  std::pair<std::vector<size_t>, GraphWindow> replayed;
  Graph g;
  std::vector<StepSpan> spans;
  std::vector<size_t> steady;
  GraphState measured;
  ReplayTimes base;

  Replayer(const Trace& trace, const Facts& facts)
      : t(trace), f(facts), replayed(replayed_steps(facts)), g(build_graph(trace, facts, replayed.second)) {
    spans = step_spans(t, f, g);
    steady = replayed.first;
    measured = measured_state(g);
    base = replay(g, measured);
    if (f.steps.empty()) {
      const TrackId main = stepless_loop(f) ? stepless_loop(f)->thread : f.window_thread;
      for (uint32_t i = 0; i < g.lanes.size(); ++i)
        if (!g.lanes[i].gpu && g.lanes[i].track == main && !g.lanes[i].nodes.empty())
          whole = {i, g.lanes[i].nodes.front(), g.lanes[i].nodes.back()};
    }
  }
  StepSpan whole;  // a stepless trace: its main thread's lane, all of it
  EditContext context() const { return {t, f, g, spans, steady, whole}; }
  int64_t measure(const ReplayTimes& r, int scope) const {
    if (scope >= 0) return span_length(g, r, spans[static_cast<size_t>(scope)], false);
    if (scope == kScopeWholeTrace) return span_length(g, r, whole, false);
    return steady_step_ns(g, r, spans, steady);
  }
  std::string scope_name(int scope) const {
    if (scope >= 0 && static_cast<size_t>(scope) < f.steps.size()) return f.steps[static_cast<size_t>(scope)].name;
    if (scope == kScopeWholeTrace) return "whole trace";
    return stepless_loop(f) ? "steady iteration" : "steady step";
  }
};

WhatIf make_what_if(const EditRequest& req, const EditInfo& info, const EditOutcome& o, const Replayer& r,
                    const ReplayTimes& after) {
  WhatIf w;
  w.edit = req.name;
  w.param = req.param;
  w.title = std::string(info.title);
  w.change = o.change;
  w.scope = r.scope_name(o.scope_step);
  w.per_step = o.scope_step == kScopeSteady;
  w.step_ns = r.measure(r.base, o.scope_step);
  w.predicted_step_ns = r.measure(after, o.scope_step);
  return w;
}

}  // namespace

EditRequest parse_edit(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return {std::string(text), ""};
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

GraphFacts analyze_graph(const Trace& t, const Facts& f) {
  GraphFacts out;
  if (f.recording.what != Recorded::Gpu && f.recording.what != Recorded::CpuOnly) return out;
  const Replayer r(t, f);
  out.built = true;
  out.nodes = r.g.size();
  out.edges = r.g.edges.size();
  out.cycle_nodes = r.base.cycle_nodes;
  out.nominal = r.g.nominal;
  for (const StepSpan& sp : r.spans) {
    StepReplay s;
    if (!sp.empty()) {
      s.measured_ns = r.g.nodes[sp.last].end_ns - r.g.nodes[sp.first].start_ns;
      s.replay_ns = span_length(r.g, r.base, sp, false);
      s.critical_path = critical_path(t, r.g, r.measured, r.base, sp);
      if (s.measured_ns > 0)
        out.worst_replay_error = std::max(out.worst_replay_error,
                                          std::abs(static_cast<double>(s.replay_ns - s.measured_ns)) / static_cast<double>(s.measured_ns));
    }
    out.steps.push_back(std::move(s));
  }
  // The path the HTML report draws: the first replayed steady step's.
  if (!r.steady.empty() && r.steady.front() < r.spans.size() && !r.spans[r.steady.front()].empty()) {
    out.path_step = static_cast<int32_t>(r.steady.front());
    out.path = critical_path_segments(r.g, r.measured, r.base, r.spans[r.steady.front()]);
  }
  {
    std::map<std::pair<PathKind, std::string>, int64_t> sum;
    size_t count = 0;
    for (size_t i : r.steady)
      if (i < out.steps.size() && !out.steps[i].critical_path.empty()) {
        ++count;
        for (const PathPart& p : out.steps[i].critical_path) sum[{p.kind, p.what}] += p.ns;
      }
    out.steady_path = largest_first(sum, static_cast<int64_t>(count));
  }
  // The steady step as measured: the same definition over the measured times.
  ReplayTimes measured_times;
  measured_times.start.resize(r.g.size());
  measured_times.end.resize(r.g.size());
  for (size_t i = 0; i < r.g.size(); ++i) {
    measured_times.start[i] = r.g.nodes[i].start_ns;
    measured_times.end[i] = r.g.nodes[i].end_ns;
  }
  out.steady_step_ns = steady_step_ns(r.g, measured_times, r.spans, r.steady);
  out.steady_replay_ns = steady_step_ns(r.g, r.base, r.spans, r.steady);
  if (f.recording.what != Recorded::Gpu) return out;  // the edits change GPU work and its launches

  GraphState together = r.measured;
  bool any_together = false;
  std::vector<std::string> together_changes;
  for (const EditRequest& req : default_edits(f)) {
    const EditInfo* info = find_edit(req.name);
    GraphState s = r.measured;
    const EditOutcome o = apply_edit(*info, r.context(), req.param, s);
    if (o.unmodelled) out.unmodelled.emplace_back(req.name, o.why_not);
    if (!o.applies) continue;
    out.what_if.push_back(make_what_if(req, *info, o, r, replay(r.g, s)));
    // Together: each edit once (by hand, where CUDA graphs are tried two ways).
    const bool second_graphs = req.name == "cuda-graphs" && std::any_of(together_changes.begin(), together_changes.end(), [](const std::string& c) {
      return c.starts_with("cuda-graphs");
    });
    if (o.scope_step == kScopeSteady && !second_graphs) {
      apply_edit(*info, r.context(), req.param, together);
      any_together = true;
      together_changes.push_back(req.param.empty() ? req.name : req.name + "=" + req.param);
    }
  }
  std::stable_sort(out.what_if.begin(), out.what_if.end(), [](const WhatIf& a, const WhatIf& b) {
    return a.step_ns - a.predicted_step_ns > b.step_ns - b.predicted_step_ns;
  });
  if (any_together) {
    WhatIf& w = out.all_together;
    w.edit = "all";
    w.title = "all of them together";
    for (const std::string& c : together_changes) w.change += (w.change.empty() ? "" : ", ") + c;
    w.scope = r.scope_name(kScopeSteady);
    w.step_ns = r.measure(r.base, -1);
    w.predicted_step_ns = r.measure(replay(r.g, together), -1);
  }
  return out;
}

WhatIfAnswer what_if(const Trace& t, const Facts& f, const std::vector<EditRequest>& edits) {
  if (edits.empty()) throw std::invalid_argument("what-if needs at least one --edit");
  if (f.recording.what != Recorded::Gpu)
    throw std::invalid_argument(fmt::format(
        "the trace holds no record of GPU work ({}): the edits change GPU work and its launches, so there is nothing to "
        "replay; record with ProfilerActivity.CUDA",
        to_string(f.recording.what)));
  const Replayer r(t, f);
  GraphState s = r.measured;
  WhatIfAnswer out;
  int scope = kScopeSteady;
  for (const EditRequest& req : edits) {
    const EditInfo* info = find_edit(req.name);
    if (!info) {
      std::string known;
      for (const EditInfo& e : edit_catalog()) known += (known.empty() ? "" : ", ") + std::string(e.name);
      throw std::invalid_argument(fmt::format("unknown edit \"{}\": the edits are {}", req.name, known));
    }
    const EditOutcome o = apply_edit(*info, r.context(), req.param, s);
    if (!o.applies) throw std::invalid_argument(fmt::format("edit \"{}\" does not apply: {}", req.name, o.why_not));
    if (o.scope_step != kScopeSteady) {
      if (edits.size() > 1)
        throw std::invalid_argument("one-off predicts the cold step, the other edits the steady step: ask for it alone");
      scope = o.scope_step;
    }
    out.changes.push_back(fmt::format("{}: {}", info->title, o.change));
    // As make_what_if's: the titles and the changes in numbers, each edit's in turn.
    out.result.title += (out.result.title.empty() ? "" : "; ") + std::string(info->title);
    out.result.change += (out.result.change.empty() ? "" : "; ") + o.change;
  }
  const ReplayTimes after = replay(r.g, s);
  out.result.edit = edits.size() == 1 ? edits.front().name : "all";
  out.result.param = edits.size() == 1 ? edits.front().param : "";
  out.result.scope = r.scope_name(scope);
  out.result.per_step = scope == kScopeSteady;
  out.result.step_ns = r.measure(r.base, scope);
  out.result.predicted_step_ns = r.measure(after, scope);
  if (scope == kScopeWholeTrace) {
    out.critical_path = critical_path(t, r.g, s, after, r.whole);
  } else {
    const size_t path_step = scope >= 0 ? static_cast<size_t>(scope) : (r.steady.empty() ? 0 : r.steady.front());
    if (path_step < r.spans.size()) out.critical_path = critical_path(t, r.g, s, after, r.spans[path_step]);
  }
  return out;
}

}  // namespace whyslow
