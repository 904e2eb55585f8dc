// The one file writer (src/output/output_file.hpp) and the commands that use it (issue 10 items
// 3, 4, 5; issue 32 items 6, 9): outputs whole or not at all, never over an input (by name, hard
// link or symbolic link), never through a link, special files written in place, a failed write
// (to a file or to stdout) or a signal removing what was half written, a replaced file's
// permissions kept, and the cause named.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "loader_test_util.hpp"
#include "output/output_file.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

struct CommandResult {
  int status;
  std::string err;
};

// Runs a shell command line with stderr captured; returns its exit status and stderr.
CommandResult run(const TempDir& dir, const std::string& command) {
  const std::string err = dir.path("stderr.txt");
  const int status = std::system((command + " 2>'" + err + "' >/dev/null").c_str());
  CommandResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(err)};
  fs::remove(err);
  return r;
}

std::string whyslow(const std::string& args) { return std::string("'") + WHYSLOW_BINARY + "' " + args; }

std::vector<std::string> entries(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(dir.path("")))) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string small_trace() { return testing::gunzip_file(testing::fixture("mm_bias_64_fp32_cold.json.gz")); }

TEST(OutputFile, WritesTheFileWholeAndLeavesNothingElse) {
  TempDir dir;
  const std::string path = dir.path("out.txt");
  write_file_atomically(path, "first");
  write_file_atomically(path, "second, longer");
  EXPECT_EQ(testing::read_file(path), "second, longer");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
  // gzip on the way.
  OutputOptions gzip;
  gzip.gzip = true;
  write_file_atomically(dir.path("out.gz"), std::string(100000, 'x'), gzip);
  EXPECT_EQ(testing::gunzip_file(dir.path("out.gz")), std::string(100000, 'x'));
}

// Issue 45 item 5: the temporary name added 21 bytes to the file's, so a legal 250-byte name
// (NAME_MAX is 255) failed with 'File name too long'.
TEST(OutputFile, ALongestLegalNameIsWritten) {
  TempDir dir;
  for (const size_t length : {size_t{234}, size_t{235}, size_t{250}, size_t{255}}) {
    const std::string name = std::string(length - 4, 'n') + ".txt";
    const std::string path = dir.path(name);
    write_file_atomically(path, "page");  // replaced: the second write goes through a temporary name too
    write_file_atomically(path, "page, again");
    EXPECT_EQ(testing::read_file(path), "page, again") << length;
    EXPECT_EQ(entries(dir), std::vector<std::string>{name}) << length;
    fs::remove(path);
  }
}

TEST(OutputFile, AnUnfinishedFileLeavesThePathAsItWas) {
  TempDir dir;
  const std::string path = dir.write("out.txt", "old");
  {
    OutputFile file(path);
    file.write("new, but never committed");
  }
  EXPECT_EQ(testing::read_file(path), "old");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
}

TEST(OutputFile, RefusesItsInputsByInodeNotByName) {
  TempDir dir;
  const std::string input = dir.write("in.json", "the input");
  fs::create_hard_link(input, dir.path("hard.json"));
  fs::create_symlink(input, dir.path("soft.json"));
  for (const std::string& out : {input, dir.path("hard.json"), dir.path("soft.json"), dir.path("./in.json")}) {
    SCOPED_TRACE(out);
    try {
      write_file_atomically(out, "replaced", {.inputs = {dir.path("other.json"), input}});
      ADD_FAILURE() << "no error";
    } catch (const OutputError& e) {
      EXPECT_NE(std::string(e.what()).find("is the input '" + input + "'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(testing::read_file(input), "the input");
  }
}

TEST(OutputFile, NeverWritesThroughOrReplacesALinkToAFile) {
  TempDir dir;
  const std::string victim = dir.write("victim.txt", "keep me");
  fs::create_symlink(victim, dir.path("link.txt"));
  fs::create_symlink(dir.path("nowhere.txt"), dir.path("dangling.txt"));
  for (const char* name : {"link.txt", "dangling.txt"}) {
    SCOPED_TRACE(name);
    EXPECT_THROW(write_file_atomically(dir.path(name), "redirected"), OutputError);
    EXPECT_TRUE(fs::is_symlink(dir.path(name)));
  }
  EXPECT_EQ(testing::read_file(victim), "keep me");
  EXPECT_FALSE(fs::exists(dir.path("nowhere.txt")));
  EXPECT_THROW(write_file_atomically(dir.path(""), "a folder"), OutputError);
}

// Issue 10 item 5: temp + rename replaced a FIFO (or /dev/full, as root) with a regular file.
TEST(OutputFile, WritesIntoAFifoInPlace) {
  TempDir dir;
  const std::string fifo = dir.path("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string text(3 << 20, 'q');  // more than a pipe holds: the write streams
  std::string received;
  std::thread reader([&] { received = testing::read_file(fifo); });
  write_file_atomically(fifo, text);
  reader.join();
  EXPECT_EQ(received.size(), text.size());
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries(dir), std::vector<std::string>{"pipe"});
}

// Two writers of one path: each its own temporary file, the last rename wins, the file is whole.
TEST(OutputFile, ConcurrentWritersLeaveOneWholeFile) {
  TempDir dir;
  const std::string path = dir.path("out.txt");
  const std::string a(4 << 20, 'a'), b(3 << 20, 'b');
  std::thread ta([&] {
    for (int i = 0; i < 8; ++i) write_file_atomically(path, a);
  });
  std::thread tb([&] {
    for (int i = 0; i < 8; ++i) write_file_atomically(path, b);
  });
  ta.join();
  tb.join();
  const std::string now = testing::read_file(path);
  EXPECT_TRUE(now == a || now == b) << now.size() << " bytes";
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
}

// Issue 10 item 3: `report t.json -o t.json` replaced the trace with HTML and exited 0; so did
// `report A B -o B`, and an output linked to the input.
TEST(OutputCommands, ReportAndAnnotateRefuseToOverwriteAnInput) {
  TempDir dir;
  const std::string original = small_trace();
  const std::string a = dir.write("a.json", original), b = dir.write("b.json", original);
  fs::create_hard_link(a, dir.path("a_hard.json"));
  fs::create_symlink(b, dir.path("b_soft.json"));
  const std::vector<std::string> commands = {
      "report '" + a + "' -o '" + a + "'",
      "report '" + a + "' '" + b + "' -o '" + b + "'",
      "report '" + a + "' '" + b + "' -o '" + dir.path("a_hard.json") + "'",
      "report '" + a + "' -o '" + dir.path("a_hard.json") + "'",
      "annotate '" + b + "' -o '" + dir.path("b_soft.json") + "'",
      "annotate '" + a + "' -o '" + a + "'",
  };
  for (const std::string& c : commands) {
    SCOPED_TRACE(c);
    const CommandResult r = run(dir, whyslow(c));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
    EXPECT_EQ(testing::read_file(a), original);
    EXPECT_EQ(testing::read_file(b), original);
  }
}

// Issue 10 item 3: a failed write left a partial HTML file and blamed the folder. Here the write
// fails for want of room (a file size limit: EFBIG, as ENOSPC would on a full disk): the old file
// stays, no temporary file stays, and the message gives the cause.
TEST(OutputCommands, AFailedWriteKeepsTheOldFileAndNamesTheCause) {
  TempDir dir;
  const std::string input = dir.write("t.json", small_trace());
  for (const std::string& cmd : {std::string("report"), std::string("annotate")}) {
    SCOPED_TRACE(cmd);
    const std::string out = dir.write("out." + cmd, "the old output");
    // sh's ulimit -f counts 512-byte blocks; SIGXFSZ ignored, so write() fails with EFBIG instead.
    const CommandResult r = run(dir, "sh -c \"trap '' XFSZ; ulimit -f 16; exec " +
                               whyslow(cmd + " '" + input + "' -o '" + out + "'") + "\"");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
    EXPECT_EQ(testing::read_file(out), "the old output");
    fs::remove(out);
  }
  EXPECT_EQ(entries(dir), std::vector<std::string>{"t.json"});
}

TEST(OutputCommands, WriteToAFifoInPlace) {
  TempDir dir;
  const std::string input = dir.write("t.json", small_trace());
  const std::string fifo = dir.path("report.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = testing::read_file(fifo); });
  const CommandResult r = run(dir, whyslow("report '" + input + "' -o '" + fifo + "'"));
  reader.join();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(received.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// /dev/stdout is a link to whatever stdout is: a pipe is written in place, and only the page goes
// into it (the "wrote …" note goes to stderr); a regular file behind the link is refused like any
// link to a file, with a message saying so.
TEST(OutputCommands, DevStdoutIsWrittenWhenItIsAPipe) {
  TempDir dir;
  const std::string input = dir.write("t.json", small_trace()), out = dir.path("page.html");
  const CommandResult piped = run(dir, "(" + whyslow("report '" + input + "' -o /dev/stdout") + " | cat > '" + out + "')");
  EXPECT_EQ(piped.status, 0) << piped.err;
  const std::string page = testing::read_file(out);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
  const std::string cmd = whyslow("report '" + input + "' -o /dev/stdout") + " > '" + out + "'";
  const int status = std::system((cmd + " 2>'" + dir.path("err.txt") + "'").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(testing::read_file(dir.path("err.txt")).find("symbolic link"), std::string::npos);
}

// Issue 32 item 9: replacing a private file made it world-readable (0600 became 0644).
TEST(OutputFile, AReplacedFileKeepsItsPermissions) {
  TempDir dir;
  const std::string path = dir.write("private.txt", "old");
  for (const fs::perms mode : {fs::perms::owner_read | fs::perms::owner_write,
                               fs::perms::owner_all | fs::perms::group_read}) {
    fs::permissions(path, mode);
    write_file_atomically(path, "new");
    EXPECT_EQ(fs::status(path).permissions(), mode);
    EXPECT_EQ(testing::read_file(path), "new");
  }
  // A new file: the usual 0666 less the umask.
  const mode_t umask_now = ::umask(022);
  write_file_atomically(dir.path("fresh.txt"), "x");
  ::umask(umask_now);
  EXPECT_EQ(fs::status(dir.path("fresh.txt")).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
}

// A child writes half of a new `out.txt` through an OutputFile and raises `sig`: it still ends by
// the signal, no temporary file is left, and the old file stays as it was.
void expect_signal_leaves_the_old_file(int sig) {
  SCOPED_TRACE(sig);
  TempDir dir;
  const std::string path = dir.write("out.txt", "old");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const struct rlimit no_core {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // SIGQUIT, SIGSEGV, SIGABRT dump core by default
    OutputFile file(path);
    file.write("half of it");
    ::raise(sig);
    ::_exit(0);  // not reached: the signal ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
  EXPECT_EQ(testing::read_file(path), "old");
}

// Issue 32 item 9: SIGINT, SIGTERM, SIGHUP and SIGPIPE during a write left "<path>.tmp-*" behind.
TEST(OutputFile, ASignalDuringAWriteRemovesTheTemporaryFile) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) expect_signal_leaves_the_old_file(sig);
}

// Issue 45 item 5: SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF (and any other signal
// whose default action ends the process: a crash's SIGSEGV, a real-time signal) left the
// temporary file behind.
TEST(OutputFile, EveryTerminatingSignalRemovesTheTemporaryFile) {
  for (const int sig : {SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGSEGV, SIGABRT, SIGRTMIN,
                        SIGRTMAX}) {
    // OutputFile takes a signal only where its action is still the default: under ASan, the
    // sanitizer's own SIGSEGV handler reports the crash and exits 1 instead (CI's sanitizer job).
    struct sigaction current {};
    ::sigaction(sig, nullptr, &current);
    if (current.sa_handler == SIG_DFL) expect_signal_leaves_the_old_file(sig);
  }
}

// Issue 45 item 5: under `ulimit -f` the run died by SIGXFSZ with no message and a partial file.
// SIGXFSZ is ignored once a temporary file is made: the write fails with EFBIG and says so.
TEST(OutputFile, AFileSizeLimitIsAnErrorNotASignal) {
  TempDir dir;
  const std::string path = dir.write("out.txt", "old");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_DFL);  // as a shell starts the program
    const struct rlimit small {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &small);
    try {
      OutputFile file(path);
      file.write(std::string(1 << 20, 'x'));
      file.commit();
    } catch (const OutputError& e) {
      ::_exit(std::string(e.what()).find("File too large") != std::string::npos ? 0 : 2);
    }
    ::_exit(3);  // no error: the limit was not met
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
  EXPECT_EQ(testing::read_file(path), "old");
}

// Issue 45 item 5: `report /dev/stdin` wrote /dev/stdin.html (into /dev, as root): a trace read
// from a pipe or a device has no folder to put the page beside, so -o is needed, and said so.
TEST(OutputCommands, APipedTraceNeedsOutputNamed) {
  TempDir dir;
  const std::string input = dir.write("t.json", small_trace());
  const CommandResult refused = run(dir, "cat '" + input + "' | " + whyslow("report /dev/stdin"));
  EXPECT_EQ(refused.status, 1) << refused.err;
  EXPECT_NE(refused.err.find("'/dev/stdin' is not a regular file (a pipe or a device)"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("name the page with -o"), std::string::npos) << refused.err;
  const std::string page = dir.path("page.html");
  const CommandResult named = run(dir, "cat '" + input + "' | " + whyslow("report /dev/stdin -o '" + page + "'"));
  EXPECT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(testing::read_file(page).rfind("<!DOCTYPE html>", 0), 0u);
}

// Issue 32 item 6: a report written to a full stdout (/dev/full) exited 0.
TEST(OutputCommands, AFailedWriteToStdoutIsAnError) {
  TempDir dir;
  const std::string input = dir.write("t.json", small_trace());
  const std::string ranks = std::string(WHYSLOW_FIXTURES) + "/ranks/";
  const std::vector<std::string> commands = {
      "explain '" + input + "'", "explain --json '" + input + "'", "digest '" + input + "'", "info '" + input + "'",
      "explain '" + ranks + "dlrm_worker0.json.gz' '" + ranks + "dlrm_worker2.json.gz'",
  };
  for (const std::string& c : commands) {
    SCOPED_TRACE(c);
    const std::string err = dir.path("err.txt");
    const int status = std::system((whyslow(c) + " >/dev/full 2>'" + err + "'").c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1);
    EXPECT_NE(testing::read_file(err).find("cannot write the output to stdout: "), std::string::npos)
        << testing::read_file(err);
  }
}

}  // namespace
}  // namespace whyslow
