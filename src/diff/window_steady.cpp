// The two questions a change raises, both answered: over what was profiled (window against
// window, the one-off costs of each side included) and once warm (steady step against steady
// step), and between them the break-even — how many steps the side that is faster once warm
// needs to pay back the extra one-off costs it paid.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>

#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// One-off costs are worth a sentence of the verdict when they take a tenth of a side's window:
// then "over what was profiled" and "once warm" can differ by more than the run-to-run noise.
constexpr double kOneOffWorthSaying = 0.10;
// How many one-off parts the sentence names.
constexpr size_t kOneOffPartsSaid = 3;


}  // namespace

void judge_side_by_side(SideBySide& s, int64_t a_ns, int64_t b_ns) {
  s.a_ns = a_ns;
  s.b_ns = b_ns;
  const int64_t lo = std::min(a_ns, b_ns), hi = std::max(a_ns, b_ns);
  s.ratio = lo > 0 ? static_cast<double>(hi) / static_cast<double>(lo) : 0;
  const bool same = std::llabs(b_ns - a_ns) < kMinChangeShare * static_cast<double>(a_ns) || a_ns == b_ns;
  s.faster = same ? "same" : b_ns < a_ns ? "b" : "a";
}

std::string ratio_words(double r) { return r < 10 ? fmt::format("{:.1f}×", r) : fmt::format("{:.0f}×", r); }

void compare_window_and_steady(Diff& d) {
  Verdict& v = d.verdict;
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  judge_side_by_side(v.window, a.one_off.window_ns, b.one_off.window_ns);
  v.window.a_steps = a.one_off.window_steps;
  v.window.b_steps = b.one_off.window_steps;
  judge_side_by_side(v.steady, a.steady_ns, b.steady_ns);
  v.steady.a_basis = a.steady_basis;
  v.steady.b_basis = b.steady_basis;
  if (a.steady_basis == "never_warm" || b.steady_basis == "never_warm") {
    v.steady.faster.clear();  // a side never warm: once warm cannot be told
    v.steady.ratio = 0;
    return;
  }
  // Where both steady steps are measured warm steps, the step verdict (decide_faster, which judges
  // their spread, not only their medians) says which is faster once warm.
  if (a.steady_basis == "warm_steps" && b.steady_basis == "warm_steps" && !v.faster.empty()) v.steady.faster = v.faster;

  BreakEven& be = v.break_even;
  if (a.one_off.ns == 0 && b.one_off.ns == 0) return;
  // Sides recorded with different profiler options differ by the recording too (with_stack alone
  // made one eager generate() 10 % slower per request): no saving between them pays anything back.
  if (!v.caveats.empty()) return;
  if (v.steady.faster == "same" || v.steady.faster.empty()) {
    be.status = "never";
    be.basis = fmt::format("once warm neither side is shown faster per step ({} and {}): no saving pays back "
                           "one-off costs",
                           human_duration(a.steady_ns), human_duration(b.steady_ns));
    return;
  }
  const bool b_warm_faster = v.steady.faster == "b";
  const StepProfile& fast = b_warm_faster ? b : a;
  const StepProfile& slow = b_warm_faster ? a : b;
  const char* fast_name = b_warm_faster ? "B" : "A";
  const int64_t extra = fast.one_off.ns - slow.one_off.ns;
  const int64_t saving = slow.steady_ns - fast.steady_ns;
  if (extra <= 0) {
    be.status = "at_once";
    be.basis = fmt::format("{} is faster once warm ({} less per step) and pays no more one-off costs ({} against {})",
                           fast_name, human_duration(saving), human_duration(fast.one_off.ns),
                           human_duration(slow.one_off.ns));
    return;
  }
  be.status = "after";
  be.calls = std::ceil(static_cast<double>(extra) / static_cast<double>(saving));
  be.basis = fmt::format("{}'s extra one-off costs ({}) ÷ its saving once warm ({} per step: {} against {})", fast_name,
                         human_duration(extra), human_duration(saving), human_duration(fast.steady_ns),
                         human_duration(slow.steady_ns));
}

std::string window_and_steady_words(const Diff& d) {
  const Verdict& v = d.verdict;
  const StepProfile& a = d.a;
  const StepProfile& b = d.b;
  const bool big_one_off =
      static_cast<double>(a.one_off.ns) >= kOneOffWorthSaying * static_cast<double>(a.one_off.window_ns) ||
      static_cast<double>(b.one_off.ns) >= kOneOffWorthSaying * static_cast<double>(b.one_off.window_ns);
  // Without one-off costs worth a sentence the window is the steps themselves: the step verdict,
  // which judges their spread, says all there is.
  if (v.window.faster.empty() || !big_one_off) return "";
  auto steps = [](size_t n) { return n == 0 ? std::string("its whole trace") : fmt::format("{} step{}", n, n == 1 ? "" : "s"); };
  auto slower = [](const SideBySide& s) {
    // "same" within 2 % is the same time; beyond, the step verdict found the difference within the
    // steps' spread: not shown, which is not the same.
    const bool within_floor = std::llabs(s.b_ns - s.a_ns) < kMinChangeShare * static_cast<double>(s.a_ns);
    if (s.faster == "same") return std::string(within_floor ? "they take the same time" : "they are not shown to differ");
    return fmt::format("{} is {} slower", s.faster == "a" ? "B" : "A", ratio_words(s.ratio));
  };
  std::string out = fmt::format("Over what was profiled ({} of A, {} of B) {} (A {}, B {})", steps(v.window.a_steps),
                                steps(v.window.b_steps), slower(v.window), human_duration(a.one_off.window_ns),
                                human_duration(b.one_off.window_ns));
  for (const auto& [name, p] : {std::pair{"A", &a}, std::pair{"B", &b}})
    if (static_cast<double>(p->one_off.ns) >= kOneOffWorthSaying * static_cast<double>(p->one_off.window_ns))
      out += fmt::format("; {}'s one-off costs are {} ({})", name, human_duration(p->one_off.ns),
                         one_off_words(p->one_off.parts, kOneOffPartsSaid));
  if (v.steady.faster.empty()) {
    const char* never = a.steady_basis == "never_warm" ? "A" : "B";
    return out + fmt::format(". Once warm cannot be told: {} compiles in every step it has, so it never runs warm here.", never);
  }
  const bool agree = v.window.faster == v.steady.faster;
  out += fmt::format(". Once warm{} {}{} (A {}, B {} per step", agree ? "" : ", though,", slower(v.steady),
                     agree && v.steady.faster != "same" ? " too" : "", human_duration(a.steady_ns), human_duration(b.steady_ns));
  if (a.steady_basis != "warm_steps" || b.steady_basis != "warm_steps")
    out += "; a side with no warm step counts its steps less their one-off costs";
  out += ")";
  if (agree) return out + ".";  // the side faster once warm also won the window: nothing to pay back
  if (v.break_even.status == "after")
    out += fmt::format(", so {} pays for its one-off costs after {:.0f} steps", v.steady.faster == "b" ? "B" : "A",
                       v.break_even.calls);
  else if (v.break_even.status == "never" && v.steady.faster != "same")
    out += fmt::format(", so {}'s one-off costs never pay", v.steady.faster == "b" ? "A" : "B");
  return out + ".";
}

}  // namespace whyslow
