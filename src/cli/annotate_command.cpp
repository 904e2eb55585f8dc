// `whyslow annotate TRACE -o OUT.json[.gz]`: the trace with a "whyslow findings" track, for Perfetto.
#include <fmt/core.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "pipeline/pipeline.hpp"
#include "report/annotate/annotate_input.hpp"
#include "report/annotate/annotate_trace.hpp"
#include "trace/trace_set.hpp"

namespace whyslow::cli {

Command add_annotate_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto output = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("annotate", "the trace with a \"whyslow findings\" track added, for Perfetto");
  cmd->footer("Example:\n  whyslow annotate trace.json.gz -o annotated.json.gz");
  add_trace_input(cmd, *o);
  cmd->add_option("-o,--output", *output, "the trace to write: .json, or .json.gz to compress it")->required();
  add_peaks(cmd, *o);
  return {cmd, [o, output] {
            // annotate reads its input twice (analysis, then the byte copy): a pipe is copied once first.
            const RereadableInput input(one_trace_path(o->path));
            Trace trace = input.load(o->load);
            print_load_notes(trace);
            const Analyzed x = analyze_loaded(std::move(trace), *o);
            write_annotated_trace(input, *output, x.trace, x.facts, x.findings);
            fmt::print(stderr, "whyslow: wrote {} with a \"whyslow findings\" track ({} findings)\n", *output,
                       x.findings.size());
            return 0;
          }};
}

}  // namespace whyslow::cli
