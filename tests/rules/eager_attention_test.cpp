// eager_attention at its edges: matmul → softmax → matmul groups fire when a fused kernel would save
// ≥ 10 µs and ≥ 2 % of GPU busy time, the fused kernel taken at 35 % of its roofline time and never
// under 2 µs a call (docs/JSON.md); without a datasheet roof for the GPU there is no estimate and
// no finding. (Which ops form the pattern is the analysis pass's: eager_attention.cpp.)
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct GroupSpec {
  uint64_t calls;
  int64_t gpu_ns;          // all calls
  int64_t fused_floor_ns;  // one call at the roofline; 0: GPU unknown
};

struct Case {
  const char* name;
  std::vector<GroupSpec> groups;
  int64_t gpu_busy_ns;
  Outcome want;
  int64_t saving_ns;  // expected possible_saving_us × 1000 when it fires
};

constexpr Outcome kFires = fires(FindingId::eager_attention, Severity::Warning);

const Case kCases[] = {
    // floor 3.5 µs → 10 µs a call at 35 %; one call; kMinSavingNs = 10 µs (busy 100 µs: 2 % is 2 µs)
    {"saving_9_999_ns_is_silent", {{1, 19'999, 3'500}}, 100'000, kSilent, 0},
    {"saving_10_us_fires", {{1, 20'000, 3'500}}, 100'000, kFires, 10'000},
    // kMinShareOfGpu = 0.02 of 1 ms busy = 20 µs
    {"saving_19_999_ns_of_1_ms_busy_is_silent", {{1, 29'999, 3'500}}, 1'000'000, kSilent, 0},
    {"saving_20_us_of_1_ms_busy_fires", {{1, 30'000, 3'500}}, 1'000'000, kFires, 20'000},
    // kFusedCallMinNs = 2 µs: 10 tiny calls (floor 10 ns) count 20 µs, not 0.29 µs
    {"tiny_calls_count_2_us_each", {{10, 29'999, 10}}, 100'000, kSilent, 0},
    {"tiny_calls_saving_10_us_fires", {{10, 30'000, 10}}, 100'000, kFires, 10'000},
    // groups add up
    {"two_groups_add_up", {{1, 15'000, 3'500}, {1, 15'000, 3'500}}, 100'000, kFires, 10'000},
    // an unknown GPU (no datasheet): no estimate, no finding
    {"unknown_gpu_is_silent", {{1, 1'000'000, 0}}, 1'000'000, kSilent, 0},
    {"nothing_found_is_silent", {}, 1'000'000, kSilent, 0},
};

class EagerAttentionEdges : public ::testing::TestWithParam<Case> {};

EagerAttention add_group(Trace& t, const GroupSpec& spec) {
  EagerAttention a;
  const int64_t at = static_cast<int64_t>(t.size()) * 100'000;
  a.qk = add_event(t, EventKind::CpuOp, "aten::matmul", at, 5'000);
  a.softmax = add_event(t, EventKind::CpuOp, "aten::softmax", at + 10'000, 5'000);
  a.pv = add_event(t, EventKind::CpuOp, "aten::matmul", at + 20'000, 5'000);
  a.scores_dims = {4, 8, 1024, 1024};
  a.precision = Precision::BF16;
  a.calls = spec.calls;
  a.gpu_ns = spec.gpu_ns;
  a.kernels = 4 * spec.calls;
  a.scores_bytes = 67'108'864;
  a.flops = 8'589'934'592;
  a.fused_bytes = 16'777'216;
  a.fused_floor_ns = spec.fused_floor_ns;
  return a;
}

TEST_P(EagerAttentionEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  f.gpu_busy_ns = c.gpu_busy_ns;
  uint64_t calls = 0;
  int64_t ns = 0;
  for (const GroupSpec& g : c.groups) {
    f.eager_attention.push_back(add_group(t, g));
    calls += g.calls;
    ns += g.gpu_ns;
  }
  const auto x = expect_outcome(run_rule(rule_eager_attention, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "calls"), static_cast<double>(calls));
  EXPECT_DOUBLE_EQ(evidence(*x, "attention_us"), ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "scores_bytes"), 67'108'864.0);
  EXPECT_DOUBLE_EQ(evidence(*x, "flops"), 8'589'934'592.0);
  EXPECT_DOUBLE_EQ(evidence(*x, "sdpa_estimate_us"), (ns - c.saving_ns) / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "possible_saving_us"), c.saving_ns / 1e3);
  const EagerAttention& first = f.eager_attention.front();
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{first.qk, first.softmax, first.pv}));
}

INSTANTIATE_TEST_SUITE_P(Rules, EagerAttentionEdges, ::testing::ValuesIn(kCases), case_name<Case>);

}  // namespace
}  // namespace whyslow
