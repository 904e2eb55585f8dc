// Issue 13's public regression cases for blocks and the hotspot: traces recorded by other people,
// read in place from ../shared/traces/public and skipped when absent. Block numbers are held to the
// Python oracle (tools/oracles/blocks.py, by the blocks_oracle test); the counts below were made
// from the raw events with Python's standard library (the comment on each case says what).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "analysis/blocks/code_origin.hpp"
#include "explain/finding.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::find;
using testing::evidence;

namespace fs = std::filesystem;
using testing::Explained;


const BlockRow* block(const Explained& e, std::string_view name) {
  for (const BlockRow& r : e.facts.blocks.rows)
    if (e.trace.names.view(r.name) == name) return &r;
  return nullptr;
}
bool contains(const std::string& text, std::string_view words) { return text.find(words) != std::string::npos; }

// HTA's DDP step (5 steps): `## backward ##` on the main thread launches 30 of the trace's 4,350
// kernels itself; autograd's engine thread launches 2,780 more while it is open, all inside
// backward ops that carry `Fwd thread id` (316,367,715 ns of GPU work).
TEST(PublicBlocks, HtaBackwardIsCreditedWithAutogradsKernels) {
  WHYSLOW_PUBLIC_OR_SKIP("facebookresearch__HolisticTraceAnalysis/tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", e);
  EXPECT_GT(e.trace.backward_ops.size(), 0u);
  const BlockRow* bw = block(e, "## backward ##");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->calls, 5u);
  EXPECT_EQ(bw->kernels, 30u + 2'780u);
  EXPECT_EQ(bw->other_thread_gpu_ns, 316'367'715);
  EXPECT_TRUE(bw->attribution & kForwardBackwardLink);
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(contains(h->title, "## backward ##")) << h->title;
}

// vLLM serving gpt-oss on a B200 (TraceLens, eager): no steps; 48.8 ms of the 87.4 ms main thread
// is Python self time (tools/oracles/cpu_breakdown.py). The model is vLLM's, library code here:
// the hotspot is the execute_context annotation, CPU work, its Python time named.
TEST(PublicBlocks, B200VllmHotspotIsPythonBoundCpuWork) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz", e);
  const BlockRow* model = block(e, "nn.Module: GptOssForCausalLM_0");
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(model->user_code);
  EXPECT_EQ(frame_location(e.trace.names.view(model->location)), "vllm/model_executor/models/gpt_oss.py:715");
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(contains(h->title, "execute_context")) << h->title;
  EXPECT_NEAR(evidence(*h, "python_us"), 48'800, 100);
  EXPECT_TRUE(contains(h->detail, "CPU work")) << h->detail;
}

// TimeSformer (TraceLens, H100): the step is the harness's run_on_input (moca/…, the user's
// code); 217 ms of its 382 ms is transformers' video preprocess (CPU), 30.5 ms the model.
TEST(PublicBlocks, TimesformerHotspotPointsAtPreprocessing) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz", e);
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(contains(h->title, "run_on_input")) << h->title;
  EXPECT_TRUE(contains(h->detail, "preprocess")) << h->detail;
  EXPECT_GT(evidence(*h, "library_us"), 170'000);
}

// OWLv2 (TraceLens, H100): five single-process DataLoader fetches take 619 ms of the 1.21 s step,
// 531 ms of it scipy.ndimage.zoom (library code, folded into the DataLoader block).
TEST(PublicBlocks, Owlv2HotspotIsTheDataLoadersZoom) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz", e);
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(contains(h->title, "enumerate(DataLoader)")) << h->title;
  EXPECT_TRUE(contains(h->detail, "scipy/ndimage/_interpolation.py(739): zoom")) << h->detail;
}

}  // namespace
}  // namespace whyslow
