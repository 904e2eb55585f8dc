// `whyslow diff` of two ranks of one job (the committed DLRM ranks 0 and 2, tests/fixtures/ranks/):
// the same workload, no side to keep, and the difference said as compute and communication.
// Numbers from tools/oracles/comm_overlap.py over the same files.
#include <gtest/gtest.h>

#include <string>

#include "diff/diff.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

std::string ranks_fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/ranks/" + name; }

const Component* component(const Diff& d, const std::string& key) {
  for (const Component& c : d.components)
    if (c.key == key) return &c;
  return nullptr;
}

TEST(RanksDiff, TwoRanksOfOneJobAreOneWorkload) {
  const auto a = testing::explain_file(ranks_fixture("dlrm_worker0.json.gz"));
  const auto b = testing::explain_file(ranks_fixture("dlrm_worker2.json.gz"));
  EXPECT_EQ(a.trace.distributed.rank, 0);
  EXPECT_EQ(b.trace.distributed.rank, 2);
  const Diff d = diff_traces(a.trace, a.facts, b.trace, b.facts);
  EXPECT_TRUE(d.verdict.comparable);
  EXPECT_TRUE(d.verdict.same_job);
  EXPECT_TRUE(d.verdict.advice.keep.empty());
  EXPECT_NE(d.verdict.summary.find("ranks 0 and 2 of one 8-rank job"), std::string::npos) << d.verdict.summary;
  for (const std::string& t : d.verdict.try_next) EXPECT_EQ(t.find("Keep"), std::string::npos) << t;
  // comm_overlap.py, ProfilerStep#10: comm 5,798,000 ns on rank 0, 3,492,000 ns on rank 2; compute
  // 1,053,000 and 1,087,000 ns.
  const Component* comm = component(d, "comm_us");
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->a.median, 5'798'000);
  EXPECT_EQ(comm->b.median, 3'492'000);
  EXPECT_EQ(component(d, "compute_us")->a.median, 1'053'000);
  EXPECT_EQ(component(d, "compute_us")->b.median, 1'087'000);
  EXPECT_LT(comm->delta(), 0);  // rank 2 arrives later, so it waits less inside the collectives
  // The 2023 record_param_comms has no parameters: c10d::alltoall_base_ above it names the 5
  // SendRecv kernels an all-to-all, c10d::allreduce_ the other 3.
  size_t all_to_all = 0, all_reduce = 0;
  for (const CollectiveCall& c : a.facts.comm.calls) {
    all_to_all += c.kind == CollectiveKind::AllToAll;
    all_reduce += c.kind == CollectiveKind::AllReduce;
  }
  EXPECT_EQ(all_to_all, 5u);
  EXPECT_EQ(all_reduce, 3u);
}

TEST(RanksDiff, ARunAgainstItselfIsNoJob) {
  // The same file twice is one rank, not two: the usual before/after verdict applies.
  const auto a = testing::explain_file(ranks_fixture("dlrm_worker0.json.gz"));
  const Diff d = diff_traces(a.trace, a.facts, a.trace, a.facts);
  EXPECT_FALSE(d.verdict.same_job);
  EXPECT_EQ(component(d, "comm_us")->delta(), 0);
}

}  // namespace
}  // namespace whyslow
