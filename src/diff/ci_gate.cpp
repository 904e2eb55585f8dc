// The CI gate of `whyslow diff A B --fail-if-slower PCT`: a job fails only on what the verdict has
// shown, never on a difference of medians alone, so a noisy runner does not fail a good change.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "diff/diff.hpp"

namespace whyslow {
namespace {

// The verdicts sure enough to fail a job on (docs/DIFF.md, "CI gate"). "medium" is the most three
// steps a side can reach (every B step longer than the same A step, or every one longer than every
// A step); "low" is a side with a single step, whose sign any noise can flip.
constexpr std::array<std::string_view, 2> kFailingConfidences = {"medium", "high"};

bool sure_enough(const std::string& confidence) {
  return std::find(kFailingConfidences.begin(), kFailingConfidences.end(), confidence) != kFailingConfidences.end();
}

}  // namespace

GateResult ci_gate(const Diff& d, double max_slower_pct) {
  const Verdict& v = d.verdict;
  // B's change against A, in %: the median steady step's change, or per unit of work where the
  // steps do different amounts of it (batch 1 against 256: per sample is what the change did).
  const PerUnit& u = v.per_unit;
  const bool per_unit = !u.unit.empty() && u.a_ns > 0;
  const std::optional<double> slower_pct =
      per_unit ? std::optional(100.0 * static_cast<double>(u.b_ns - u.a_ns) / static_cast<double>(u.a_ns)) : v.delta_pct;
  const std::string& faster = per_unit ? u.faster : v.faster;
  const std::string per = per_unit ? " per " + u.unit : "";
  // "12.3 % " before "slower"; against A's median of 0 no percentage, and the words say why.
  const std::string how_much = slower_pct ? fmt::format("{:.1f} % ", std::abs(*slower_pct)) : "";
  const std::string no_pct = slower_pct ? "" : " (no percentage: A's median step is 0)";
  if (!v.comparable)
    return {false, slower_pct, "not judged: the traces are not comparable (no verdict), so the gate does not fail"};
  if (faster == "b")
    return {false, slower_pct, fmt::format("B is {}faster than A{}{} (confidence {})", how_much, per, no_pct, v.confidence)};
  if (faster != "a")
    return {false, slower_pct,
            fmt::format("A and B are not shown to differ (B − A {}{}, basis {})",
                        slower_pct ? fmt::format("{:+.1f} %", *slower_pct) : "no percentage: A's median step is 0", per,
                        v.basis)};
  if (!sure_enough(v.confidence))
    return {false, slower_pct,
            fmt::format("B is {}slower than A{}{} (confidence {}, under the medium the gate needs)", how_much, per,
                        no_pct, v.confidence)};
  // Slower than a median of 0 is beyond any allowed percentage.
  const bool fails = !slower_pct || *slower_pct > max_slower_pct;
  return {fails, slower_pct,
          fmt::format("B is {}slower than A{}{} (confidence {}), {} the allowed {} %", how_much, per, no_pct,
                      v.confidence, fails ? "over" : "within", max_slower_pct)};
}

}  // namespace whyslow
