// unfused_elementwise at its edges: pointwise chains whose fusion would save ≥ 10 µs and ≥ 2 %
// of GPU busy time fire (docs/JSON.md); the saving is the chains' time times the share of their
// bytes that are intermediates. (Which kernels form a chain, ≥ 1 MiB intermediates on one stream,
// is the analysis pass's: pointwise_chains.cpp.)
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct ChainSpec {
  int64_t ns;
  double bytes, saved_bytes;
};

struct Case {
  const char* name;
  std::vector<ChainSpec> chains;
  int64_t gpu_busy_ns;
  Outcome want;
};

constexpr Outcome kFires = fires(FindingId::unfused_elementwise, Severity::Info);

const Case kCases[] = {
    // kMinSavingNs = 10 µs (100 µs busy: 2 % is 2 µs); half the bytes are intermediates
    {"saving_9_999_ns_is_silent", {{19'998, 2e6, 1e6}}, 100'000, kSilent},
    {"saving_10_us_fires", {{20'000, 2e6, 1e6}}, 100'000, kFires},
    {"two_chains_saving_5_us_each_fire", {{10'000, 2e6, 1e6}, {10'000, 2e6, 1e6}}, 100'000, kFires},
    // kMinShareOfGpu = 0.02 of 1 ms busy
    {"saving_19_999_ns_of_1_ms_busy_is_silent", {{39'998, 2e6, 1e6}}, 1'000'000, kSilent},
    {"saving_20_us_of_1_ms_busy_fires", {{40'000, 2e6, 1e6}}, 1'000'000, kFires},
    {"no_chain_is_silent", {}, 1'000'000, kSilent},
};

class UnfusedElementwiseEdges : public ::testing::TestWithParam<Case> {};

// A chain of mul → add → relu kernels, each launched by its op.
PointwiseChain add_chain(Trace& t, const ChainSpec& spec) {
  PointwiseChain c{{}, spec.ns, spec.bytes, spec.saved_bytes};
  for (const char* op : {"aten::mul", "aten::add", "aten::relu"}) {
    const int64_t at = static_cast<int64_t>(t.size()) * 100'000;
    const EventId o = add_event(t, EventKind::CpuOp, op, at, 5'000);
    const EventId k = add_gpu_event(t, EventKind::Kernel, "vectorized_elementwise_kernel", at + 10'000, spec.ns / 3);
    t.op_link[k] = o;
    c.kernels.push_back(k);
  }
  return c;
}

TEST_P(UnfusedElementwiseEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  f.gpu_busy_ns = c.gpu_busy_ns;
  int64_t ns = 0;
  double bytes = 0, saved = 0;
  for (const ChainSpec& s : c.chains) {
    f.roofline.chains.push_back(add_chain(t, s));
    ns += s.ns, bytes += s.bytes, saved += s.saved_bytes;
  }
  const auto x = expect_outcome(run_rule(rule_unfused_elementwise, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "chains"), static_cast<double>(c.chains.size()));
  EXPECT_DOUBLE_EQ(evidence(*x, "kernels"), 3.0 * c.chains.size());
  EXPECT_DOUBLE_EQ(evidence(*x, "chain_us"), ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "bytes"), bytes);
  EXPECT_DOUBLE_EQ(evidence(*x, "bytes_saved"), saved);
  EXPECT_DOUBLE_EQ(evidence(*x, "possible_saving_us"), static_cast<int64_t>(ns * saved / bytes) / 1e3);
  const PointwiseChain& first = f.roofline.chains.front();
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{first.kernels.front(), first.kernels.back()}));
}

INSTANTIATE_TEST_SUITE_P(Rules, UnfusedElementwiseEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// The events shown are the ends of the chain with the most intermediate bytes.
TEST(UnfusedElementwise, PointsAtTheLargestChain) {
  Trace t;
  Facts f;
  f.gpu_busy_ns = 100'000;
  f.roofline.chains.push_back(add_chain(t, {20'000, 4e6, 1e6}));
  f.roofline.chains.push_back(add_chain(t, {20'000, 4e6, 3e6}));
  f.roofline.chains.push_back(add_chain(t, {20'000, 4e6, 2e6}));
  const auto x = expect_outcome(run_rule(rule_unfused_elementwise, t, f), kFires, t);
  ASSERT_TRUE(x);
  const PointwiseChain& largest = f.roofline.chains[1];
  EXPECT_EQ(event_ids(*x), (std::vector<EventId>{largest.kernels.front(), largest.kernels.back()}));
}

}  // namespace
}  // namespace whyslow
