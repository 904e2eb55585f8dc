// Issue 13's public regression cases for loops and attention: traces recorded by other people,
// read in place from ../shared/traces/public and skipped when absent. The numbers were counted
// from the raw JSON with Python (Decimal, exact): the kernels launched, on the thread, from the
// start of each Q·Kᵀ matmul to the end of its P·V matmul, for every matmul → softmax → matmul of
// outermost ops (a script of its own, not whyslow's code).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "explain/finding.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::find;
using testing::evidence;

namespace fs = std::filesystem;
using testing::Explained;



// TimeSformer on an H100: 24 eager attentions (12 layers × time and space) take 134,613.199 µs of
// the 154,855.595 µs of kernel time (GEMMs 45.0 ms, softmax 68.8 ms, scale and mask 20.8 ms).
TEST(PublicAttention, TimesformerIsMostlyEagerAttention) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz", e);
  const Finding* x = find(e, FindingId::eager_attention);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity, Severity::Warning);
  EXPECT_DOUBLE_EQ(evidence(*x, "calls"), 24);
  EXPECT_DOUBLE_EQ(evidence(*x, "attention_us"), 134'613.199);
  EXPECT_EQ(e.facts.eager_attention.front().scores_dims, (std::vector<int64_t>{8, 12, 3137, 3137}));
  EXPECT_LT(evidence(*x, "sdpa_estimate_us"), evidence(*x, "attention_us"));
}

// OWLv2 on an H100: 180 eager attentions through aten::bmm take 492,505.587 µs of 551,451.628 µs of
// kernel time; its one step runs the pipeline over 5 inputs, each a DataLoader fetch and a forward.
TEST(PublicAttention, Owlv2EagerAttentionAndItsFiveBatches) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz", e);
  const Finding* x = find(e, FindingId::eager_attention);
  ASSERT_NE(x, nullptr);
  EXPECT_DOUBLE_EQ(evidence(*x, "calls"), 180);
  EXPECT_DOUBLE_EQ(evidence(*x, "attention_us"), 492'505.587);
  ASSERT_EQ(e.facts.loops.size(), 1u);
  EXPECT_EQ(e.facts.loops.front().iterations.size(), 5u);
  EXPECT_EQ(e.facts.loops.front().tokens_per_iteration, 0) << "a vision pipeline's batches are not decode passes";
}

// LLM serving traces whose steps are one decode each (sglang) or that have no steps (vLLM): no loop
// to split, and no eager attention (they run flash/paged attention kernels).
TEST(PublicAttention, ServingDecodeTracesHaveNoFalseLoops) {
  for (const char* rel : {"AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__capture_traces__bs_32_rank0.json.gz",
                          "AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz",
                          "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz"}) {
    Explained e;
    if (!testing::load_public(rel, e)) GTEST_SKIP() << "corpus file absent: " << rel;
    EXPECT_TRUE(e.facts.loops.empty()) << rel;
    EXPECT_EQ(find(e, FindingId::eager_attention), nullptr) << rel;
  }
}

}  // namespace
}  // namespace whyslow
