// A first argument that names no subcommand: CLI11 would say "A subcommand is required"; whyslow
// says which word it did not know and the subcommand it is closest to.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace whyslow::cli {

// "unknown subcommand 'explian', did you mean 'explain'?" (or the list of subcommands when none
// is close); nothing when argv[1] is an option or names a subcommand, or there is no argv[1].
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, const char* const* argv);

}  // namespace whyslow::cli
