// whyslow: explains GPU profiler traces. Subcommands map one-to-one onto the pipeline's outputs.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

int main(int argc, char** argv) {
  CLI::App app{"whyslow: reads a torch.profiler / Kineto trace and says why the program is slow"};
  app.require_subcommand(1);
  std::string path;
  whyslow::LoadOptions load;

  auto* info = app.add_subcommand("info", "What the trace holds: events, tracks, devices");
  info->add_option("trace", path, "trace file (.json or .json.gz)")->required();
  info->add_flag("--allow-truncated", load.allow_truncated,
                 "analyze the complete events of a truncated trace");

  CLI11_PARSE(app, argc, argv);
  try {
    const whyslow::Trace t = whyslow::load_trace(path, load);
    fmt::print("{}: {} events, {} tracks, {} devices, {} bytes\n", t.path, t.size(), t.tracks.size(),
               t.devices.size(), t.input_bytes);
  } catch (const whyslow::LoadError& e) {
    fmt::print(stderr, "whyslow: error: {}\n", e.what());
    return 2;
  }
  return 0;
}
