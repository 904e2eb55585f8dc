#include "report/text/tables.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "common/terminal_text.hpp"
#include "common/units.hpp"
#include "report/format.hpp"
#include "report/text/text_report.hpp"
#include "report/text/text_table.hpp"

namespace whyslow::report {

namespace {

// A zero time shows as "-": nothing happened there, and a column of "0 ns" hides the numbers
// that matter.
std::string duration_cell(int64_t ns) { return ns == 0 ? "-" : human_duration(ns); }

// `gpu`: the trace records the GPU; without its records the GPU columns would read as an idle GPU.
std::vector<std::string> step_cells(const StepFacts& s, bool gpu) {
  std::vector<std::string> cells = {shorten(s.name, kNameWidth), human_duration(s.duration_ns), duration_cell(s.cpu_ns),
                                    duration_cell(s.sync_wait_ns)};
  if (gpu)
    cells.insert(cells.end(), {duration_cell(s.idle.busy_ns), format_percent(s.idle.busy_ns, s.duration_ns),
                               duration_cell(s.gpu_busy_ns), duration_cell(std::max<int64_t>(0, s.gpu_end_ns - s.end_ns)),
                               format_count(s.kernels), format_count(s.launches)});
  return cells;
}

// "64x1x1"; "-" when the trace did not record it.
std::string dim3(const int32_t (&d)[3]) {
  if (d[0] < 0) return "-";
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

std::string known(int32_t v, std::string (*format)(int64_t)) { return v < 0 ? "-" : format(v); }

std::string plain(int64_t v) { return std::to_string(v); }

}  // namespace

std::string steps_table(const Facts& facts, size_t line_width) {
  const bool gpu = facts.recording.what == Recorded::Gpu;
  std::vector<Column> columns = {{"step", Align::Left}, {"duration"}, {"CPU"}, {"sync wait"}};
  if (gpu)
    columns.insert(columns.end(),
                   {{"GPU busy"}, {"GPU busy %"}, {"launched"}, {"runs past end"}, {"kernels"}, {"launches"}});
  TextTable t(columns);
  const std::string no_gpu = gpu ? ""
                             : facts.recording.what == Recorded::GpuNotRecorded
                                 ? " (no GPU columns: the trace holds no record of the GPU's work)"
                                 : " (no GPU columns: no GPU work in the trace)";
  if (facts.steps.empty()) {
    t.add_row(step_cells(facts.window, gpu));
    return table_title("Steps: none (no ProfilerStep#N: call prof.step() once per iteration); the whole trace as one" +
                           no_gpu + ":",
                       line_width) +
           t.render(0);
  }
  for (const StepFacts& s : facts.steps) t.add_row(step_cells(s, gpu));
  t.add_footer(step_cells(facts.window, gpu));
  return table_title(fmt::format("Steps ({}): CPU = the step minus the time blocked waiting for the GPU{}", facts.steps.size(),
                                 gpu ? "; GPU busy = GPU work running inside the step (its % of the step); launched = the "
                                       "GPU time of the work launched in the step, which may run past its end (by `runs "
                                       "past end`)"
                                     : no_gpu),
                     line_width) +
         t.render(0);
}

std::string cpu_time_table(const Trace& trace, const Facts& facts, size_t line_width) {
  std::vector<size_t> shown;  // the categories with time in some step
  for (size_t c = 0; c < kCpuCategories; ++c)
    if (facts.window.cpu_breakdown[c] > 0) shown.push_back(c);
  if (shown.empty()) return "";
  std::vector<Column> columns = {{"step", Align::Left}, {"duration"}};
  for (size_t c : shown) {
    std::string name(to_string(static_cast<CpuCategory>(c)));
    std::replace(name.begin(), name.end(), '_', ' ');
    columns.push_back({name});
  }
  TextTable t(columns);
  auto cells = [&](const StepFacts& s, int64_t duration) {
    std::vector<std::string> row = {shorten(s.name, kNameWidth), human_duration(duration)};
    for (size_t c : shown)
      row.push_back(s.cpu_breakdown[c] == 0 ? "-"
                                            : fmt::format("{} {}", human_duration(s.cpu_breakdown[c]),
                                                          format_percent(s.cpu_breakdown[c], duration)));
    return row;
  };
  int64_t total = 0;
  for (const StepFacts& s : facts.steps) total += s.duration_ns;
  std::string title;
  if (facts.steps.empty()) {
    t.add_row(cells(facts.window, facts.window.duration_ns));
    title = fmt::format("CPU time of the main thread ({}) by category:", facts.window_thread < trace.tracks.size()
                                                                            ? trace.tracks[facts.window_thread].name
                                                                            : "none");
  } else {
    for (const StepFacts& s : facts.steps) t.add_row(cells(s, s.duration_ns));
    StepFacts sum = facts.window;
    sum.name = "all steps";
    t.add_footer(cells(sum, total));
    title = "CPU time of each step's thread by category (every ns in one; docs/JSON.md says which):";
  }
  return table_title(title, line_width) + t.render(0);
}

std::string kernels_table(const Trace& trace, const Facts& facts, size_t max_rows, size_t line_width) {
  if (facts.kernels.empty()) return "Kernels: none in this trace\n";
  TextTable t({{"kernel", Align::Left},
               {"calls"},
               {"total"},
               {"mean"},
               {"min"},
               {"max"},
               {"grid"},
               {"block"},
               {"regs"},
               {"smem"}});
  uint64_t calls = 0;
  int64_t total = 0;
  bool mixed_launches = false;
  for (const KernelRow& k : facts.kernels) {
    calls += k.calls;
    total += k.total_ns;
    // Grid and block are those of the first call; a star marks kernels launched with others too.
    const std::string mark = k.uniform_launch ? "" : "*";
    mixed_launches |= !k.uniform_launch && (max_rows == 0 || t.rows() < max_rows);
    t.add_row({shorten(trace.names.view(k.name), kNameWidth),
               format_count(k.calls),
               human_duration(k.total_ns),
               human_duration(mean_ns(k)),
               human_duration(k.min_ns),
               human_duration(k.max_ns),
               dim3(k.launch.grid) + mark,
               dim3(k.launch.block) + mark,
               known(k.launch.registers, plain),
               known(k.launch.shared_memory, human_bytes)});
  }
  std::string out = table_title(fmt::format("Kernels ({} distinct, {} calls, {} in total), by total time",
                                            format_count(facts.kernels.size()), format_count(calls), human_duration(total)),
                                line_width);
  out += t.render(max_rows);
  if (mixed_launches) out += table_note("* grid/block of the first call; other calls used other launch configurations", line_width);
  return out;
}

std::string ops_table(const Facts& facts, size_t max_rows, size_t line_width) {
  if (facts.ops.empty()) return "Ops: none in this trace\n";
  TextTable t({{"op", Align::Left},
               {"calls"},
               {"self CPU"},
               {"CPU total"},
               {"self device"},
               {"device total"}});
  for (const OpRow& op : facts.ops) {
    // torch lists device-side events under their own name; the suffix keeps the two rows of
    // the same name apart.
    std::string name = shorten(op.name, kNameWidth - (op.device_row ? kDeviceRowSuffix.size() : 0));
    if (op.device_row) name += kDeviceRowSuffix;
    t.add_row({std::move(name),
               format_count(op.calls),
               duration_cell(op.self_cpu_ns),
               duration_cell(op.cpu_total_ns),
               duration_cell(op.self_device_ns),
               duration_cell(op.device_total_ns)});
  }
  return table_title(fmt::format("Ops ({} rows, torch key_averages() semantics), by self time", format_count(t.rows())),
                     line_width) +
         t.render(max_rows);
}

std::string annotations_table(const Facts& facts, size_t max_rows, size_t line_width) {
  if (facts.annotations.empty())
    return table_title("Annotations: none (wrap your code in torch.profiler.record_function(\"name\") to see per-block "
                       "times)",
                       line_width);
  TextTable t({{"block", Align::Left}, {"calls"}, {"CPU total"}, {"GPU time"}, {"kernels"}});
  for (const AnnotationRow& a : facts.annotations)
    t.add_row({shorten(a.name, kNameWidth),
               format_count(a.calls),
               human_duration(a.cpu_total_ns),
               duration_cell(a.gpu_ns),
               format_count(a.kernels)});
  return table_title("Annotations (record_function blocks): GPU time of the work launched inside each block", line_width) +
         t.render(max_rows);
}

}  // namespace whyslow::report

namespace whyslow {

std::string render_ops_text(const Facts& facts, const TextOptions& options) {
  return printable_text(report::ops_table(facts, options.max_rows, options.line_width));
}

std::string render_kernels_text(const Trace& trace, const Facts& facts, const TextOptions& options) {
  return printable_text(report::kernels_table(trace, facts, options.max_rows, options.line_width) + '\n' +
                        report::roofline_table(trace, facts, options.max_rows, options.line_width));
}

}  // namespace whyslow
