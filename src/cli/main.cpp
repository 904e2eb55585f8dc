// whyslow: explains GPU profiler traces. Each subcommand runs load → analyze → explain → render.
#include "cli/run_whyslow.hpp"

int main(int argc, char** argv) { return whyslow::cli::run_whyslow(argc, argv); }
