// Issue 44 class 6, SDPA's backend: the same attention stack as sdpa_cudnn_lengths with SDPA held
// to its math path (tools/record_truth_round3.py, H200, 2026-12-05). The matmul → softmax → matmul
// it runs is SDPA's fallback, not the user's hand-written attention: the finding says so, and its
// advice is to learn why the fused backends refused the call, not to call SDPA.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace whyslow {
namespace {

TEST(SdpaMathFallback, TheFallbackIsNamedAsSdpasNotTheUsers) {
  const testing::Explained e = testing::explain_file(testing::fixture_in("truth_round3", "sdpa_math_fallback.json.gz"));
  const Finding* x = testing::find(e, FindingId::eager_attention);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->title.rfind("SDPA runs its math fallback", 0), 0u) << x->title;
  EXPECT_NE(x->detail.find("aten::_scaled_dot_product_attention_math"), std::string::npos);
  EXPECT_EQ(x->try_next.front().find("Call torch.nn.functional.scaled_dot_product_attention"), std::string::npos);
  EXPECT_EQ(testing::evidence(*x, "calls"), 20);  // 4 layers × 5 steps, as recorded
}

// Hand-written attention (tests/fixtures/compile/attn_eager) keeps its advice: call SDPA.
TEST(SdpaMathFallback, HandWrittenAttentionIsStillTheUsers) {
  const testing::Explained e = testing::explain_file(testing::fixture_in("compile", "attn_eager.json.gz"));
  const Finding* x = testing::find(e, FindingId::eager_attention);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->title.rfind("Attention written as", 0), 0u) << x->title;
}

}  // namespace
}  // namespace whyslow
