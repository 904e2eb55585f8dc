// `whyslow report TRACE [-o page.html]`, and with a second trace the comparison page.
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "pipeline/pipeline.hpp"
#include "report/html/report.hpp"

namespace whyslow::cli {
namespace {

// "runs/t.json.gz" → "runs/t": the trace's name without the endings torch gives it.
std::filesystem::path without_trace_suffix(const std::string& trace) {
  std::filesystem::path p(trace);
  for (const char* suffix : {".gz", ".json"})
    if (p.extension() == suffix) p.replace_extension();
  return p;
}

// Where the page goes without -o: beside the trace, "t.json.gz" → "t.html"; the comparison page
// beside A, "a.json" and "b.json" → "a-vs-b.html".
std::string default_page_path(const std::string& a, const std::string& b) {
  std::filesystem::path page = without_trace_suffix(a);
  if (!b.empty()) page += "-vs-" + without_trace_suffix(b).filename().string();
  page += ".html";
  return page.string();
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto output = std::make_shared<std::string>();
  auto path_b = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("report", "a self-contained HTML page: the findings drawn on the CPU and GPU lanes, charts");
  add_trace_input(cmd, *o);
  cmd->add_option("-o,--output", *output, "the HTML file to write (default: beside the trace, t.json.gz → t.html; "
                                          "two traces: a-vs-b.html beside A)");
  add_peaks(cmd, *o);
  cmd->add_option("b", *path_b, "a second trace: the comparison page (A the baseline, B the change)");
  return {cmd, [o, output, path_b] {
            if (output->empty()) *output = default_page_path(o->path, *path_b);
            if (path_b->empty()) {
              const Analyzed x = load_and_analyze(*o);
              const int written = write_output_file(*output, render_html(x.trace, x.facts, x.findings), {o->path});
              // The page says the profiler recorded nothing; the exit code says it to a script, as explain's.
              if (written == 0 && x.facts.recording.what == Recorded::Nothing) return kExitNothingRecorded;
              return written;
            }
            const AnalyzedPair p = load_and_analyze_pair(*o, *path_b);
            const Diff d = diff_traces(p.a.trace, p.a.facts, p.b.trace, p.b.facts);
            return write_output_file(*output, render_html_diff(p.a.trace, p.a.facts, p.a.findings, p.b.trace,
                                                               p.b.facts, p.b.findings, d),
                                     {o->path, *path_b});
          }};
}

}  // namespace whyslow::cli
