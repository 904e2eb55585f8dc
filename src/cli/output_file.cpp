// Writing the subcommands' output files: whole or not at all, never over one of the inputs
// (output/output_file.hpp). The note goes to stderr, so `-o /dev/stdout` carries only the file.
#include <fmt/core.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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

int finish_stdout(int rc) {
  // stdout is buffered: a write to a full disk or /dev/full fails at the flush, or failed earlier
  // and left the error flag set. Either way the output is cut short.
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return rc;
  // errno says why when the flush failed; a write that failed earlier has left only the flag.
  const int error = errno;
  fmt::print(stderr, "whyslow: error: cannot write the output to stdout: {}\n",
             error ? std::strerror(error) : "a write to it failed");
  return rc == 0 ? 1 : rc;
}

}  // namespace whyslow::cli
