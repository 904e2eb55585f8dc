#include "report/diff_words.hpp"

#include <fmt/core.h>

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

std::string gate_line(const DiffGate& gate) {
  return fmt::format("CI gate: {}: exit {}", gate.result.reason, gate.exit_status);
}

}  // namespace whyslow::report
