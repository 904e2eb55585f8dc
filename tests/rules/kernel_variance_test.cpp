// kernel_variance at its edges: a kernel with the same grid, block, linked op and op input shapes
// taking ≥ 1.5× its median and ≥ 5 µs more in some call fires (docs/JSON.md); calls without a
// linked op, the cold-start step and collectives excluded.
#include <algorithm>
#include <optional>

#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

constexpr Outcome kFires = fires(FindingId::kernel_variance, Severity::Warning);

// Calls of one kernel, one per 1 ms, each launched by a cudaLaunchKernel just before it, inside
// the op it is linked to: a fresh aten::mm unless `op` names one (kNoEvent: no linked op).
struct KernelCalls {
  Trace t;
  Facts f;
  KernelRow& row;
  explicit KernelCalls(std::string_view name) : row(f.kernels.emplace_back()) { row.name = t.names.intern(name); }
  EventId call(int64_t dur_ns, const GpuDetail& launch = launch_config(132, 256),
               std::optional<EventId> linked_op = std::nullopt) {
    const int64_t at = static_cast<int64_t>(row.events.size()) * 1'000'000;
    const EventId op = linked_op ? *linked_op : add_event(t, EventKind::CpuOp, "aten::mm", at, 10'000);
    const EventId api = add_event(t, EventKind::Runtime, "cudaLaunchKernel", at, 3'000);
    const EventId k = add_gpu_event(t, EventKind::Kernel, t.names.view(row.name), at + 5'000, dur_ns, launch);
    link_launch(t, api, k);
    t.op_link[k] = op;
    row.events.push_back(k);
    ++row.calls;
    return k;
  }
};

struct Case {
  const char* name;
  std::vector<int64_t> durations_ns;
  Outcome want;
  // The op each call is linked to (nullptr: none); empty: aten::mm for every call.
  std::vector<const char*> ops = {};
};

const Case kCases[] = {
    // kSlowRatio = 1.5 (a 20 µs median: the excess is over 5 µs either way)
    {"1_49995x_the_median_is_silent", {20'000, 20'000, 29'999}, kSilent},
    {"1_5x_the_median_fires", {20'000, 20'000, 30'000}, kFires},
    // kMinExcessNs = 5 µs (an 8 µs median: the ratio is over 1.5 either way)
    {"4_999_ns_over_the_median_is_silent", {8'000, 8'000, 12'999}, kSilent},
    {"5_us_over_the_median_fires", {8'000, 8'000, 13'000}, kFires},
    // kMinCalls = 3; with two calls the median is the slower one, so none is slow.
    {"two_calls_are_silent", {8'000, 100'000}, kSilent},
    {"the_median_is_of_the_calls_not_the_mean", {10'000, 10'000, 10'000, 10'000, 1'000'000}, kFires},
    // Grouped by linked op: a call under another op, or under none, is another (or no known)
    // workload (Qwen H100: unlinked GEMMs before the first step beside a different-K GEMM).
    {"one_op_fires", {20'000, 20'000, 20'000, 60'000}, kFires, {"aten::mm", "aten::mm", "aten::mm", "aten::mm"}},
    {"a_call_under_another_op_is_silent", {20'000, 20'000, 20'000, 60'000}, kSilent,
     {"aten::mm", "aten::mm", "aten::mm", "aten::addmm"}},
    {"a_call_without_a_linked_op_is_left_out", {20'000, 20'000, 20'000, 60'000}, kSilent,
     {"aten::mm", "aten::mm", "aten::mm", nullptr}},
    {"calls_without_a_linked_op_are_not_a_group", {20'000, 20'000, 20'000, 60'000}, kSilent,
     {nullptr, nullptr, nullptr, nullptr}},
};

class KernelVarianceEdges : public ::testing::TestWithParam<Case> {};

TEST_P(KernelVarianceEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  KernelCalls k("sm90_xmma_gemm_f32f32_f32f32_f32_tn_n");
  EventId slowest = kNoEvent;
  for (size_t i = 0; i < c.durations_ns.size(); ++i) {
    const int64_t d = c.durations_ns[i];
    std::optional<EventId> op;
    if (!c.ops.empty()) {
      const int64_t at = static_cast<int64_t>(i) * 1'000'000;
      op = c.ops[i] ? add_event(k.t, EventKind::CpuOp, c.ops[i], at, 10'000) : kNoEvent;
    }
    const EventId e = k.call(d, launch_config(132, 256), op);
    if (slowest == kNoEvent || d > k.t.dur_ns[slowest]) slowest = e;
  }
  const auto x = expect_outcome(run_rule(rule_kernel_variance, k.t, k.f), c.want, k.t);
  if (!x) return;
  std::vector<int64_t> sorted = c.durations_ns;
  std::sort(sorted.begin(), sorted.end());
  const int64_t median = sorted[sorted.size() / 2];
  EXPECT_DOUBLE_EQ(evidence(*x, "kernels_affected"), 1);
  EXPECT_DOUBLE_EQ(evidence(*x, "median_us"), median / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "slowest_us"), sorted.back() / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "excess_us"), (sorted.back() - median) / 1e3);
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{slowest});
}

INSTANTIATE_TEST_SUITE_P(Rules, KernelVarianceEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// Calls on another grid are another workload: three calls split 2 + 1 have no median to compare.
TEST(KernelVariance, ComparesCallsOfOneLaunchConfiguration) {
  KernelCalls same("gemm"), split("gemm");
  for (KernelCalls* k : {&same, &split}) {
    k->call(20'000);
    k->call(20'000);
  }
  same.call(30'000);
  split.call(30'000, launch_config(264, 256));
  expect_outcome(run_rule(rule_kernel_variance, same.t, same.f), kFires, same.t);
  expect_outcome(run_rule(rule_kernel_variance, split.t, split.f), kSilent, split.t);
}

// One GEMM kernel also serves other shapes on the same grid (another K): those are compared apart.
TEST(KernelVariance, ComparesCallsOfOneOpShape) {
  KernelCalls same("gemm"), split("gemm");
  for (KernelCalls* k : {&same, &split}) {
    for (const char* dims : {"[[64, 64], [64, 64]]", "[[64, 64], [64, 64]]"}) {
      const EventId op = add_event(k->t, EventKind::CpuOp, "aten::mm", 0, 1);
      set_input_dims(k->t, op, dims);
      k->call(20'000, launch_config(132, 256), op);
    }
    const EventId op = add_event(k->t, EventKind::CpuOp, "aten::mm", 0, 1);
    set_input_dims(k->t, op, k == &same ? "[[64, 64], [64, 64]]" : "[[64, 128], [128, 64]]");
    k->call(30'000, launch_config(132, 256), op);
  }
  expect_outcome(run_rule(rule_kernel_variance, same.t, same.f), kFires, same.t);
  expect_outcome(run_rule(rule_kernel_variance, split.t, split.f), kSilent, split.t);
}

// A collective waits inside the kernel for the other ranks: its time is theirs, not its own.
TEST(KernelVariance, LeavesCollectivesOut) {
  for (const char* name : {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_SendRecv"}) {
    KernelCalls k(name);
    for (int64_t d : {20'000, 20'000, 300'000}) k.call(d);
    expect_outcome(run_rule(rule_kernel_variance, k.t, k.f), kSilent, k.t);
  }
}

// The cold-start step's calls are one-off slow (module loading, cold caches): not variance.
TEST(KernelVariance, LeavesTheColdStartStepOut) {
  KernelCalls k("gemm");
  add_steps(k.t, k.f, 1, {500'000, 0, 0});     // the first call's launch is inside it
  add_steps(k.t, k.f, 1, {10'000'000, 0, 0});  // the others'
  for (int64_t d : {300'000, 20'000, 20'000, 20'000}) k.call(d);
  expect_outcome(run_rule(rule_kernel_variance, k.t, k.f), kFires, k.t);
  k.f.cold_start.step_index = 0;
  expect_outcome(run_rule(rule_kernel_variance, k.t, k.f), kSilent, k.t);
}

}  // namespace
}  // namespace whyslow
