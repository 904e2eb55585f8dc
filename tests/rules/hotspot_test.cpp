// hotspot: descending from the steps while one group of children holds ≥ 50 % of its parent's
// CPU or GPU time, the innermost code of the user's (docs/JSON.md); the split where none does; a
// warning when its cost is many small launches from a loop in its own code (≥ 16 launches a call,
// ≤ 10 µs per kernel, less GPU than CPU, one name ≥ 8 times in a call) or a sync (≥ 50 % of its CPU
// time blocked).
#include "analysis/blocks/block_groups.hpp"
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

constexpr int64_t kStepCpu = 10'000'000, kStepGpu = 1'000'000;

// A block row under `parent` (UINT32_MAX: top level) with its CPU and GPU time; one call.
uint32_t add_block(Trace& t, Facts& f, const char* name, uint32_t parent, int64_t cpu_ns, int64_t gpu_ns,
                   BlockKind kind = BlockKind::Function, bool user = true) {
  BlockRow r;
  r.name = t.names.intern(name);
  r.location = t.names.intern(std::string("model.py(42): ") + name);
  r.kind = kind, r.user_code = user, r.parent = parent, r.calls = 1;
  r.cpu_total_ns = cpu_ns, r.self_cpu_ns = cpu_ns, r.gpu_ns = gpu_ns;
  r.longest_call = add_event(t, EventKind::PythonFunction, name, 0, cpu_ns);
  f.blocks.rows.push_back(r);
  group_blocks(t, f.blocks);  // as code_blocks() leaves them: every row in its group
  return static_cast<uint32_t>(f.blocks.rows.size() - 1);
}

Facts step_facts() {
  Facts f;
  f.blocks.basis_cpu_ns = kStepCpu, f.blocks.basis_gpu_ns = kStepGpu;
  return f;
}

std::string hotspot_name(const Trace& t, const Finding& x) {
  for (const EventRef& r : x.events)
    if (r.role == "longest call") return std::string(t.names.view(t.name[r.event]));
  return "";
}

TEST(HotspotEdges, NoBlocksIsSilent) {
  Trace t;
  expect_outcome(run_rule(rule_hotspot, t, step_facts()), kSilent, t);
}

// No block holds half of the steps: their split is the finding (issue 29), information only.
TEST(HotspotEdges, NoBlockHoldingHalfTheStepGivesTheSplit) {
  Trace t;
  Facts f = step_facts();
  add_block(t, f, "a", UINT32_MAX, kStepCpu / 2 - 1, kStepGpu / 2 - 1);
  add_block(t, f, "b", UINT32_MAX, kStepCpu / 2 - 2, kStepGpu / 2 - 1);
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_NE(x->title.find("No one block holds the window's CPU time: a 50 %, b 50 %"), std::string::npos) << x->title;
  EXPECT_EQ(evidence(*x, "parts"), 2);
}

TEST(HotspotEdges, HalfTheStepsCpuIsEnough) {
  Trace t;
  Facts f = step_facts();
  add_block(t, f, "a", UINT32_MAX, kStepCpu / 2, 0);
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "cpu_pct"), 50);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_pct"), 0);
  EXPECT_DOUBLE_EQ(evidence(*x, "line"), 42);
}

// When the steps' GPU work is at least their duration, the GPU sets the pace: the descent follows GPU time.
TEST(HotspotEdges, HalfTheStepsGpuIsEnoughWhenTheGpuSetsThePace) {
  Trace t;
  Facts f = step_facts();
  f.blocks.basis_gpu_ns = kStepCpu;
  add_block(t, f, "small_cpu", UINT32_MAX, 1'000, kStepCpu / 2);
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_pct"), 50);
  f.blocks.rows[0].gpu_ns = kStepCpu / 2 - 1, f.blocks.rows[0].cpu_total_ns = kStepCpu;  // all the CPU, not half the GPU
  expect_outcome(run_rule(rule_hotspot, t, f), kSilent, t);
}

TEST(HotspotEdges, CpuPacedStepsIgnoreTheGpuShare) {
  Trace t;
  Facts f = step_facts();
  f.blocks.basis_gpu_ns = kStepCpu - 1;  // just under the steps' duration: the CPU sets the pace
  add_block(t, f, "all_the_gpu", UINT32_MAX, kStepCpu / 2 - 1, kStepCpu - 1);
  expect_outcome(run_rule(rule_hotspot, t, f), kSilent, t);
}

// The library frame that holds most of the hotspot's CPU time (half of it, not of its parent frame).
TEST(HotspotEdges, NamesTheDeepestLibraryFrameHoldingHalfTheBlock) {
  Trace t;
  Facts f = step_facts();
  add_block(t, f, "mine", UINT32_MAX, 6'000'000, 0);
  auto frame = [&](const char* name, uint32_t parent, int64_t ns) {
    LibraryFrameRow l;
    l.name = t.names.intern(name), l.block = 0, l.parent = parent, l.calls = 1, l.cpu_total_ns = ns;
    f.blocks.library_frames.push_back(l);
  };
  frame("torch/a.py(1): outer", UINT32_MAX, 5'000'000);
  frame("torch/a.py(2): half", 0, 3'000'000);          // half of the block
  frame("torch/a.py(3): under_half", 1, 2'999'999);    // most of its parent, under half of the block
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "library_us"), 3'000);
  EXPECT_NE(x->detail.find("torch/a.py(2): half"), std::string::npos) << x->detail;
}

TEST(HotspotEdges, DescendsWhileOneChildHoldsHalfItsParent) {
  Trace t;
  Facts f = step_facts();
  const uint32_t a = add_block(t, f, "a", UINT32_MAX, 9'000'000, 0);
  const uint32_t b = add_block(t, f, "b", a, 4'500'000, 0);       // exactly half of a
  add_block(t, f, "c", b, 4'500'000 / 2 - 1, 0);                  // just under half of b
  add_block(t, f, "d", b, 4'500'000 / 2 - 1, 0);
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_EQ(hotspot_name(t, *x), "b");
}

TEST(HotspotEdges, StopsAtTheUsersBlockAboveALibraryModule) {
  Trace t;
  Facts f = step_facts();
  const uint32_t a = add_block(t, f, "mine", UINT32_MAX, 9'000'000, 0, BlockKind::Module);
  add_block(t, f, "nn.Module: Linear_0", a, 8'000'000, 0, BlockKind::Module, /*user=*/false);
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_EQ(hotspot_name(t, *x), "mine");
}

struct CostCase {
  const char* name;
  uint64_t launches, kernels;
  int64_t gpu_ns, sync_ns;
  uint32_t repeated_calls;  // the most calls of one name directly beneath one call
  Severity want;
};

// A block of 6 ms CPU (60 % of the step), one call.
const CostCase kCosts[] = {
    {"sixteen_launches_of_ten_us_from_a_loop_are_many_small", 16, 16, 160'000, 0, 8, Severity::Warning},
    {"many_small_launches_without_a_loop_of_its_own_are_info", 16, 16, 160'000, 0, 7, Severity::Info},
    {"fifteen_launches_are_not_many", 15, 15, 150'000, 0, 8, Severity::Info},
    {"kernels_over_ten_us_are_not_small", 16, 16, 160'016, 0, 8, Severity::Info},
    {"more_gpu_than_cpu_is_gpu_work", 600, 600, 6'000'000, 0, 8, Severity::Info},
    {"half_the_cpu_in_syncs_is_a_sync", 1, 1, 1'000, 3'000'000, 0, Severity::Warning},
    {"just_under_half_in_syncs_is_cpu_work", 1, 1, 1'000, 2'999'999, 0, Severity::Info},
};

class HotspotCost : public ::testing::TestWithParam<CostCase> {};

TEST_P(HotspotCost, SeverityFollowsTheKindOfCost) {
  const CostCase& c = GetParam();
  Trace t;
  Facts f = step_facts();
  const uint32_t b = add_block(t, f, "loop", UINT32_MAX, 6'000'000, c.gpu_ns);
  BlockRow& r = f.blocks.rows[b];
  r.launches = c.launches, r.kernels = c.kernels, r.repeated_calls = c.repeated_calls;
  r.cpu_breakdown[static_cast<size_t>(CpuCategory::SyncWait)] = c.sync_ns;
  const auto x = expect_outcome(run_rule(rule_hotspot, t, f), fires(FindingId::hotspot, c.want), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "launches_per_call"), static_cast<double>(c.launches));
  EXPECT_DOUBLE_EQ(evidence(*x, "sync_wait_us"), c.sync_ns / 1e3);
}

INSTANTIATE_TEST_SUITE_P(Rules, HotspotCost, ::testing::ValuesIn(kCosts), case_name<CostCase>);

}  // namespace
}  // namespace whyslow
