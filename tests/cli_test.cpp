// The command line a newcomer meets first (issue 30): --version, a typo'd subcommand, text fitted
// to the terminal (COLUMNS, --wide), the severity legend, colour on a terminal (NO_COLOR), `report`
// without -o, `info --json`, and `explain DIR` for the folders people have; output for people
// (issue 46 item 6): `explain --brief`, prose at 80 columns into a pipe, `--help` wrapped with an
// example.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "report/format.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kTrace = std::string(WHYSLOW_FIXTURES) + "/torch/mm_bias_64_fp32_cold.json.gz";
const std::string kRanks = std::string(WHYSLOW_FIXTURES) + "/ranks";

struct CliRun {
  int status = -1;
  std::string out, err;
};

// `env` and the arguments go through the shell as written: callers quote paths. COLUMNS and
// NO_COLOR come only from `env`, never from the environment the tests run in.
CliRun whyslow(const std::string& args, const std::string& env = "") {
  TempDir dir;
  const std::string out = dir.path("out"), err = dir.path("err");
  const std::string cmd = "env -u COLUMNS -u NO_COLOR " + env + " '" + std::string(WHYSLOW_BINARY) + "' " + args +
                          " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(out), testing::read_file(err)};
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::vector<std::string> lines_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A finding's title line: it starts with a severity marker.
bool is_title(const std::string& line) {
  return line.starts_with("[!!] ") || line.starts_with("[!]  ") || line.starts_with("[i]  ");
}

size_t widest_line(const std::string& text) {
  std::istringstream in(text);
  size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, report::display_width(line));
  return widest;
}

TEST(Cli, VersionSaysTheProjectVersion) {
  const CliRun r = whyslow("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "whyslow 0.1.0\n");
}

TEST(Cli, ATypoedSubcommandGetsTheClosestName) {
  const CliRun r = whyslow("explian " + quoted(kTrace));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "whyslow: error: unknown subcommand 'explian', did you mean 'explain'?\n");
  const CliRun far = whyslow("trace.json");
  EXPECT_EQ(far.status, 1);
  EXPECT_NE(far.err.find("unknown subcommand 'trace.json'; the subcommands are explain, ops"), std::string::npos) << far.err;
}

TEST(Cli, TextFitsColumnsAndWideKeepsLinesWhole) {
  const CliRun piped = whyslow("explain " + quoted(kTrace));
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_GT(widest_line(piped.out), 100u);  // the tables: a pipe gets them whole
  const CliRun narrow = whyslow("explain " + quoted(kTrace), "COLUMNS=80");
  ASSERT_EQ(narrow.status, 0) << narrow.err;
  EXPECT_LE(widest_line(narrow.out), 80u) << narrow.out;
  EXPECT_NE(narrow.out.find("…\n"), std::string::npos);  // a table cut, said so
  // The prose is wrapped at 80, not cut: every word of the first finding's title is there.
  EXPECT_NE(narrow.out.find("one-off start-up"), std::string::npos) << narrow.out;
  const CliRun wide = whyslow("explain --wide " + quoted(kTrace), "COLUMNS=80");
  EXPECT_EQ(wide.out, whyslow("explain --wide " + quoted(kTrace)).out);  // COLUMNS or not
}

// Into a pipe (less, a file) the prose comes at 80 columns, never broken inside a word: at 100, an
// 80-column `less` wrapped each line mid-word. COLUMNS chooses another width; --wide gives 100.
TEST(Cli, ProseIntoAPipeWrapsAt80) {
  const std::string trace = quoted(std::string(WHYSLOW_FIXTURES) + "/cpu/dataloader_workers0.json.gz");
  auto widest_prose = [](const std::string& out) {
    size_t widest = 0;  // title lines and what follows them up to the blank line: the findings
    bool in_finding = false;
    for (const std::string& line : lines_of(out)) {
      in_finding = is_title(line) || (in_finding && !line.empty());
      if (in_finding && line.find("  at +") == std::string::npos)  // not an event row: a table's
        widest = std::max(widest, report::display_width(line));
    }
    return widest;
  };
  const CliRun piped = whyslow("explain " + trace);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_LE(widest_prose(piped.out), report::kPipeLineWidth) << piped.out;
  EXPECT_GT(widest_prose(piped.out), report::kPipeLineWidth - 10) << piped.out;  // filled, not narrow
  EXPECT_GT(widest_prose(whyslow("explain --wide " + trace).out), report::kPipeLineWidth);
  EXPECT_LE(widest_prose(whyslow("explain " + trace, "COLUMNS=60").out), 60u);
}

// Issue 46 item 6: on an 80-column terminal each table's title ("Steps (3): CPU = the step minus…",
// 240 columns) and note ("bound: compute or memory = …") was cut at the edge with what its columns
// mean. Now they wrap like prose: the only lines cut are a table's own (its heading row, rule and
// rows, whose cells stand two spaces apart) and an event row of a finding.
TEST(Cli, TableTitlesWrapWhereTheirRowsAreCut) {
  auto is_row = [](std::string line) {
    line.resize(line.size() - std::string("…").size());
    const size_t text = line.find_first_not_of(' ');
    return text != std::string::npos && text > 0 &&
           (line.find_first_not_of('-', text) == std::string::npos || line.find("  ", text) != std::string::npos);
  };
  for (const std::string& trace : {std::string("cpu/dataloader_workers0.json.gz"), std::string("memory/ckpt_on.json.gz"),
                                   std::string("blocks/llama_generate_eager.json.gz")}) {
    for (const std::string command : {"explain", "kernels"}) {
      const CliRun r = whyslow(command + " " + quoted(std::string(WHYSLOW_FIXTURES) + "/" + trace), "COLUMNS=80");
      ASSERT_EQ(r.status, 0) << r.err;
      size_t cut = 0;
      for (const std::string& line : lines_of(r.out)) {
        if (!line.ends_with("…") || report::display_width(line) < 80) continue;
        if (line.starts_with("whyslow explain /")) continue;  // the trace's path: one word, cut where it is long
        ++cut;
        EXPECT_TRUE(is_row(line)) << command << " " << trace << ": prose cut at the edge: " << line;
      }
      EXPECT_GT(cut, 0u) << command << " " << trace << ": some table is wider than 80 columns";
    }
  }
}

// `explain --brief`: each finding's title, the fix replayed and what to try, and the what-if
// table; the evidence, events and long tables only without it.
TEST(Cli, BriefKeepsEveryFindingAndDropsTheEvidence) {
  const std::string trace = quoted(std::string(WHYSLOW_FIXTURES) + "/cpu/dataloader_workers0.json.gz");
  const CliRun full = whyslow("explain " + trace);
  const CliRun brief = whyslow("explain --brief " + trace);
  ASSERT_EQ(full.status, 0) << full.err;
  ASSERT_EQ(brief.status, 0) << brief.err;
  EXPECT_LT(lines_of(brief.out).size() * 3, lines_of(full.out).size()) << brief.out;
  size_t titles = 0;
  for (const std::string& line : lines_of(full.out))
    if (is_title(line)) {
      ++titles;
      EXPECT_NE(brief.out.find(line + '\n'), std::string::npos) << line;
    }
  EXPECT_GE(titles, 2u);
  EXPECT_NE(full.out.find("evidence: "), std::string::npos);
  EXPECT_EQ(brief.out.find("evidence: "), std::string::npos) << brief.out;
  EXPECT_EQ(brief.out.find("events:"), std::string::npos) << brief.out;
  for (const char* kept : {"the fix, replayed: ", "try:\n", "What would it take:"})
    EXPECT_NE(brief.out.find(kept), std::string::npos) << kept << "\n" << brief.out;
  for (const char* dropped : {"Steps (", "Kernels", "Ops ("}) EXPECT_EQ(brief.out.find(dropped), std::string::npos) << dropped;
}

// --help fits 80 columns into a pipe (and COLUMNS when narrower), never broken inside a word, and
// each command's help ends in an example to paste.
TEST(Cli, EveryHelpFitsAndEndsInAnExample) {
  for (const std::string command : {"", "explain", "ops", "kernels", "info", "diff", "report", "annotate", "digest",
                                    "what-if", "mcp"}) {
    SCOPED_TRACE(command);
    const CliRun r = whyslow(command + " --help");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_LE(widest_line(r.out), report::kPipeLineWidth) << r.out;
    EXPECT_NE(r.out.find("Example"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n  " + std::string(command == "mcp" ? "claude mcp add whyslow" : "whyslow " + command)),
              std::string::npos) << r.out;
    // A word wider than the description column gets a line of its own, whole.
    for (const std::string& line : lines_of(whyslow(command + " --help", "COLUMNS=60").out))
      if (line.find(' ', line.find_first_not_of(' ')) != std::string::npos) {
        EXPECT_LE(report::display_width(line), 60u) << line;
      }
  }
}

TEST(Cli, FindingsSayWhatTheMarkersMean) {
  const CliRun r = whyslow("explain " + quoted(kTrace));
  EXPECT_NE(r.out.find("most important first: [!!] critical, [!] warning, [i] information\n"), std::string::npos) << r.out;
}

// Colour needs a terminal: script(1) gives the command one.
TEST(Cli, MarkersAreColouredOnATerminalUnlessNoColor) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) to give a terminal";
  TempDir dir;
  auto on_terminal = [&](const std::string& env) {
    const std::string out = dir.path("typescript");
    const std::string cmd = "script -qec \"env -u NO_COLOR TERM=xterm " + env + " '" + std::string(WHYSLOW_BINARY) +
                            "' explain --rows 1 '" + kTrace + "'\" '" + out + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return testing::read_file(out);
  };
  EXPECT_NE(on_terminal("").find("\x1b[1;31m[!!]\x1b[0m"), std::string::npos);
  EXPECT_EQ(on_terminal("NO_COLOR=1").find("\x1b["), std::string::npos);
  EXPECT_EQ(whyslow("explain " + quoted(kTrace)).out.find("\x1b["), std::string::npos);  // a pipe: none
}

TEST(Cli, ReportWithoutOutputWritesBesideTheTrace) {
  TempDir dir;
  const std::string trace = dir.path("run.json.gz");
  fs::copy_file(kTrace, trace);
  const CliRun r = whyslow("report " + quoted(trace));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.path("run.html"))) << r.err;
  EXPECT_NE(r.err.find("wrote " + dir.path("run.html")), std::string::npos) << r.err;
  const CliRun pair = whyslow("report " + quoted(trace) + " " + quoted(kTrace));
  EXPECT_EQ(pair.status, 0) << pair.err;
  EXPECT_TRUE(fs::exists(dir.path("run-vs-mm_bias_64_fp32_cold.html"))) << pair.err;
}

TEST(Cli, InfoJsonListsTracksAndDevices) {
  const CliRun r = whyslow("info --json " + quoted(kTrace));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"events\": 151"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\": \"NVIDIA H200\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \"gpu\""), std::string::npos) << r.out;
}

// Issue 46 item 6: track names such as pid "Spans", tid "PyTorch Profiler" pushed their row's
// event count out of line. Every row's count ends in the same column as the "events" heading.
TEST(Cli, InfoColumnsAlign) {
  const CliRun r = whyslow("info " + quoted(std::string(WHYSLOW_FIXTURES) + "/torch/addmm_full_bias.json.gz"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(": 34 events on 5 tracks, 1 device, "), std::string::npos) << r.out;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 8u) << r.out;  // the summary, the heading, the rule, five tracks
  const size_t events_end = lines[1].find("events") + std::string("events").size();
  ASSERT_NE(lines[1].find("events"), std::string::npos) << r.out;
  size_t rows = 0;
  for (size_t i = 3; i < lines.size(); ++i) {
    // The count is the last digit before the name column: the row's text up to events_end ends in one.
    ASSERT_GE(lines[i].size(), events_end) << lines[i];
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(lines[i][events_end - 1]))) << r.out;
    EXPECT_TRUE(events_end == lines[i].size() || lines[i][events_end] == ' ') << r.out;
    ++rows;
  }
  EXPECT_EQ(rows, 5u) << r.out;
}

// The folder tensorboard_trace_handler("tb") writes: one trace after one run, several after several.
TEST(ExplainFolder, OneTraceIsExplained) {
  TempDir dir;
  fs::copy_file(kTrace, dir.path("host_123.1700000000.pt.trace.json.gz"));
  const CliRun folder = whyslow("explain " + quoted(dir.path("")));
  EXPECT_EQ(folder.status, 0) << folder.err;
  const CliRun file = whyslow("explain " + quoted(kTrace));
  EXPECT_EQ(folder.out.substr(folder.out.find('\n')), file.out.substr(file.out.find('\n')));  // all but the path line
}

TEST(ExplainFolder, RanksOfOneJobGetTheRanksView) {
  const CliRun r = whyslow("explain " + quoted(kRanks));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("whyslow explain: 2 ranks"), std::string::npos) << r.out;
}

TEST(ExplainFolder, RunsThatAreNotRanksNameDiff) {
  TempDir dir;
  fs::copy_file(kTrace, dir.path("a.json.gz"));
  fs::copy_file(kTrace, dir.path("b.json.gz"));
  const CliRun folder = whyslow("explain " + quoted(dir.path("")));
  EXPECT_EQ(folder.status, 2);
  EXPECT_NE(folder.err.find("2 traces that are not the ranks of one job"), std::string::npos) << folder.err;
  EXPECT_NE(folder.err.find("whyslow diff A B"), std::string::npos) << folder.err;
  const CliRun files = whyslow("explain " + quoted(dir.path("a.json.gz")) + " " + quoted(dir.path("b.json.gz")));
  EXPECT_EQ(files.status, 2);
  EXPECT_EQ(files.err, folder.err);
  // Two copies of one rank: not one job either.
  fs::copy_file(kRanks + "/dlrm_worker0.json.gz", dir.path("again_worker0.json.gz"));
  const CliRun twice = whyslow("explain " + quoted(kRanks + "/dlrm_worker0.json.gz") + " " + quoted(dir.path("again_worker0.json.gz")));
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("are both rank 0"), std::string::npos) << twice.err;
}

// Every command that reads one trace takes what explain takes (issue 46, item 4): a folder
// tensorboard_trace_handler wrote, with its one trace in it. A folder with several traces is refused
// with their names (exit 2): which one is meant cannot be guessed.
TEST(CliFolders, EveryOneTraceCommandReadsAFolderWithOneTrace) {
  TempDir one, two;
  fs::copy_file(kTrace, one.path("host_1.pt.trace.json.gz"));
  fs::copy_file(kTrace, two.path("host_1.pt.trace.json.gz"));
  fs::copy_file(std::string(WHYSLOW_FIXTURES) + "/torch/mm_bias_64_fp32.json.gz", two.path("host_2.pt.trace.json.gz"));
  const std::string folder = quoted(one.path(""));
  for (const std::string& args : {"ops " + folder, "kernels " + folder, "info " + folder, "digest " + folder,
                                  "what-if " + folder + " --edit one-off", "diff " + folder + " " + folder,
                                  "annotate " + folder + " -o " + quoted(one.path("annotated.json"))}) {
    SCOPED_TRACE(args);
    const CliRun r = whyslow(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("Is a directory"), std::string::npos) << r.err;
  }
  const CliRun refused = whyslow("ops " + quoted(two.path("")));
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("a folder with 2 traces (host_1.pt.trace.json.gz, host_2.pt.trace.json.gz)"), std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace whyslow
