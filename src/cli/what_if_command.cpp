// `whyslow what-if TRACE --edit cuda-graphs --edit pin …`: the edits applied to the trace's
// dependency graph together and replayed: the step they predict, its critical path, what changed.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "analysis/graph/edits/edits.hpp"
#include "analysis/graph/what_if.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "common/units.hpp"
#include "pipeline/pipeline.hpp"
#include "report/json/json_report.hpp"

namespace whyslow::cli {

namespace {
std::string edit_help() {
  std::string h = "an edit to replay, NAME or NAME=PARAM (repeat for several together):";
  for (const EditInfo& e : edit_catalog()) {
    h += fmt::format("\n  {}: {}", e.name, e.title);
    if (!e.param.empty()) h += fmt::format(" (PARAM: {})", e.param);
  }
  return h;
}
}  // namespace

WhatIfAnswer what_if_edits(const Analyzed& a, const std::vector<std::string>& edits) {
  std::vector<EditRequest> requests;
  for (const std::string& e : edits) requests.push_back(parse_edit(e));
  try {
    return what_if(a.trace, a.facts, requests);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

Command add_what_if_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto edits = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("what-if", "predict the step after a fix: the trace's dependency graph, edited and replayed");
  cmd->footer("Example:\n  whyslow what-if t.json.gz --edit cuda-graphs --edit pin");
  add_trace_input(cmd, *o);
  cmd->add_option("--edit", *edits, edit_help())->required();
  add_json(cmd, *o);
  return {cmd, [o, edits] {
            const WhatIfAnswer ans = what_if_edits(load_and_analyze(*o), *edits);
            const WhatIf& w = ans.result;
            if (o->json) {
              const std::string out = render_what_if_json(ans);
              std::fwrite(out.data(), 1, out.size(), stdout);
              return finish_stdout(0);
            }
            const double saved = w.step_ns > 0 ? 100.0 * static_cast<double>(w.predicted_step_ns - w.step_ns) / static_cast<double>(w.step_ns) : 0;
            fmt::print("{}: {} → {} ({:+.0f} %)\n", w.scope, human_duration(w.step_ns), human_duration(w.predicted_step_ns), saved);
            for (const std::string& c : ans.changes) fmt::print("  {}\n", c);
            fmt::print("\nWhat sets the pace after it ({}):\n", w.scope);
            for (const PathPart& p : ans.critical_path)
              fmt::print("  {:>10}  {:<8} {}\n", human_duration(p.ns), to_string(p.kind), p.what);
            return finish_stdout(0);
          }};
}

}  // namespace whyslow::cli
