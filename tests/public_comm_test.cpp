// Communication and ranks on public traces, read in place from ../shared/traces/public and skipped
// when absent. Numbers from tools/oracles/comm_overlap.py (exact integer ns over the raw JSON) and,
// for the MI300 trace, TraceLens's own reference GPU timeline
// (tests/traces/mi300/resnet_act_checkpoint_recompute_perf_report_csvs/gpu_timeline.csv @ 0b848c3).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "analysis/core/intervals.hpp"
#include "analysis/ranks/cross_rank.hpp"
#include "explain/explain_ranks.hpp"
#include "test_support.hpp"
#include "trace/trace_set.hpp"

namespace whyslow {
namespace {

using testing::find;

namespace fs = std::filesystem;


const char* kMi300 = "AMD-AGI__TraceLens/tests__traces__mi300__resnet_act_checkpoint.json.gz";

TEST(PublicComm, Mi300ActivationCheckpointing) {
  const fs::path path = fs::path(WHYSLOW_PUBLIC_TRACES) / kMi300;
  if (!fs::exists(path)) GTEST_SKIP() << "corpus file absent: " << kMi300;
  const auto e = testing::explain_file(path.string());
  // comm_overlap.py: window compute 28713549, comm 71516523, exposed 55288507 ns.
  EXPECT_EQ(e.facts.window.compute_ns, 28'713'549);
  EXPECT_EQ(e.facts.window.comm_ns, 71'516'523);
  EXPECT_EQ(e.facts.window.exposed_comm_ns, 55'288'507);
  EXPECT_EQ(e.facts.comm.calls.size(), 17u);
  // A rank waiting in its collectives is not GPU-bound; its exposed communication is the finding.
  EXPECT_EQ(find(e.findings, FindingId::gpu_bound), nullptr);
  ASSERT_NE(find(e.findings, FindingId::exposed_comm), nullptr);
  EXPECT_NE(find(e.findings, FindingId::exposed_comm)->severity, Severity::Info);

  // TraceLens counts only GPU events with a launch in the trace, and kernels only as computation.
  // The same intervals from whyslow's model give its numbers (it reports ms as floats: ±0.1 µs).
  std::vector<Interval> compute, comm;
  for (const CollectiveCall& c : e.facts.comm.calls)
    if (e.trace.launch_link[c.kernel] != kNoEvent) comm.emplace_back(e.trace.start_ns[c.kernel], e.trace.end_ns(c.kernel));
  for (EventId k = 0; k < e.trace.size(); ++k)
    if (e.trace.kind[k] == EventKind::Kernel && e.trace.launch_link[k] != kNoEvent &&
        std::none_of(e.facts.comm.calls.begin(), e.facts.comm.calls.end(), [&](const CollectiveCall& c) { return c.kernel == k; }))
      compute.emplace_back(e.trace.start_ns[k], e.trace.end_ns(k));
  const int64_t compute_ns = union_length(compute), comm_ns = union_length(comm);
  EXPECT_NEAR(compute_ns, 19'234'131.8359375, 100);   // computation_time 19.2341318359375 ms
  EXPECT_NEAR(comm_ns, 47'200'310.05859375, 100);     // total_comm_time 47.20031005859375 ms
  EXPECT_NEAR(exposed_length(comm, compute), 35'283'106.4453125, 100);  // exposed_comm_time 35.2831064453125 ms
}

std::vector<std::string> dlrm_ranks() {
  const fs::path dir = fs::path(WHYSLOW_PUBLIC_TRACES) / "facebookresearch__param";
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().filename().string().find("dlrm_kineto__worker") != std::string::npos) out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PublicComm, DlrmEightRanks) {
  const auto paths = dlrm_ranks();
  if (paths.size() != 8) GTEST_SKIP() << "the 8 DLRM ranks are absent";
  std::vector<RankDigest> digests(paths.size());
  load_each(paths, {}, [&](size_t i, Trace&& t) {
    const Facts f = analyze(t);
    digests[i] = make_digest(t, f, rank_of(t));
  });
  const CrossRankFacts f = cross_rank(std::move(digests));
  ASSERT_EQ(f.ranks.size(), 8u);
  for (size_t r = 0; r < 8; ++r) EXPECT_EQ(f.ranks[r].rank, static_cast<int32_t>(r));
  EXPECT_FALSE(f.matched_by_seq);  // the 2023 record_param_comms has no parameters
  // comm_overlap.py --skew over the same files: 8 collectives on every rank (5 all-to-all, 3 all-reduce).
  ASSERT_EQ(f.collectives.size(), 8u);
}

}  // namespace
}  // namespace whyslow
