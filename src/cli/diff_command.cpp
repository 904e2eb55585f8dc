// `whyslow diff A B`: did the change pay?
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "pipeline/pipeline.hpp"
#include "report/json/json_report.hpp"

namespace whyslow::cli {

Command add_diff_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto path_b = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("diff", "compare two traces (before/after, eager/torch.compile): did the change pay?");
  cmd->add_option("a", o->path, "trace A (the baseline)")->required();
  cmd->add_option("b", *path_b, "trace B (the change)")->required();
  add_json(cmd, *o);
  add_allow_truncated(cmd, *o);
  add_rows(cmd, *o, "rows per kernel table (0: all)");
  add_text_output(cmd, *o);
  return {cmd, [o, path_b] {
            const AnalyzedPair p = load_and_analyze_pair(*o, *path_b);
            const Diff d = diff_traces(p.a.trace, p.a.facts, p.b.trace, p.b.facts);
            print_output(o->json ? render_diff_json(d) : render_diff_text(d, o->text), o->json, o->terminal);
            return 0;
          }};
}

}  // namespace whyslow::cli
