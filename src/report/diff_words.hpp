// Words of a diff's outcome that its text and Markdown outputs share: the verdict's headline and
// the CI gate's line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.hpp"

namespace whyslow::report {

// `whyslow diff --fail-if-slower PCT`: the gate's outcome (diff/diff.hpp: ci_gate) with what it was
// held to and the exit status it gives, for the outputs that print it.
struct DiffGate {
  double max_slower_pct = 0;
  GateResult result;
  int exit_status = 0;
};

// A diff's numbers per step: counts with separators ("1,024"), changes signed ("+158 µs", "-3", "0").
std::string count_text(int64_t n);
std::string signed_time(int64_t ns);
std::string signed_count(int64_t n);

// "A is faster (confidence medium)", "not shown to differ (p = 0.100)", "none (the traces are not
// comparable)", …: what follows "Verdict: ".
std::string verdict_headline(const Verdict& v);

// The two answers side by side, a row each (label, A, B): over what was profiled, the one-off costs,
// once warm per step, and per unit where the work differs; the break-even in words ("" when none).
struct TwoAnswersRow {
  std::string label, a, b;
};
std::vector<TwoAnswersRow> two_answers_rows(const Diff& d);
std::string break_even_words(const Verdict& v);

// "CI gate: B is 143.1 % slower than A (confidence medium), over the allowed 5 %: exit 4".
std::string gate_line(const DiffGate& gate);

// Whether the per-step row `key` (Diff::components) is shown: the rows that measure the GPU's work
// and the CPU's waits for it are all zero when both sides run on the CPU alone, and left out then
// ("GPU busy 0" would read as an idle GPU).
bool shows_component(const Diff& d, std::string_view key);

}  // namespace whyslow::report
