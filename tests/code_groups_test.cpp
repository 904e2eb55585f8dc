// Issue 29 on the H200 recordings of tests/fixtures/code_groups (README there: the raw-event sums
// an expert reads, written before whyslow's output was looked at): one module class in four places
// summed, backward credited to the module whose forward made it, a step split into parts, shares
// that stay shares, and findings ordered by what fixing them gives back. The block and group
// numbers themselves are checked against the Python oracle (tests/blocks_oracle.py).
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/blocks/block_groups.hpp"
#include "analysis/blocks/code_origin.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::evidence;
using testing::find;

std::string fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/code_groups/" + name; }
bool contains(const std::string& text, std::string_view words) { return text.find(words) != std::string::npos; }

const BlockGroup* group(const BlockFacts& b, std::string_view label) {
  for (const BlockGroup& g : b.groups)
    if (g.label == label) return &g;
  return nullptr;
}

TEST(CodeGroups, ModuleClassFromItsInstances) {
  EXPECT_EQ(module_class("nn.Module: Rotary_3"), "Rotary");
  EXPECT_EQ(module_class("nn.Module: GPT2Block_11"), "GPT2Block");
  EXPECT_EQ(module_class("nn.Module: Block_"), "Block_");
  EXPECT_EQ(module_class("nn.Module: my_layer_x"), "my_layer_x");
  EXPECT_EQ(module_class("forward"), "forward") << "not a module event: as it is";
}

TEST(CodeGroups, GeneratedCodeIsLibraryCode) {
  EXPECT_TRUE(is_library_frame("/tmp/torchinductor_root/ab/cabcdef.py(12): call"));
  EXPECT_TRUE(is_library_frame("/home/me/.triton/cache/x/kernel.py(3): f"));
  EXPECT_TRUE(is_library_frame("<eval_with_key>.3(5): forward"));
  EXPECT_TRUE(is_library_frame("/work/torch_compile_debug/run_1/output_code.py(40): call"));
  EXPECT_FALSE(is_library_frame("inductor_tricks/model.py(4): forward")) << "a user's folder of that name";
}

// SmallGPT inference: Rotary_0..3, two calls each per forward, 40.7 ms of the steps' 51.9 ms (78 %):
// the launch-bound verdict first, then Rotary ×4 as a Python loop.
TEST(CodeGroups, RotaryInstancesSummedIntoTheHotspot) {
  const auto e = testing::explain_file(fixture("gpt_rotary.json.gz"));
  const BlockGroup* rotary = group(e.facts.blocks, "Rotary");
  ASSERT_NE(rotary, nullptr);
  EXPECT_EQ(rotary->instances, 4u);
  EXPECT_EQ(rotary->rows.size(), 4u);
  EXPECT_EQ(rotary->total.calls, 24u);
  EXPECT_EQ(rotary->total.cpu_total_ns, 40'709'010) << "Σ nn.Module: Rotary_* in the steps (tools/oracles/blocks.py)";
  EXPECT_GE(rotary->total.repeated_calls, 8u) << "the loop over 8 channel groups";
  ASSERT_GE(e.findings.size(), 2u);
  EXPECT_EQ(e.findings[0].id, FindingId::overhead_bound);
  const Finding& h = e.findings[1];
  ASSERT_EQ(h.id, FindingId::hotspot);
  EXPECT_EQ(h.severity, Severity::Warning);
  EXPECT_TRUE(contains(h.title, "Rotary ×4 (record_code_groups.py:70)")) << h.title;
  EXPECT_NEAR(evidence(h, "cpu_pct"), 78.4, 0.2);
  EXPECT_EQ(evidence(h, "instances"), 4);
  EXPECT_TRUE(contains(h.detail, "a loop in its own code")) << h.detail;
  EXPECT_TRUE(contains(h.try_next.front(), "Replace the Python loop in record_code_groups.py:70")) << h.try_next.front();
}

// The same model trained: backward (autograd's thread) holds 66 % of the step; 92.5 ms of its
// 170 ms of backward ops were made by Rotary's forward ops, whose loop costs in both passes.
TEST(CodeGroups, BackwardCreditedToTheModuleWhoseForwardMadeIt) {
  const auto e = testing::explain_file(fixture("gpt_rotary_train.json.gz"));
  const BlockFacts& b = e.facts.blocks;
  EXPECT_EQ(b.basis_backward_ns, 170'232'894);
  const BlockGroup* rotary = group(b, "Rotary");
  ASSERT_NE(rotary, nullptr);
  EXPECT_EQ(rotary->total.backward_cpu_ns, 92'504'293);
  EXPECT_EQ(rotary->total.backward_ops, 4u * 480);
  EXPECT_GT(rotary->total.backward_kernels, 0u);
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(contains(h->title, "backward holds 66 %")) << h->title;
  EXPECT_TRUE(contains(h->detail, "those made by Rotary ×4 (record_code_groups.py:70)'s forward take 92.5 ms (54 %)"))
      << h->detail;
  EXPECT_TRUE(contains(h->detail, "the loop costs in both passes")) << h->detail;
  EXPECT_EQ(h->severity, Severity::Warning);
  EXPECT_TRUE(contains(h->try_next.front(), "Most of the backward is Rotary's")) << h->try_next.front();
}

// forward 30 %, backward 46 %, optimizer 17 % of the MLP's steps: no one block holds them, so the
// split is the answer; the backward block gets the 3 kernels its own thread launched and the 39
// (1.66 ms) autograd's thread launched while it was open.
TEST(CodeGroups, ASpreadStepIsGivenAsItsSplit) {
  const auto e = testing::explain_file(fixture("mlp_train_blocks.json.gz"));
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::Info);
  EXPECT_TRUE(contains(h->title, "No one block holds the steps' CPU time: backward 46 %, forward 30 %, optimizer 17 %"))
      << h->title;
  const auto it = std::find_if(e.facts.blocks.rows.begin(), e.facts.blocks.rows.end(),
                               [&](const BlockRow& r) { return e.trace.names.view(r.name) == "backward"; });
  ASSERT_NE(it, e.facts.blocks.rows.end());
  EXPECT_EQ(it->kernels, 3u + 39u);
  EXPECT_EQ(it->other_thread_gpu_ns, 1'663'166);
}

// Held out (no rule written against them): BERT inference and GPT-2 training from transformers,
// whose modules are library code under the user's step function. The step holds ~99 %: given as
// its split, through the library modules, never as "step holds 99 %" alone.
TEST(CodeGroups, HoldoutsGetTheSplitBelowTheStepFunction) {
  const auto bert = testing::explain_file(fixture("holdout/holdout_bert_infer.json.gz"));
  const Finding* h = find(bert, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::Info);
  EXPECT_TRUE(contains(h->title, "BertModel 97 %")) << h->title;
  EXPECT_TRUE(contains(h->title, "BertSelfAttention ×4")) << h->title;
  EXPECT_EQ(bert.findings.front().id, FindingId::overhead_bound);

  const auto gpt2 = testing::explain_file(fixture("holdout/holdout_gpt2_train.json.gz"));
  h = find(gpt2, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(contains(h->title, "torch/_tensor.py(576): backward (library) 44 %")) << h->title;
  EXPECT_TRUE(contains(h->title, "GPT2LMHeadModel 39 %")) << h->title;
  EXPECT_TRUE(contains(h->detail, "those made by GPT2Block ×4's forward take 31.6 ms (90 %)")) << h->detail;
  EXPECT_EQ(gpt2.findings.front().id, FindingId::overhead_bound);
}

// On every recording of this folder: a hotspot's shares are shares; every finding states what it
// would give back, and the list is ordered by severity, then by that share of its basis.
TEST(CodeGroups, SharesStaySharesAndFindingsAreOrderedByWhatTheyGiveBack) {
  for (const char* name : {"gpt_rotary.json.gz", "gpt_rotary_train.json.gz", "mlp_train_blocks.json.gz",
                           "holdout/holdout_bert_infer.json.gz", "holdout/holdout_gpt2_train.json.gz"}) {
    const auto e = testing::explain_file(fixture(name));
    double last_share = 1e9;
    Severity last = Severity::Critical;
    for (const Finding& x : e.findings) {
      EXPECT_EQ(evidence(x, "recoverable_us"), x.impact_ns / 1e3) << name << " " << to_string(x.id);
      EXPECT_FALSE(x.impact_what.empty()) << name << " " << to_string(x.id);
      const double share = evidence(x, "recoverable_pct");
      if (x.severity != last) last_share = 1e9, last = x.severity;
      EXPECT_LE(share, last_share + 1e-9) << name << " " << to_string(x.id);
      last_share = share;
      if (x.id == FindingId::hotspot && x.evidence.front().key == "cpu_pct") {
        EXPECT_LE(evidence(x, "cpu_pct"), 100.0) << name;
        EXPECT_LE(evidence(x, "gpu_pct"), 100.0) << name;
      }
    }
  }
}

}  // namespace
}  // namespace whyslow
