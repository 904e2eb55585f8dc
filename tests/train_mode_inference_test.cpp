// Issue 44 class 11: dropout drawing masks with no backward pass is a model left in training mode.
// Generated traces; an H200 recording of a BertModel served without .eval() (record_truth_round3.py
// aside_eval_dropout, not kept) drew 45 masks over 5 steps and got the finding second, after
// overhead_bound (the issue 44 closing note).
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "loader_test_util.hpp"
#include "trace_generator.hpp"

namespace whyslow {
namespace {

// Three forward steps of a layer with dropout; `backward` adds autograd's engine after each.
std::string dropout_steps(bool backward, bool draws_masks) {
  testing::GeneratedTrace t;
  for (int64_t s = 0; s < 3; ++s) {
    const int64_t at = 1000 * s;
    t.event("user_annotation", "ProfilerStep#" + std::to_string(s), 1, 1, at, 900);
    t.event("cpu_op", "aten::linear", 1, 1, at + 10, 200);
    t.event("cpu_op", "aten::dropout", 1, 1, at + 300, 200);
    if (draws_masks) t.event("cpu_op", "aten::native_dropout", 1, 1, at + 310, 150);
    if (backward) t.event("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 1, 1, at + 600, 200);
  }
  return t.take();
}

TEST(TrainModeInference, MasksWithoutBackwardAreAModelInTrainingMode) {
  testing::TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("serve.json", dropout_steps(false, true)));
  const Finding* x = testing::find(e, FindingId::train_mode_inference);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(testing::evidence(*x, "mask_calls"), 3);
  EXPECT_NE(x->try_next.front().find("model.eval()"), std::string::npos);
}

TEST(TrainModeInference, TrainingAndEvalModeAreNot) {
  testing::TempDir dir;
  // Training: the backward runs. Eval mode: aten::dropout returns its input and draws nothing.
  for (const auto& [name, backward, masks] : {std::tuple{"train.json", true, true}, std::tuple{"eval.json", false, false}}) {
    const testing::Explained e = testing::explain_file(dir.write(name, dropout_steps(backward, masks)));
    EXPECT_EQ(testing::find(e, FindingId::train_mode_inference), nullptr) << name;
  }
}

}  // namespace
}  // namespace whyslow
