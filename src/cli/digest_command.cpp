// `whyslow digest TRACE -o RANK.digest.json`: one rank's trace reduced to what the cross-rank
// analysis needs (docs/DIGEST.md), so each rank can be reduced where it lies and `whyslow explain
// *.digest.json` combines them later.
#include <fmt/core.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/ranks.hpp"
#include "report/digest/digest_file.hpp"
#include "trace/trace_set.hpp"

namespace whyslow::cli {

Command add_digest_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto output = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("digest", "one rank's trace reduced to its digest, for `explain` of many ranks");
  cmd->footer("Example:\n  whyslow digest rank0.json.gz -o rank0.digest.json");
  add_trace_input(cmd, *o);
  cmd->add_option("-o,--output", *output, "the digest to write (JSON); without it, stdout");
  add_peaks(cmd, *o);
  return {cmd, [o, output] {
            const std::string path = one_trace_path(o->path);
            const std::string text = render_digest_json(summarize_rank(path, *o));
            if (output->empty()) {
              fmt::print("{}", text);
              return 0;
            }
            return write_output_file(*output, text, {path});
          }};
}

}  // namespace whyslow::cli
