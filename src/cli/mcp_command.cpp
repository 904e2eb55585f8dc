// `whyslow mcp`: the analyses served to a coding agent over the Model Context Protocol, on
// stdin/stdout (mcp_server.hpp). The agent starts it: `claude mcp add whyslow -- whyslow mcp`.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/mcp_server.hpp"

namespace whyslow::cli {

Command add_mcp_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "mcp", "serve explain, diff, what-if, ops, kernels and memory to a coding agent: a Model Context Protocol "
             "server on stdin/stdout (README: whyslow for coding agents)");
  cmd->footer("Example (Claude Code starts it, tools and all):\n  claude mcp add whyslow -- whyslow mcp");
  return {cmd, [] { return serve_mcp(std::cin, std::cout); }};
}

}  // namespace whyslow::cli
