#include "report/diff_words.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>

#include "common/units.hpp"
#include "report/format.hpp"

namespace whyslow::report {

std::string count_text(int64_t n) { return format_count(static_cast<uint64_t>(n)); }
std::string signed_time(int64_t ns) { return ns == 0 ? "0" : fmt::format("{}{}", ns > 0 ? "+" : "", human_duration(ns)); }
std::string signed_count(int64_t n) { return n == 0 ? "0" : fmt::format("{:+}", n); }

std::string verdict_headline(const Verdict& v) {
  if (v.comparable && v.same_job)
    return fmt::format("two ranks of one job{}", v.faster == "same" ? "" : v.faster == "b" ? " (B's step is shorter)" : " (A's step is shorter)");
  if (v.comparable && v.faster == "same")
    return v.basis == "within_spread" ? fmt::format("not shown to differ (p = {:.3f})", v.test.p_value)
           : v.basis == "same_work"   ? "not shown to differ (the same work; the machine varied)"
           : v.basis == "recording"   ? "not shown to differ (recorded with different profiler options)"
                                      : "no measurable difference";
  if (v.comparable) return fmt::format("{} is faster (confidence {})", v.faster == "b" ? "B" : "A", v.confidence);
  return "none (the traces are not comparable)";
}

std::vector<TwoAnswersRow> two_answers_rows(const Diff& d) {
  const Verdict& v = d.verdict;
  if (!v.comparable || v.window.faster.empty()) return {};
  auto window = [](const StepProfile& p) {
    return p.one_off.window_steps == 0 ? human_duration(p.one_off.window_ns)
                                       : fmt::format("{} ({} step{})", human_duration(p.one_off.window_ns), p.one_off.window_steps,
                                                     p.one_off.window_steps == 1 ? "" : "s");
  };
  auto steady = [](const StepProfile& p) {
    return p.steady_basis == "never_warm" ? std::string("never warm") : human_duration(p.steady_ns);
  };
  std::vector<TwoAnswersRow> out = {{"over what was profiled", window(d.a), window(d.b)},
                                    {"  of it one-off costs", human_duration(d.a.one_off.ns), human_duration(d.b.one_off.ns)},
                                    {"once warm, per step", steady(d.a), steady(d.b)}};
  if (!v.per_unit.unit.empty())
    out.push_back({fmt::format("once warm, per {}", v.per_unit.unit), human_duration(v.per_unit.a_ns), human_duration(v.per_unit.b_ns)});
  return out;
}

std::string break_even_words(const Verdict& v) {
  const BreakEven& b = v.break_even;
  if (b.status == "after") return fmt::format("break-even after {:.0f} steps: {}", b.calls, b.basis);
  if (b.status == "at_once") return "break-even at once: " + b.basis;
  if (b.status == "never") return "break-even never: " + b.basis;
  return "";
}

std::string gate_line(const DiffGate& gate) {
  return fmt::format("CI gate: {}: exit {}", gate.result.reason, gate.exit_status);
}

bool shows_component(const Diff& d, std::string_view key) {
  static constexpr std::string_view kGpuRows[] = {"sync_wait_us", "gpu_busy_us", "gpu_idle_us", "kernels",
                                                   "launches",     "memcpys",     "memsets"};
  const bool gpu_row = std::find(std::begin(kGpuRows), std::end(kGpuRows), key) != std::end(kGpuRows);
  return !gpu_row || !cpu_only(d.a) || !cpu_only(d.b);
}

}  // namespace whyslow::report
