// Hostile input, second round (issue 32 item 11): the minor ones. One pipe named twice, launches
// of several processes sharing correlation ids, --peaks values at the edges of a double, --step,
// --rows and --peaks values CLI11 took, a --step that names several steps, and a trace of 200k
// threads in the HTML page.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "analysis/facts.hpp"
#include "analysis/roofline/gpu_peaks.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "report/html/report.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"
#include "trace/trace_set.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

struct CliRun {
  int status = -1;
  std::string err;
};

CliRun whyslow(const TempDir& dir, const std::string& args, const std::string& stdin_from = "/dev/null") {
  const std::string err = dir.path("err.txt");
  const int status =
      std::system(("'" WHYSLOW_BINARY "' " + args + " <'" + stdin_from + "' >/dev/null 2>'" + err + "'").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(err)};
}

const std::string kOneOp = trace_json({R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5})"});

TEST(HostileMinor, OnePipeNamedTwiceIsRefused) {
  TempDir dir;
  const std::string trace = dir.write("t.json", kOneOp);
  // It split the pipe between two loads and blamed the data.
  const CliRun r = whyslow(dir, "explain /dev/stdin /dev/stdin", trace);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("/dev/stdin and /dev/stdin are the same file"), std::string::npos) << r.err;
  // A file and a link to it, the same.
  std::filesystem::create_symlink(trace, dir.path("link.json"));
  EXPECT_THROW(expand_trace_paths({trace, dir.path("link.json")}), LoadError);
}

// Two processes each numbering their launches from 1 (a trace merged from two): each kernel
// belongs to the launch of its own time, not to the first process's.
TEST(HostileMinor, CorrelationIdsSharedByProcessesLinkEachKernelToItsOwnLaunch) {
  std::vector<std::string> ev;
  for (const int pid : {1, 2}) {
    const int base = pid == 1 ? 0 : 150'000;  // process 2 runs 150 ms later
    ev.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" + std::to_string(pid) +
                 R"(,"tid":1,"ts":)" + std::to_string(base + 10) + R"(,"dur":2,"args":{"correlation":1}})");
    ev.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(base + 11) +
                 R"(,"dur":5,"args":{"correlation":1,"device":0,"stream":7}})");
  }
  TempDir dir;
  const Trace t = load_trace(dir.write("t.json", trace_json(ev)));
  const auto kernels = testing::events_named(t, "k"), launches = testing::events_named(t, "cudaLaunchKernel");
  ASSERT_EQ(kernels.size(), 2u);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(t.launch_link[kernels[0]], launches[0]);
  EXPECT_EQ(t.launch_link[kernels[1]], launches[1]);  // it was launches[0]: a 150 ms "queue"
  EXPECT_EQ(t.launch_link[launches[1]], kernels[1]);
}

TEST(HostileMinor, PeaksAtTheEdgesOfADoubleAreRefused) {
  TempDir dir;
  for (const std::string bad : {R"({"memory_bytes_per_s": 5e-324})", R"({"memory_bytes_per_s": 1e308})",
                                R"({"peak_flop_per_s": {"bf16": 1e308}})", R"({"memory_bytes_per_s": 1e12, "sm_count": 1e308})",
                                R"({"memory_bytes_per_s": 1e12, "l2_bytes": 1e300})"}) {
    SCOPED_TRACE(bad);
    try {
      load_ceilings_file(dir.write("peaks.json", bad));
      ADD_FAILURE() << "accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("must be a positive number, from"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(load_ceilings_file(dir.write("ok.json", R"({"memory_bytes_per_s": 4.8e12, "sm_count": 132})")));
}

TEST(HostileMinor, NumbersCli11TookAreRefused) {
  TempDir dir;
  const std::string trace = dir.write("t.json", kOneOp);
  for (const std::string args : {"--step -1", "--step 0x10", "--step 1e3", "--step ''", "--rows -1",
                                 "--rows 99999999999999999999", "--rows 2000000", "--peaks ''"}) {
    SCOPED_TRACE(args);
    const CliRun r = whyslow(dir, "explain " + args + " '" + trace + "'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  }
  EXPECT_EQ(whyslow(dir, "explain --rows 0 '" + trace + "'").status, 0);
  EXPECT_EQ(whyslow(dir, "kernels --rows 5 '" + trace + "'").status, 0);
}

TEST(HostileMinor, AStepNumberThatNamesSeveralStepsIsAnError) {
  TempDir dir;
  std::vector<std::string> ev;
  for (const int ts : {0, 100, 200})
    ev.push_back(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":)" +
                 std::to_string(ts) + R"(,"dur":50})");
  const std::string trace = dir.write("t.json", trace_json(ev));
  const CliRun r = whyslow(dir, "explain --step 1 '" + trace + "'");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("has 3 steps named ProfilerStep#1, starting at +0, +100 µs, +200 µs"), std::string::npos)
      << r.err;
}

TEST(HostileMinor, TwoHundredThousandThreadsDoNotMakeTwoHundredThousandLanes) {
  TempDir dir;
  constexpr int kThreads = 200'000;
  const Trace t = load_trace(dir.write("t.json", testing::one_op_per_thread(kThreads)));
  const Facts f = analyze(t);
  const std::string page = render_html(t, f, explain(t, f));
  const size_t at = page.find("\"hidden_lanes\":");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(std::stoll(page.substr(at + 15)), kThreads - 1000);
  EXPECT_LT(page.size(), size_t{8} << 20) << "a 20 MB page before";
}

}  // namespace
}  // namespace whyslow
