// `whyslow ops` and `whyslow kernels`: one table each, as text or as the JSON report.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "pipeline/pipeline.hpp"
#include "report/json/json_report.hpp"
#include "trace/trace_set.hpp"

namespace whyslow::cli {
namespace {

using TextTable = std::string (*)(const Analyzed&, const TextOptions&);

Command add_table_command(CLI::App& app, const char* name, const char* what, const char* example, TextTable table) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(name, what);
  cmd->footer(example);
  add_trace_input(cmd, *o);
  add_rows(cmd, *o);
  add_json(cmd, *o);
  add_text_output(cmd, *o);
  add_peaks(cmd, *o);
  add_step(cmd, *o);
  return {cmd, [o, table] {
            const Analyzed x = load_and_analyze(*o);
            print_output(o->json ? render_json(x.trace, x.facts, x.findings) : table(x, o->text), o->json, o->terminal);
            return 0;
          }};
}

}  // namespace

Command add_ops_command(CLI::App& app) {
  return add_table_command(app, "ops", "the op table, with torch's key_averages() semantics",
                           "Example:\n  whyslow ops trace.json.gz --rows 40",
                           [](const Analyzed& x, const TextOptions& t) { return render_ops_text(x.facts, t); });
}

Command add_kernels_command(CLI::App& app) {
  return add_table_command(app, "kernels", "the kernel table: calls, time, launch configuration",
                           "Example:\n  whyslow kernels trace.json.gz --json",
                           [](const Analyzed& x, const TextOptions& t) { return render_kernels_text(x.trace, x.facts, t); });
}

// One trace, or a job's ranks: several files, a folder or a glob (ranks_command.cpp).
Command add_explain_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto traces = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("explain", "findings and the steps, kernels, ops and annotation tables; with "
                                                "several traces (files, a folder, a glob): a job's ranks together");
  cmd->footer("Examples:\n  whyslow explain trace.json.gz --brief\n  whyslow explain log/");
  add_explain_inputs(cmd, *o, *traces);
  cmd->add_flag("--brief", o->text.brief,
                "only each finding's title, the fix replayed and what to try, and the what-if table (one trace; a "
                "job's ranks view is short already)");
  return {cmd, [o, traces] {
            // A folder or a glob of one trace (tensorboard_trace_handler's after one run) is that trace.
            const std::vector<std::string> paths = expand_rank_paths(*traces);
            if (!is_one_trace(paths)) return explain_ranks(*o, paths);
            o->path = paths.front();
            const Analyzed x = load_and_analyze(*o);
            print_output(o->json ? render_json(x.trace, x.facts, x.findings)
                                 : render_explain_text(x.trace, x.facts, x.findings, o->text),
                         o->json, o->terminal);
            return x.facts.recording.what == Recorded::Nothing ? kExitNothingRecorded : 0;
          }};
}

}  // namespace whyslow::cli
