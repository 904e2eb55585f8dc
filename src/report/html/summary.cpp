#include "report/html/summary.hpp"

#include <algorithm>
#include <array>

#include "analysis/steps/steady_steps.hpp"
#include "report/format.hpp"
#include "report/gpu_words.hpp"
#include "report/html/event_class.hpp"
#include "report/html/page_schema.hpp"
#include "report/json/schema.hpp"
#include "report/memory_words.hpp"

namespace whyslow::report {
namespace {

// Bars per chart: the top of each table; the rest is one "everything else" number.
constexpr size_t kChartBars = 15;
// Kernel names in the chart are shortened like the text tables do; the full name is the tooltip.
constexpr size_t kChartNameWidth = 48;

void write_meta(CompactJson& w, const Trace& t, const Facts& f, const Selection& s) {
  w.key("meta").begin_object();
  w.key("version").string(kWhyslowVersion);
  w.key("path").string(t.path);
  w.key("device").string(t.devices.empty() ? std::string() : t.devices.front().name);
  w.key("events").integer(static_cast<int64_t>(t.size()));
  w.key("drawable").integer(static_cast<int64_t>(s.drawable));
  w.key("embedded").integer(static_cast<int64_t>(s.embedded_count));
  w.key("complete").boolean(s.complete);
  w.key("truncated").boolean(t.truncated);
  w.key("window_ns").integer(f.window.duration_ns);
  // Absolute µs as text: trace clocks exceed what a JavaScript number holds to the nanosecond.
  w.key("window_start_us").string(format_us_exact(f.window.start_ns));
  w.key("gpu").string(gpu_summary(f));  // the header's words: no "GPU busy 0 ns" without GPU records
  w.end_object();
}

void write_steps(CompactJson& w, const Facts& f) {
  const int64_t t0 = f.window.start_ns;
  using page_schema::at;
  using page_schema::StepField;
  w.key("steps").begin_array();  // StepField tuples: the name, then the numbers
  for (const StepFacts& s : f.steps) {
    std::array<int64_t, at(StepField::Count)> v{};
    v[at(StepField::Start)] = s.start_ns - t0;
    v[at(StepField::Duration)] = s.duration_ns;
    v[at(StepField::Cpu)] = s.cpu_ns;
    v[at(StepField::SyncWait)] = s.sync_wait_ns;
    v[at(StepField::GpuBusy)] = s.gpu_busy_ns;
    v[at(StepField::Kernels)] = static_cast<int64_t>(s.kernels);
    v[at(StepField::Launches)] = static_cast<int64_t>(s.launches);
    w.begin_array().string(s.name);
    for (size_t i = at(StepField::Name) + 1; i < v.size(); ++i) w.integer(v[i]);
    w.end_array();
  }
  w.end_array();
  w.key("cold_step").integer(f.cold_start.step_index);
}

// The step thread's CPU time by category: {category, per_step_ns (median over the steady steps),
// total_ns} for each category with time, largest per step first.
void write_cpu_time(CompactJson& w, const Facts& f) {
  const auto steps = steady_steps(f);
  std::vector<std::pair<int64_t, size_t>> rows;
  for (size_t c = 0; c < kCpuCategories; ++c)
    if (f.window.cpu_breakdown[c] > 0) rows.emplace_back(median_of(steps, static_cast<CpuCategory>(c)), c);
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  w.key("cpu_time").begin_array();
  for (const auto& [per_step, c] : rows) {
    w.begin_object();
    w.key("category").string(to_string(static_cast<CpuCategory>(c)));
    w.key("per_step_ns").integer(per_step);
    w.key("total_ns").integer(f.window.cpu_breakdown[c]);
    w.end_object();
  }
  w.end_array();
}

void write_kernels(CompactJson& w, const Trace& t, const Facts& f) {
  int64_t rest = 0;
  w.key("kernels").begin_object();
  w.key("top").begin_array();  // [full name, short name, total, calls]
  for (size_t i = 0; i < f.kernels.size(); ++i) {
    const KernelRow& k = f.kernels[i];
    if (i >= kChartBars) {
      rest += k.total_ns;
      continue;
    }
    const std::string_view name = t.names.view(k.name);
    w.begin_array().string(name).string(shorten(name, kChartNameWidth)).integer(k.total_ns);
    w.integer(static_cast<int64_t>(k.calls)).end_array();
  }
  w.end_array();
  w.key("rest_ns").integer(rest);
  w.key("rest_count").integer(f.kernels.size() > kChartBars ? static_cast<int64_t>(f.kernels.size() - kChartBars) : 0);
  w.end_object();
}

void write_annotations(CompactJson& w, const Facts& f) {
  w.key("annotations").begin_array();  // [name, cpu total, gpu, calls, kernels]
  for (size_t i = 0; i < f.annotations.size() && i < kChartBars; ++i) {
    const AnnotationRow& a = f.annotations[i];
    w.begin_array().string(shorten(a.name, kChartNameWidth)).integer(a.cpu_total_ns).integer(a.gpu_ns);
    w.integer(static_cast<int64_t>(a.calls)).integer(static_cast<int64_t>(a.kernels)).end_array();
  }
  w.end_array();
}

// Steps split into iterations (loops.cpp): [step name, iterations, first ns, median ns, GPU busy
// median ns, first tokens, tokens per iteration, loop start and end from the window start].
void write_loops(CompactJson& w, const Facts& f) {
  w.key("loops").begin_array();
  for (const LoopFacts& l : f.loops) {
    w.begin_array().string(loop_scope(f.steps, l)).integer(static_cast<int64_t>(l.iteration_count));
    w.integer(l.iterations.front().duration_ns).integer(l.median_ns).integer(l.gpu_median_ns);
    w.integer(l.first_tokens).integer(l.tokens_per_iteration);
    w.integer(l.iterations.front().start_ns - f.window.start_ns).integer(l.end_ns - f.window.start_ns);
    w.end_array();
  }
  w.end_array();
}

// The main allocator's totals over time (profile_memory=True), from the window's start: null
// without records; else {device, points: [[ns, allocated, reserved]…], peak: [ns, allocated, op
// start, op end] (the largest step peak and the op that made its largest live allocation)}.
void write_memory(CompactJson& w, const Trace& t, const Facts& f) {
  w.key("memory");
  const DeviceMemory* d = main_memory_device(f);
  if (!d || d->curve.empty()) {
    w.null();
    return;
  }
  const int64_t t0 = f.window.start_ns;
  w.begin_object();
  w.key("device").string(memory_device_name(*d));
  w.key("points").begin_array();
  for (const auto& [ns, allocated, reserved] : d->curve)
    w.begin_array().integer(ns - t0).integer(allocated).integer(reserved).end_array();
  w.end_array();
  const EventId op = d->live_at_peak.empty() ? kNoEvent : d->live_at_peak.front().op;
  w.key("peak").begin_array().integer(d->live_peak_at_ns - t0).integer(d->live_peak_allocated);
  w.integer(op == kNoEvent ? -1 : t.start_ns[op] - t0).integer(op == kNoEvent ? -1 : t.end_ns(op) - t0).end_array();
  w.end_object();
}

}  // namespace

void write_summary(CompactJson& w, const Trace& t, const Facts& f, const Selection& s) {
  write_meta(w, t, f, s);
  w.key("windows").begin_array();
  for (const TimeWindow& x : s.windows)
    w.begin_array().integer(x.start_ns - f.window.start_ns).integer(x.end_ns - f.window.start_ns).end_array();
  w.end_array();
  w.key("classes").begin_array();  // index = DrawClass
  for (int c = 0; c < kDrawClassCount; ++c) {
    const auto cls = static_cast<DrawClass>(c);
    w.begin_array().string(draw_class_key(cls)).string(draw_class_label(cls)).end_array();
  }
  w.end_array();
  write_steps(w, f);
  write_cpu_time(w, f);
  write_kernels(w, t, f);
  write_annotations(w, f);
  write_loops(w, f);
  write_memory(w, t, f);
}

}  // namespace whyslow::report
