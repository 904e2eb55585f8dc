// `whyslow info`: what the trace holds, events per track and devices; no analysis.
#include <fmt/core.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/pipeline.hpp"

namespace whyslow::cli {

Command add_info_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand("info", "what the trace holds: events, tracks, devices");
  add_trace_input(cmd, *o);
  return {cmd, [o] {
            const Trace trace = load_with_notes(o->path, o->load);
            fmt::print("{}: {} events on {} tracks, {} devices, {} bytes of JSON\n", trace.path, trace.size(),
                       trace.tracks.size(), trace.devices.size(), trace.input_bytes);
            for (const Track& t : trace.tracks)
              fmt::print("  {:<5} pid {:<8} tid {:<12} {:>9} events  {}\n", to_string(t.kind), t.pid, t.tid,
                         t.events.size(), t.name);
            return 0;
          }};
}

}  // namespace whyslow::cli
