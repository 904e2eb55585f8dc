// The CI gate of `whyslow diff A B --fail-if-slower PCT`: a job fails only on what the verdict has
// shown, never on a difference of medians alone, so a noisy runner does not fail a good change.
#include <fmt/core.h>

#include <algorithm>
#include <array>
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
  const double slower_pct =
      per_unit ? 100.0 * static_cast<double>(u.b_ns - u.a_ns) / static_cast<double>(u.a_ns) : v.delta_pct;
  const std::string& faster = per_unit ? u.faster : v.faster;
  const std::string per = per_unit ? " per " + u.unit : "";
  if (!v.comparable)
    return {false, slower_pct, "not judged: the traces are not comparable (no verdict), so the gate does not fail"};
  if (faster == "b")
    return {false, slower_pct, fmt::format("B is {:.1f} % faster than A{} (confidence {})", -slower_pct, per, v.confidence)};
  if (faster != "a")
    return {false, slower_pct, fmt::format("A and B are not shown to differ (B − A {:+.1f} %{}, basis {})", slower_pct, per, v.basis)};
  if (!sure_enough(v.confidence))
    return {false, slower_pct,
            fmt::format("B is {:.1f} % slower than A{} (confidence {}, under the medium the gate needs)", slower_pct,
                        per, v.confidence)};
  const bool fails = slower_pct > max_slower_pct;
  return {fails, slower_pct,
          fmt::format("B is {:.1f} % slower than A{} (confidence {}), {} the allowed {} %", slower_pct, per,
                      v.confidence, fails ? "over" : "within", max_slower_pct)};
}

}  // namespace whyslow
