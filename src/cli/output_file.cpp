// Writing the subcommands' output files.
#include <fmt/core.h>

#include <cstdio>

#include "cli/commands.hpp"

namespace whyslow::cli {

// Exit code 1 (bad usage) when the path cannot be written.
int write_output_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    fmt::print(stderr, "whyslow: error: cannot write {}: check that its folder exists and is writable\n", path);
    return 1;
  }
  fmt::print("whyslow: wrote {} ({:.1f} MB)\n", path, static_cast<double>(text.size()) / 1e6);
  return 0;
}

}  // namespace whyslow::cli
