#include "cli/mcp_tools.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <span>

#include "analysis/graph/edits/edits.hpp"
#include "cli/commands.hpp"
#include "cli/mcp_trim.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "diff/diff.hpp"
#include "pipeline/pipeline.hpp"
#include "report/digest/ranks_job.hpp"
#include "report/json/json_report.hpp"
#include "report/ranks_report.hpp"

namespace whyslow::cli {

// One argument of a tool, as its inputSchema declares it and call_tool checks it.
struct McpParam {
  enum class Type { String, Step, Boolean, Edits };
  std::string_view name;
  Type type;
  std::string_view description;
  bool required = false;
};

namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;
using Type = McpParam::Type;

constexpr McpParam kTrace{"trace", Type::String,
                          "path of a torch.profiler / Kineto trace (.json or .json.gz), or the folder "
                          "tensorboard_trace_handler wrote when it holds one trace",
                          true};
constexpr McpParam kStep{"step", Type::Step, "analyze only ProfilerStep#N: its CPU events and the GPU work they launched"};
constexpr McpParam kFull{"full", Type::Boolean,
                         "the whole --json document, not trimmed to fit an agent's context (it may run to megabytes)"};

}  // namespace

// A tool: its schema, the top-level fields of the document it returns (all: empty) and what
// makes the document: the code the CLI subcommand runs.
struct McpTool {
  std::string_view name, title, description;
  std::span<const McpParam> params;
  std::span<const std::string_view> fields;
  std::string (*document)(McpArguments args, const NoteSink& notes);
};

namespace {

const simdjson::dom::element* find_argument(McpArguments args, std::string_view name) {
  const auto it = std::find_if(args.begin(), args.end(), [&](const auto& a) { return a.first == name; });
  return it == args.end() ? nullptr : &it->second;
}

// After refused_arguments found none wrong, the arguments read without checks.
std::string text_argument(McpArguments args, std::string_view name) {
  return std::string(std::string_view(*find_argument(args, name)));
}
int step_argument(McpArguments args) {  // -1: the whole trace
  const simdjson::dom::element* e = find_argument(args, "step");
  return e ? static_cast<int>(int64_t(*e)) : -1;
}
bool full_argument(McpArguments args) {
  const simdjson::dom::element* e = find_argument(args, "full");
  return e && bool(*e);
}
std::vector<std::string> edits_argument(McpArguments args) {
  std::vector<std::string> edits;
  for (const simdjson::dom::element e : simdjson::dom::array(*find_argument(args, "edits")))
    edits.emplace_back(std::string_view(e));
  return edits;
}

bool fits(const McpParam& p, simdjson::dom::element e) {
  switch (p.type) {
    case Type::String: return e.is_string() && !std::string_view(e).empty();
    case Type::Boolean: return e.is_bool();
    case Type::Step: {
      int64_t n = 0;
      return !e.get_int64().get(n) && n >= 0 && static_cast<uint64_t>(n) <= kMaxStep;
    }
    case Type::Edits: {
      simdjson::dom::array a;
      if (e.get_array().get(a) || a.size() == 0) return false;
      return std::all_of(a.begin(), a.end(), [](simdjson::dom::element x) { return x.is_string(); });
    }
  }
  return false;
}

std::string expected(Type t) {
  switch (t) {
    case Type::String: return "a non-empty string";
    case Type::Boolean: return "true or false";
    case Type::Step: return fmt::format("a whole number from 0 to {}", kMaxStep);
    case Type::Edits: return "a non-empty array of strings, each NAME or NAME=PARAM";
  }
  return "";
}

// What is wrong with the arguments, as the agent should read it; "" when nothing. The SDKs check
// arguments against inputSchema on the client side only when they choose to: the server checks.
std::string refused_arguments(const McpTool& tool, McpArguments args) {
  for (const auto& argument : args) {
    const std::string_view name = argument.first;
    const auto p = std::find_if(tool.params.begin(), tool.params.end(), [&](const McpParam& q) { return q.name == name; });
    if (p == tool.params.end()) {
      std::string names;
      for (const McpParam& q : tool.params) names += (names.empty() ? "" : ", ") + std::string(q.name);
      return fmt::format("unknown argument '{}': {} takes {}", name, tool.name, names);
    }
    if (!fits(*p, argument.second)) return fmt::format("argument '{}' must be {}", name, expected(p->type));
  }
  for (const McpParam& p : tool.params)
    if (p.required && !find_argument(args, p.name)) return fmt::format("missing argument '{}': {}", p.name, p.description);
  return {};
}

AnalysisOptions options_for(McpArguments args) {
  AnalysisOptions o;
  o.path = text_argument(args, "trace");
  o.step = step_argument(args);
  return o;
}

// `whyslow explain --json`: one trace, or a job's ranks (files of a folder or a glob) together.
std::string explain_document(McpArguments args, const NoteSink& notes) {
  CommonOptions o;  // the options summarize_ranks takes, as `explain` fills them
  o.step = step_argument(args);
  const std::vector<std::string> paths = expand_rank_paths({text_argument(args, "trace")});
  if (!is_one_trace(paths)) return render_ranks_json(ranks_of_one_job(summarize_ranks(paths, o)));
  o.path = paths.front();
  const Analyzed x = load_and_analyze(o, notes);
  return render_json(x.trace, x.facts, x.findings);
}

// `ops`, `kernels` and the memory fields: the explain document of one trace, as the CLI prints it.
std::string one_trace_document(McpArguments args, const NoteSink& notes) {
  const Analyzed x = load_and_analyze(options_for(args), notes);
  return render_json(x.trace, x.facts, x.findings);
}

std::string diff_document(McpArguments args, const NoteSink& notes) {
  AnalysisOptions o;
  o.path = text_argument(args, "a");
  const AnalyzedPair p = load_and_analyze_pair(o, text_argument(args, "b"), notes);
  return render_diff_json(diff_traces(p.a.trace, p.a.facts, p.b.trace, p.b.facts));
}

std::string what_if_document(McpArguments args, const NoteSink& notes) {
  return render_what_if_json(what_if_edits(load_and_analyze(options_for(args), notes), edits_argument(args)));
}

// The edits' names and what each does, from the catalog `what-if --edit` takes.
std::string edit_names() {
  std::string d;
  for (const EditInfo& e : edit_catalog())
    d += fmt::format(" {} ({}{}{});", e.name, e.title, e.param.empty() ? "" : "; PARAM: ", e.param);
  d.back() = '.';
  return d;
}

constexpr McpParam kExplainParams[] = {
    {"trace", Type::String,
     "path of a torch.profiler / Kineto trace (.json or .json.gz), a folder or a glob: one trace is explained, "
     "several (one job's ranks) together",
     true},
    kStep, kFull};
constexpr McpParam kOneTraceParams[] = {kTrace, kStep, kFull};
constexpr McpParam kDiffParams[] = {
    {"a", Type::String, "trace A, the baseline (a file, or a folder holding one trace)", true},
    {"b", Type::String, "trace B, the change", true},
    kFull};
constexpr McpParam kWhatIfParams[] = {
    kTrace, {"edits", Type::Edits, "the edits to apply together, each NAME or NAME=PARAM (whyslow what-if --edit):", true},
    kFull};

constexpr std::string_view kOpsFields[] = {"whyslow_version", "schema_version", "trace", "ops"};
constexpr std::string_view kKernelsFields[] = {"whyslow_version", "schema_version", "trace", "kernels", "ceilings"};
constexpr std::string_view kMemoryFields[] = {"whyslow_version", "schema_version", "trace", "steps", "memory"};

const McpTool kTools[] = {
    {"explain", "Why is this trace slow?",
     "Reads a PyTorch profiler (Kineto) trace and says with numbers why the program is slow: findings, most "
     "important first, each with its evidence and a fix, then the steps, kernels, ops, blocks, memory and what-if "
     "tables. The `whyslow explain --json` document (docs/JSON.md).",
     kExplainParams, {}, explain_document},
    {"diff", "Did the change pay?",
     "Compares two traces (before/after, eager/torch.compile): steady-step times, kernels and launches per step, "
     "which kernels of B replace which of A, compile cost, and a verdict. The `whyslow diff --json` document.",
     kDiffParams, {}, diff_document},
    {"what_if", "What would a fix give?",
     "Applies edits (CUDA graphs, no host syncs, pinned memory, fusion, …) to the trace's dependency graph together "
     "and replays it: the predicted step and its critical path. The `whyslow what-if --json` document.",
     kWhatIfParams, {}, what_if_document},
    {"ops", "The op table",
     "torch's key_averages() table: each op's calls, CPU and device time, self and total. The `ops` field of "
     "`whyslow ops --json`.",
     kOneTraceParams, kOpsFields, one_trace_document},
    {"kernels", "The kernel table",
     "Every GPU kernel: calls, total/mean/min/max time, grid, block, registers, shared memory, and what bounds it "
     "(roofline). The `kernels` and `ceilings` fields of `whyslow kernels --json`.",
     kOneTraceParams, kKernelsFields, one_trace_document},
    {"memory", "Where the memory goes",
     "From a trace recorded with profile_memory=True: each step's memory peak, and what is live at the largest one "
     "by role (parameters, activations, gradients, temporaries) with the largest tensors and the ops that made them. "
     "The `memory` and `steps` fields of `whyslow explain --json`.",
     kOneTraceParams, kMemoryFields, one_trace_document},
};

void write_input_schema(JsonWriter& w, std::span<const McpParam> params) {
  w.key("inputSchema").begin_object(Layout::Inline);
  w.key("type").string("object");
  w.key("properties").begin_object();
  for (const McpParam& p : params) {
    w.key(p.name).begin_object();
    switch (p.type) {
      case Type::String: w.key("type").string("string").key("minLength").integer(1); break;
      case Type::Boolean: w.key("type").string("boolean").key("default").boolean(false); break;
      case Type::Step: w.key("type").string("integer").key("minimum").integer(0).key("maximum").unsigned_integer(kMaxStep); break;
      case Type::Edits:
        w.key("type").string("array").key("minItems").integer(1);
        w.key("items").begin_object().key("type").string("string").end_object();
        break;
    }
    w.key("description").string(p.type == Type::Edits ? std::string(p.description) + edit_names() : std::string(p.description));
    w.end_object();
  }
  w.end_object();
  w.key("required").begin_array();
  for (const McpParam& p : params)
    if (p.required) w.string(p.name);
  w.end_array();
  w.key("additionalProperties").boolean(false);
  w.end_object();
}

}  // namespace

void write_tool_list(JsonWriter& w) {
  w.key("tools").begin_array(Layout::Inline);
  for (const McpTool& t : kTools) {
    w.begin_object();
    w.key("name").string(t.name).key("title").string(t.title).key("description").string(t.description);
    write_input_schema(w, t.params);
    // Every tool only reads the files it is given: nothing is written, nothing is fetched.
    w.key("annotations").begin_object().key("readOnlyHint").boolean(true).key("openWorldHint").boolean(false).end_object();
    w.end_object();
  }
  w.end_array();
}

const McpTool* find_tool(std::string_view name) {
  const auto it = std::find_if(std::begin(kTools), std::end(kTools), [&](const McpTool& t) { return t.name == name; });
  return it == std::end(kTools) ? nullptr : &*it;
}

ToolResult call_tool(const McpTool& tool, McpArguments args) {
  if (std::string why = refused_arguments(tool, args); !why.empty()) return {{std::move(why)}, true};
  std::vector<std::string> notes;
  std::string document;
  try {
    document = tool.document(args, [&notes](const std::string& note) { notes.push_back("whyslow: warning: " + note); });
  } catch (const std::exception& e) {  // LoadError, UsageError (a step the trace lacks), an edit that does not apply
    return {{fmt::format("whyslow: error: {}", e.what())}, true};
  }
  ToolResult r;
  if (full_argument(args)) {
    r.texts.push_back(std::move(document));
  } else {
    TrimmedDocument t = trim_document(document, tool.fields, kMaxResultBytes);
    r.texts.push_back(std::move(t.json));
    if (!t.what_was_cut.empty()) r.texts.push_back(std::move(t.what_was_cut));
  }
  r.texts.insert(r.texts.end(), notes.begin(), notes.end());
  return r;
}

}  // namespace whyslow::cli
