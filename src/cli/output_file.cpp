// Writing the subcommands' output files: whole or not at all, never over one of the inputs
// (output/output_file.hpp). The note goes to stderr, so `-o /dev/stdout` carries only the file.
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "output/output_file.hpp"

namespace whyslow::cli {

int write_output_file(const std::string& path, const std::string& text, std::vector<std::string> inputs) {
  try {
    write_file_atomically(path, text, {.inputs = std::move(inputs)});
  } catch (const OutputError& e) {
    fmt::print(stderr, "whyslow: error: {}\n", e.what());
    return 1;
  }
  fmt::print(stderr, "whyslow: wrote {} ({:.1f} MB)\n", path, static_cast<double>(text.size()) / 1e6);
  return 0;
}

}  // namespace whyslow::cli
