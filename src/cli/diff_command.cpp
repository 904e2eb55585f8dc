// `whyslow diff A B`: did the change pay? With --fail-if-slower, a CI gate (exit 4 when B is shown
// slower); with --summary-md, the verdict as Markdown for the job's summary page.
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "pipeline/pipeline.hpp"
#include "report/json/json_report.hpp"
#include "report/markdown/diff_markdown.hpp"

namespace whyslow::cli {
namespace {

struct DiffOptions {
  std::optional<double> max_slower_pct;  // --fail-if-slower
  std::string summary_md;                // --summary-md, "" without it
};

// A percentage the gate can hold B to: a finite number, 0 or more, in decimal ("5", "2.5"). CLI11
// alone would take "-5" (a gate every unchanged trace fails), "nan" (one nothing fails) and "inf".
CLI::Validator percentage() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double pct = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pct);
        if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(pct) && pct >= 0) return {};
        return "must be a percentage of 0 or more, as a number (5 or 2.5), not '" + text + "'";
      },
      "PCT");
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto path_b = std::make_shared<std::string>();
  auto d_opts = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand("diff", "compare two traces (before/after, eager/torch.compile): did the change pay?");
  cmd->footer("Example:\n  whyslow diff a.json.gz b.json.gz --fail-if-slower 5");
  cmd->add_option("a", o->path, "trace A (the baseline)")->required();
  cmd->add_option("b", *path_b, "trace B (the change)")->required();
  add_json(cmd, *o);
  add_allow_truncated(cmd, *o);
  add_rows(cmd, *o, "rows per kernel table (0: all)");
  add_text_output(cmd, *o);
  cmd->add_option_function<double>("--fail-if-slower", [d_opts](double pct) { d_opts->max_slower_pct = pct; },
                                   "exit with status 4 when B is slower than A by more than PCT % with at least medium "
                                   "confidence (a CI gate; docs/DIFF.md)")
      ->check(percentage());
  cmd->add_option("--summary-md", d_opts->summary_md,
                  "also write the verdict as Markdown to FILE (a CI job summary: $GITHUB_STEP_SUMMARY), whole or not at all")
      ->check(CLI::Validator([](std::string& path) { return path.empty() ? std::string("must name a file") : std::string(); },
                             "FILE"));
  return {cmd, [o, path_b, d_opts] {
            const AnalyzedPair p = load_and_analyze_pair(*o, *path_b);
            const Diff d = diff_traces(p.a.trace, p.a.facts, p.b.trace, p.b.facts);
            std::optional<report::DiffGate> gate;
            if (d_opts->max_slower_pct) {
              const GateResult result = ci_gate(d, *d_opts->max_slower_pct);
              gate = report::DiffGate{*d_opts->max_slower_pct, result, result.fails ? kExitGateFails : 0};
            }
            const report::DiffGate* g = gate ? &*gate : nullptr;
            print_output(o->json ? render_diff_json(d, g) : render_diff_text(d, o->text, g), o->json, o->terminal);
            // An unwritten summary is an output error (1), as an unwritten report is, whatever the gate
            // said: a job that passes has its summary page.
            if (!d_opts->summary_md.empty() &&
                write_output_file(d_opts->summary_md, render_diff_markdown(d, g), {o->path, *path_b}) != 0)
              return 1;
            return gate ? gate->exit_status : 0;
          }};
}

}  // namespace whyslow::cli
