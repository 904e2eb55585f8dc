// What-if edits (docs/GRAPH.md): each one a small, named change to the graph's state whose model
// is documented in its file, with its parameters taken from the trace or from a named constant
// that says where its value comes from. The replay of the edited state is the prediction.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/graph/step_replay.hpp"

namespace whyslow {

struct EditContext {
  const Trace& trace;
  const Facts& facts;
  const Graph& graph;
  const std::vector<StepSpan>& spans;   // step_spans()
  const std::vector<size_t>& steady;    // steady_spans()
  const StepSpan& whole;                // a stepless trace: all of its main thread's lane
};

// What an edit's prediction is measured on (EditOutcome::scope_step, besides a step's index).
inline constexpr int kScopeSteady = -1;      // the steady step
inline constexpr int kScopeWholeTrace = -2;  // a stepless trace's whole window (its start-up stretch included)

struct EditOutcome {
  bool applies = false;
  std::string why_not;  // when it does not apply: the trace has nothing it changes
  // It does not apply because the model cannot say, not because there is nothing to change: the
  // finding keeps its own estimate (a DataLoader that already has workers, whose count is not recorded).
  bool unmodelled = false;
  std::string change;   // what it changed, in numbers
  int scope_step = kScopeSteady;  // the step it is measured on: an index into spans, or a kScope*
};

using EditApply = EditOutcome (*)(const EditContext& context, std::string_view param, GraphState& state);

struct EditInfo {
  std::string_view name;   // the --edit name: "cuda-graphs"
  std::string_view title;  // "capture each step in a CUDA graph"
  std::string_view param;  // what its parameter means, "" when it takes none
  EditApply apply;
};
std::span<const EditInfo> edit_catalog();
const EditInfo* find_edit(std::string_view name);
// Runs an edit: refuses a parameter the edit does not take, else applies it.
EditOutcome apply_edit(const EditInfo& edit, const EditContext& c, std::string_view param, GraphState& s);

// The edits, one file each.
EditOutcome edit_one_off(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_cuda_graphs(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_no_sync(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_pin(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_workers(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_fuse(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_tensor_cores(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_roofline_target(const EditContext& c, std::string_view param, GraphState& s);
EditOutcome edit_host_op(const EditContext& c, std::string_view param, GraphState& s);

}  // namespace whyslow
