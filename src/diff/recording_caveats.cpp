// Caveats that change the reading of a diff: the two sides recorded with different profiler
// options. Each option costs CPU time where it records: record_shapes in every op call (it
// copies the inputs' sizes), with_stack in every Python call (the tracer), profile_memory in every
// allocation, with_modules in every module call. Which options a side used is read from what its
// trace holds (Input Dims, python_function events, [memory] records, nn.Module events); how much
// they cost is measured on the blocks both sides run the same number of times per step: work that
// did not change, so whatever time it gained is the instrumentation's.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>

#include "analysis/blocks/code_origin.hpp"
#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// The instrumentation explains the change when its measured cost is at least half of it (the
// same share that names a cause, kCauseShare in verdict.cpp).
constexpr double kExplainsShare = 0.50;

std::vector<std::string> option_names(const RecordingOptions& o) {
  std::vector<std::string> out;
  if (o.shapes) out.push_back("record_shapes");
  if (o.stack) out.push_back("with_stack");
  if (o.memory) out.push_back("profile_memory");
  if (o.modules) out.push_back("with_modules");
  return out;
}

std::string listed(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += fmt::format("{}{}", i == 0 ? "" : i + 1 == v.size() ? " and " : ", ", v[i]);
  return out;
}

// Options one side used and the other did not.
std::vector<std::string> only_in(const RecordingOptions& x, const RecordingOptions& y) {
  std::vector<std::string> out;
  for (const std::string& n : option_names(x)) {
    const std::vector<std::string> other = option_names(y);
    if (std::find(other.begin(), other.end(), n) == other.end()) out.push_back(n);
  }
  return out;
}

}  // namespace

RecordingOptions recording_options(const Trace& t) {
  RecordingOptions o;
  o.memory = !t.memory.empty();
  for (EventId e = 0; e < t.size() && !(o.shapes && o.stack && o.modules); ++e) {
    if (t.kind[e] == EventKind::CpuOp && t.detail[e] != UINT32_MAX && t.op_shapes[t.detail[e]].input_dims != kNoName)
      o.shapes = true;
    else if (t.kind[e] == EventKind::PythonFunction)
      (is_module_event_name(t.name_of(e)) ? o.modules : o.stack) = true;
  }
  return o;
}

void judge_recording(Diff& d) {
  Verdict& v = d.verdict;
  const std::vector<std::string> a_only = only_in(d.a.options, d.b.options), b_only = only_in(d.b.options, d.a.options);
  if (a_only.empty() && b_only.empty()) return;
  // The blocks both sides run equally often: the same work, so their change is the recording's.
  int64_t shared_delta = 0;
  size_t shared = 0;
  for (const Component& c : d.blocks) {
    const auto ia = d.a.ops_per_step.find(c.key), ib = d.b.ops_per_step.find(c.key);
    const bool same_calls = ia != d.a.ops_per_step.end() && ib != d.b.ops_per_step.end() && ia->second == ib->second;
    if (!same_calls || c.a.median == 0 || c.b.median == 0) continue;
    shared_delta += c.delta();
    ++shared;
  }
  std::string options;
  if (!a_only.empty()) options += fmt::format("A was recorded with {} and B without", listed(a_only));
  if (!b_only.empty()) options += fmt::format("{}B was recorded with {} and A without", options.empty() ? "" : "; ", listed(b_only));
  std::string words = fmt::format("{}: each option costs CPU time where it records (record_shapes in every op call, "
                                  "with_stack in every Python call, profile_memory in every allocation, with_modules in "
                                  "every module call), so the side with more of them is slower for that alone.",
                                  options);
  if (shared > 0)
    words += fmt::format(" The {} op{} both sides call equally often take {} per step in B than in A.", shared,
                         shared == 1 ? "" : "s", shared_delta == 0 ? std::string("the same time")
                                                                   : human_duration(std::llabs(shared_delta)) +
                                                                         (shared_delta > 0 ? " more" : " less"));
  const bool b_heavier = !b_only.empty() && a_only.empty(), a_heavier = !a_only.empty() && b_only.empty();
  const bool explains = v.delta_step_ns != 0 && ((b_heavier && v.delta_step_ns > 0) || (a_heavier && v.delta_step_ns < 0)) &&
                        static_cast<double>(std::llabs(shared_delta)) >= kExplainsShare * static_cast<double>(std::llabs(v.delta_step_ns)) &&
                        (shared_delta > 0) == (v.delta_step_ns > 0);
  v.recording_explains = explains;
  if (explains)
    words += fmt::format(" That is {} of the {} difference of the median steps: record both sides with the same "
                         "options before reading the difference as the program's.",
                         human_percent(static_cast<double>(std::llabs(shared_delta)) / static_cast<double>(std::llabs(v.delta_step_ns))),
                         human_duration(std::llabs(v.delta_step_ns)));
  else
    words += " Record both sides with the same options to compare them exactly.";
  v.caveats.push_back(std::move(words));
}

}  // namespace whyslow
