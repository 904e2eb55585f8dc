// `whyslow diff A B --fail-if-slower PCT --summary-md FILE` (issue 43 item 7): the CI gate decided
// from the verdict (ci_gate on hand-made verdicts, at its edges), its exit statuses on recorded
// pairs (tests/fixtures/compile/: eager vs torch.compile of a 64×64 matmul is "A faster, medium",
// B's median step +143 %), and the Markdown summary written whole, escaped, or not at all.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "diff/diff.hpp"
#include "loader_test_util.hpp"
#include "report/markdown/diff_markdown.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kEager = std::string(WHYSLOW_FIXTURES) + "/compile/mm64_eager.json.gz";
const std::string kCompile = std::string(WHYSLOW_FIXTURES) + "/compile/mm64_compile.json.gz";

// A diff whose verdict is all the gate reads.
Diff verdict(bool comparable, const std::string& faster, const std::string& confidence, double delta_pct) {
  Diff d;
  d.verdict.comparable = comparable;
  d.verdict.faster = faster;
  d.verdict.confidence = confidence;
  d.verdict.delta_pct = delta_pct;
  d.verdict.basis = faster == "same" ? "within_spread" : "paired_steps";
  return d;
}

TEST(CiGate, FailsOnlyWhenBIsShownSlowerByMoreThanAllowed) {
  const GateResult over = ci_gate(verdict(true, "a", "medium", 12.34), 5);
  EXPECT_TRUE(over.fails);
  EXPECT_DOUBLE_EQ(over.slower_pct.value_or(0), 12.34);
  EXPECT_EQ(over.reason, "B is 12.3 % slower than A (confidence medium), over the allowed 5 %");
  EXPECT_TRUE(ci_gate(verdict(true, "a", "high", 12.34), 5).fails);
  const GateResult within = ci_gate(verdict(true, "a", "medium", 12.34), 15);
  EXPECT_FALSE(within.fails);
  EXPECT_EQ(within.reason, "B is 12.3 % slower than A (confidence medium), within the allowed 15 %");
  // "More than PCT": a change of exactly PCT passes; 0 % fails any shown slowdown.
  EXPECT_FALSE(ci_gate(verdict(true, "a", "medium", 5), 5).fails);
  EXPECT_TRUE(ci_gate(verdict(true, "a", "medium", 0.5), 0).fails);
}

TEST(CiGate, PassesWhatTheVerdictHasNotShown) {
  const GateResult low = ci_gate(verdict(true, "a", "low", 40), 5);  // one step a side: the sign only
  EXPECT_FALSE(low.fails);
  EXPECT_NE(low.reason.find("confidence low, under the medium the gate needs"), std::string::npos) << low.reason;
  const GateResult faster = ci_gate(verdict(true, "b", "high", -30), 5);
  EXPECT_FALSE(faster.fails);
  EXPECT_DOUBLE_EQ(faster.slower_pct.value_or(0), -30);
  EXPECT_EQ(faster.reason, "B is 30.0 % faster than A (confidence high)");
  // Within the spread: the medians moved 20 %, but the steps do not show it.
  const GateResult same = ci_gate(verdict(true, "same", "", 20), 5);
  EXPECT_FALSE(same.fails);
  EXPECT_EQ(same.reason, "A and B are not shown to differ (B − A +20.0 %, basis within_spread)");
  const GateResult apart = ci_gate(verdict(false, "", "", 80), 5);
  EXPECT_FALSE(apart.fails);
  EXPECT_NE(apart.reason.find("not comparable"), std::string::npos) << apart.reason;
}

TEST(CiGate, MarkdownTextEscapesWhatMarkdownReads) {
  EXPECT_EQ(report::markdown_text("runs/a|b`c*d_e[f]<g>~h&i$j\\k.json"),
            "runs/a\\|b\\`c\\*d\\_e\\[f\\]\\<g\\>\\~h\\&i\\$j\\\\k.json");
  EXPECT_EQ(report::markdown_text("two\nlines\r\tand µs"), "two lines  and µs");  // a line break cannot end the cell
}

struct CliRun {
  int status = -1;
  std::string out, err;
};

// Arguments go through the shell as written: callers quote paths.
CliRun whyslow(const std::string& args) {
  TempDir dir;
  const std::string out = dir.path("out"), err = dir.path("err");
  const std::string cmd = "env -u COLUMNS -u NO_COLOR '" + std::string(WHYSLOW_BINARY) + "' " + args + " >'" + out +
                          "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(out), testing::read_file(err)};
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }
// --wide: prose at 100 columns, so the gate's line is one line (a pipe wraps prose at 80).
std::string diff_args(const std::string& a, const std::string& b) { return "diff --wide " + quoted(a) + " " + quoted(b); }

TEST(DiffGateCli, ExitsFourWhenBIsShownSlower) {
  const CliRun r = whyslow(diff_args(kEager, kCompile) + " --fail-if-slower 5");
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_NE(r.out.find("Verdict: A is faster (confidence medium)\n"
                       "  CI gate: B is 143.1 % slower than A (confidence medium), over the allowed 5 %: exit 4\n"),
            std::string::npos)
      << r.out;
}

TEST(DiffGateCli, ExitsZeroWithinTheAllowanceWhenFasterAndAgainstItself) {
  const CliRun within = whyslow(diff_args(kEager, kCompile) + " --fail-if-slower 150");
  EXPECT_EQ(within.status, 0) << within.err;
  EXPECT_NE(within.out.find("within the allowed 150 %: exit 0"), std::string::npos) << within.out;
  const CliRun faster = whyslow(diff_args(kCompile, kEager) + " --fail-if-slower 5");
  EXPECT_EQ(faster.status, 0) << faster.err;
  EXPECT_NE(faster.out.find("CI gate: B is 58.9 % faster than A (confidence medium): exit 0"), std::string::npos) << faster.out;
  const CliRun itself = whyslow(diff_args(kEager, kEager) + " --fail-if-slower 0");
  EXPECT_EQ(itself.status, 0) << itself.err;
  EXPECT_NE(itself.out.find("CI gate: A and B are not shown to differ"), std::string::npos) << itself.out;
  // Without the option: no gate, and the slower B is no error.
  const CliRun plain = whyslow(diff_args(kEager, kCompile));
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.find("CI gate"), std::string::npos);
}

TEST(DiffGateCli, ABadPercentageIsAUsageError) {
  for (const char* pct : {"-5", "nan", "inf", "abc", "5%", "''"}) {
    const CliRun r = whyslow(diff_args(kEager, kCompile) + " --fail-if-slower " + pct);
    EXPECT_EQ(r.status, 1) << pct;
    EXPECT_TRUE(r.out.empty()) << pct;
    EXPECT_NE(r.err.find("--fail-if-slower"), std::string::npos) << pct << ": " << r.err;
  }
  EXPECT_NE(whyslow(diff_args(kEager, kCompile) + " --fail-if-slower -5").err.find("must be a percentage of 0 or more"),
            std::string::npos);
  // A trace that cannot be read keeps its own status.
  EXPECT_EQ(whyslow(diff_args(kEager, "/nonexistent/b.json") + " --fail-if-slower 5").status, 2);
}

TEST(DiffGateCli, JsonHasTheGateOnlyWhenAsked) {
  const CliRun gated = whyslow(diff_args(kEager, kCompile) + " --json --fail-if-slower 2.5");
  EXPECT_EQ(gated.status, 4) << gated.err;
  EXPECT_NE(gated.out.find("\"gate\": {\"max_slower_pct\": 2.5, \"fails\": true, \"slower_pct\": 143.0"), std::string::npos)
      << gated.out;
  EXPECT_NE(gated.out.find("\"reason\": \"B is 143.1 % slower than A (confidence medium), over the allowed 2.5 %\"}"),
            std::string::npos);
  const CliRun plain = whyslow(diff_args(kEager, kCompile) + " --json");
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.find("\"gate\""), std::string::npos);
}

TEST(DiffGateCli, SummaryMarkdownHasTheVerdictTableAndEscapedPaths) {
  TempDir dir;
  const std::string odd = dir.path("run|1`b.json.gz");  // a `|` would end a table cell, a backtick open a code span
  fs::copy_file(kCompile, odd);
  const std::string md = dir.path("summary.md");
  const CliRun r = whyslow(diff_args(kEager, odd) + " --fail-if-slower 5 --summary-md " + quoted(md));
  EXPECT_EQ(r.status, 4) << r.err;
  const std::string text = testing::read_file(md);
  EXPECT_EQ(text.rfind("## whyslow diff: A is faster (confidence medium)\n\n", 0), 0u) << text;
  EXPECT_NE(text.find("**CI gate: B is 143.1 % slower than A (confidence medium), over the allowed 5 %: exit 4**\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("- **B** (change): " + report::markdown_text(dir.path("")) + "run\\|1\\`b.json.gz (NVIDIA H200)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("run|1"), std::string::npos) << text;
  EXPECT_NE(text.find("A is faster (confidence medium): each of the 3 steps"), std::string::npos) << text;
  EXPECT_NE(text.find("| | A | B | B − A |\n|---|--:|--:|--:|\n"
                      "| step | 110 µs | 268 µs | +158 µs |\n"
                      "| CPU (not blocked) | 105 µs | 259 µs | +155 µs |\n"
                      "| GPU busy | 4.38 µs | 3.04 µs | -1.34 µs |\n"
                      "| kernels | 2 | 1 | -1 |\n"
                      "| launches | 2 | 1 | -1 |\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nTry:\n\n- "), std::string::npos) << text;
  // Without the gate, no gate line.
  const CliRun ungated = whyslow(diff_args(kEager, kCompile) + " --summary-md " + quoted(md));
  EXPECT_EQ(ungated.status, 0) << ungated.err;
  EXPECT_EQ(testing::read_file(md).find("CI gate"), std::string::npos);
}

// The summary cannot be written: status 1 (not the gate's 4), the verdict still printed, and no
// file or temporary file left in the folder.
void expect_unwritten(const std::string& folder, const std::string& md) {
  const CliRun r = whyslow(diff_args(kEager, kCompile) + " --fail-if-slower 5 --summary-md " + quoted(md));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("whyslow: error: cannot write"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("CI gate: "), std::string::npos);
  EXPECT_FALSE(fs::exists(md));
  if (fs::is_directory(folder)) {
    EXPECT_TRUE(fs::is_empty(folder)) << folder;
  }
}

TEST(DiffGateCli, AnUnwritableSummaryFailsAndLeavesNothing) {
  TempDir dir;
  // A folder that is a file: no one can create anything in it, root included.
  const std::string file = dir.write("plain", "x");
  expect_unwritten(file, file + "/summary.md");
  // A read-only folder binds all but root, who writes anywhere.
  const std::string ro = dir.path("read_only");
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  if (::geteuid() != 0) expect_unwritten(ro, ro + "/summary.md");
  fs::permissions(ro, fs::perms::owner_all);
}

}  // namespace
}  // namespace whyslow
