#include "cli/run_whyslow.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/help_formatter.hpp"
#include "cli/subcommand_typo.hpp"
#include "report/json/schema.hpp"
#include "trace/load_error.hpp"

namespace whyslow::cli {

int run_whyslow(int argc, char** argv) {
  // Named, so usage lines say "whyslow explain", not the path the binary was started by.
  CLI::App app{"whyslow: reads a torch.profiler / Kineto trace and says, with numbers, why the program is slow", "whyslow"};
  app.formatter(stdout_help_formatter());  // before the subcommands: each takes a copy
  app.footer("Examples:\n  whyslow explain trace.json.gz\n  whyslow explain trace.json.gz --brief\n"
             "whyslow COMMAND --help: the command's options and an example.");
  app.require_subcommand(1);
  app.set_version_flag("--version", "whyslow " + std::string(whyslow::kWhyslowVersion));
  const std::vector<Command> commands = {add_explain_command(app), add_ops_command(app),    add_kernels_command(app),
                                         add_info_command(app),    add_diff_command(app),   add_report_command(app),
                                         add_annotate_command(app), add_digest_command(app), add_what_if_command(app),
                                         add_mcp_command(app)};
  if (const std::optional<std::string> typo = unknown_subcommand(app, argc, argv)) {
    fmt::print(stderr, "whyslow: error: {}\n", *typo);
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  }
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return finish_stdout(c.run());
    } catch (const whyslow::LoadError& e) {
      fmt::print(stderr, "whyslow: error: {}\n", e.what());
      return 2;
    } catch (const std::runtime_error& e) {  // bad usage, or an output that cannot be written
      fmt::print(stderr, "whyslow: error: {}\n", e.what());
      return 1;
    }
  }
  return 1;
}

}  // namespace whyslow::cli
