// `whyslow info`: what the trace holds, events per track and devices; no analysis.
#include <fmt/core.h>

#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "pipeline/pipeline.hpp"
#include "trace/trace_set.hpp"
#include "report/json/json_report.hpp"
#include "report/format.hpp"
#include "report/text/text_table.hpp"
#include "common/terminal_text.hpp"

namespace whyslow::cli {

Command add_info_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand("info", "what the trace holds: events, tracks, devices");
  cmd->footer("Example:\n  whyslow info trace.json.gz");
  add_trace_input(cmd, *o);
  cmd->add_flag("--json", o->json, "print JSON (docs/JSON.md, \"whyslow info --json\") instead of text");
  return {cmd, [o] {
            const std::string path = one_trace_path(o->path);
            const Trace trace = load_with_notes(path, load_options_for(*o, path));
            if (o->json) {
              const std::string out = render_info_json(trace);
              std::fwrite(out.data(), 1, out.size(), stdout);
              return 0;
            }
            // Names come from the trace: printable() keeps their control characters off the terminal.
            const auto count_of = [](size_t n, const char* one, const char* many) {
              return fmt::format("{} {}", n, n == 1 ? one : many);
            };
            fmt::print("{}: {} on {}, {}, {} bytes of JSON\n", printable(trace.path),
                       count_of(trace.size(), "event", "events"), count_of(trace.tracks.size(), "track", "tracks"),
                       count_of(trace.devices.size(), "device", "devices"), trace.input_bytes);
            if (trace.repaired_op_links > 0)
              fmt::print("  {} kernels/copies relinked: the op their External id names does not enclose the "
                         "launch\n", trace.repaired_op_links);
            // Columns as wide as their widest cell: a pid such as "Spans" or a tid such as "PyTorch
            // Profiler" no longer pushes the rows after it out of line.
            report::TextTable tracks({{"lane", report::Align::Left}, {"pid", report::Align::Left},
                                      {"tid", report::Align::Left}, {"events", report::Align::Right},
                                      {"name", report::Align::Left}});
            for (const Track& t : trace.tracks)
              tracks.add_row({std::string(to_string(t.kind)), printable(t.pid), printable(t.tid),
                              report::format_count(t.events.size()), printable(t.name)});
            fmt::print("{}", tracks.render(0));
            return 0;
          }};
}

}  // namespace whyslow::cli
