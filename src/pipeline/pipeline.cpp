#include "pipeline/pipeline.hpp"

#include <fmt/core.h>

#include <mutex>
#include <optional>

#include "analysis/roofline/gpu_peaks.hpp"
#include "common/terminal_text.hpp"
#include "common/units.hpp"
#include "trace/slice_trace.hpp"
#include "trace/steps.hpp"
#include "trace/trace_set.hpp"

namespace whyslow {
namespace {

// ProfilerStep#n's window; a UsageError listing the steps the trace has when it lacks that one,
// or saying where each is when it has several of that number (picking one would be a guess).
std::pair<int64_t, int64_t> step_window(const Trace& t, int n) {
  const std::vector<EventId> steps = find_profiler_steps(t, n);
  if (steps.size() == 1) return {t.start_ns[steps[0]], t.end_ns(steps[0])};
  if (steps.size() > 1) {
    std::string starts;
    for (const EventId e : steps) starts += (starts.empty() ? "+" : ", +") + human_duration(t.start_ns[e] - t.start_ns[steps[0]]);
    throw UsageError(fmt::format("{} has {} steps named ProfilerStep#{}, starting at {} from the first: --step cannot "
                                 "tell which one is meant",
                                 t.path, steps.size(), n, starts));
  }
  std::string present;
  for (EventId e : profiler_steps(t))
    present += (present.empty() ? "#" : ", #") + std::to_string(*profiler_step_number(t.name_of(e)));
  throw UsageError(fmt::format("{} has no ProfilerStep#{}; {}", t.path, n,
                               present.empty() ? "it has no ProfilerStep annotations at all"
                                               : "its steps are " + present));
}

std::optional<Ceilings> measured_ceilings(const AnalysisOptions& o) {
  if (o.peaks.empty()) return std::nullopt;
  try {
    return load_ceilings_file(o.peaks);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

Analyzed analyze_and_explain(Trace trace, const std::optional<Ceilings>& measured) {
  trace.drop_raw_ids();  // linked (and sliced) already: what the analyses do not read goes first
  Analyzed out{std::move(trace), {}, {}};
  out.facts = analyze(out.trace, {measured ? &*measured : nullptr});
  out.findings = explain(out.trace, out.facts);
  return out;
}

}  // namespace

LoadOptions load_options_for(const AnalysisOptions& o, const std::string& path) {
  LoadOptions options = o.load;
  if (o.progress) options.progress = o.progress(path);
  return options;
}

Trace load_with_notes(const std::string& path, const LoadOptions& options, const NoteSink& notes) {
  Trace t = load_trace(path, options);
  report_load_notes(t, notes);
  return t;
}

void load_each_with_notes(const std::vector<std::string>& paths, const LoadOptions& options,
                          const std::function<void(size_t, Trace&&)>& each) {
  std::mutex notes;  // one trace's notes together, not interleaved with another's
  load_each(paths, options, [&](size_t i, Trace&& trace) {
    {
      std::lock_guard lock(notes);
      print_load_notes(trace);
    }
    each(i, std::move(trace));
  });
}

void print_note(const std::string& note) { fmt::print(stderr, "whyslow: warning: {}\n", note); }

void report_load_notes(const Trace& t, const NoteSink& notes) {
  if (t.truncated)
    notes(fmt::format("{} is truncated at byte {}; analyzing what came before the cut ({} events loaded)",
                      t.path, t.truncated_at_byte, t.size()));
  if (t.replaced_control_chars > 0)
    notes(fmt::format("{} has {} raw control characters inside strings (invalid JSON); read them as spaces",
                      t.path, t.replaced_control_chars));
  if (t.unbalanced_durations > 0)
    notes(fmt::format("{} has {} duration events (\"ph\": \"B\" / \"E\") without their other end on their "
                      "thread; left out",
                      t.path, t.unbalanced_durations));
  if (t.ignored_events > 0) {
    std::string phases;
    for (const char ph : t.ignored_phases) phases += (phases.empty() ? "\"" : ", \"") + printable({&ph, 1}) + "\"";
    notes(fmt::format("{} has {} events of phases whyslow does not read (\"ph\": {}); left out", t.path,
                      t.ignored_events, phases));
  }
}

Analyzed load_and_analyze(const AnalysisOptions& o, const NoteSink& notes) {
  const std::string path = one_trace_path(o.path);
  return analyze_loaded(load_with_notes(path, load_options_for(o, path), notes), o);
}

Analyzed analyze_loaded(Trace trace, const AnalysisOptions& o) {
  if (o.step >= 0) {
    const auto [start, end] = step_window(trace, o.step);
    trace = slice_trace(trace, start, end);
  }
  return analyze_and_explain(std::move(trace), measured_ceilings(o));
}

AnalyzedPair load_and_analyze_pair(const AnalysisOptions& o, const std::string& path_b, const NoteSink& notes) {
  const std::optional<Ceilings> measured = measured_ceilings(o);
  const std::string file_a = one_trace_path(o.path), file_b = one_trace_path(path_b);
  Trace a = load_with_notes(file_a, load_options_for(o, file_a), notes);
  Trace b = load_with_notes(file_b, load_options_for(o, file_b), notes);
  return {analyze_and_explain(std::move(a), measured), analyze_and_explain(std::move(b), measured)};
}

}  // namespace whyslow
