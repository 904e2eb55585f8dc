// The `whyslow` command: its subcommands, their options, and the exit codes (0 success, 1 bad usage,
// 2 the trace could not be read, the message says where; 3 nothing recorded: cli/commands.hpp).
// In the library rather than in main.cpp so that CLI11, ~10 s of compiling per file that includes
// it, is compiled once, with the other subcommands' files (the unity build: CMakeLists.txt).
#pragma once

namespace whyslow::cli {

int run_whyslow(int argc, char** argv);

}  // namespace whyslow::cli
