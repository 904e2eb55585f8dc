// Issue 12's public regression cases: traces recorded by other people, each with the diagnosis an
// expert reading it would give (cause and advice), read in place from ../shared/traces/public and
// skipped when it is absent. The numbers were counted from the raw JSON with Python's standard
// library in exact integer ns (tools/oracles/cpu_breakdown.py for the categories; the DataLoader
// spans and host syncs by hand): the comment on each case says what was counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "explain/finding.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::find;
using testing::evidence;

namespace fs = std::filesystem;
using testing::Explained;


bool advises(const Finding& f, std::string_view words) {
  return std::any_of(f.try_next.begin(), f.try_next.end(), [&](const std::string& s) { return s.find(words) != std::string::npos; });
}
int64_t category(const StepFacts& s, CpuCategory c) { return s.cpu_breakdown[static_cast<size_t>(c)]; }

// OWLv2 inference on an H100 (TraceLens): one step, five single-process DataLoader fetches of
// ~122 ms (619.045006 ms in all, the GPU idle throughout: scipy zoom and normalize on the CPU).
TEST(PublicDiagnosis, Owlv2WaitsForItsSingleProcessDataLoader) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz", e);
  ASSERT_FALSE(e.findings.empty());
  EXPECT_EQ(e.findings.front().id, FindingId::data_loading) << "the input pipeline comes first";
  EXPECT_EQ(e.findings.front().severity, Severity::Critical);
  EXPECT_EQ(category(e.facts.steps.front(), CpuCategory::DataLoading), 619'045'006);
  EXPECT_EQ(e.facts.steps.front().data_loading_gpu_idle_ns, 619'045'006);
  const Finding* bound = find(e, FindingId::overhead_bound);
  ASSERT_NE(bound, nullptr);
  EXPECT_FALSE(advises(*bound, "CUDA graphs")) << "a data pipeline is not launch overhead";
  EXPECT_TRUE(advises(*bound, "data_loading"));
}

// The Kineto tutorial's ResNet-50 with num_workers=0 (V100, 2021): DataLoader per step 68.7, 68.8,
// 73.4, 71.4, 70.8, 62.6 ms (upper median 70.8 ms) of a 176 ms step. Two syncs per step wait 0.05 %
// of it; the variance of one kernel costs 0.03 % of the GPU time: neither is a warning.
TEST(PublicDiagnosis, ResNetWithoutWorkersWaitsForData) {
  WHYSLOW_PUBLIC_OR_SKIP("pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz", e);
  const Finding* d = find(e, FindingId::data_loading);
  ASSERT_NE(d, nullptr);
  EXPECT_NEAR(evidence(*d, "data_loading_us"), 70'800, 100);
  for (FindingId quiet : {FindingId::host_sync_in_loop, FindingId::kernel_variance}) {
    const Finding* f = find(e, quiet);
    if (f) {
      EXPECT_EQ(f->severity, Severity::Info) << to_string(quiet) << " costs under 1 % of the run";
    }
  }
}

// The same with num_workers=4: DataLoader about 1.4 ms a step (8.522 ms in all), GPU-bound.
TEST(PublicDiagnosis, ResNetWithWorkersIsGpuBound) {
  WHYSLOW_PUBLIC_OR_SKIP("pytorch__kineto/tb_plugin__samples__resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz", e);
  EXPECT_EQ(find(e, FindingId::data_loading), nullptr);
  EXPECT_NE(find(e, FindingId::gpu_bound), nullptr);
  int64_t loading = 0;
  for (const StepFacts& s : e.facts.steps) loading += category(s, CpuCategory::DataLoading);
  EXPECT_EQ(loading, 8'522'000);  // 4.331 + 0.083 + 0.087 + … ms per step (expectations of the six steps)
}

// PARAM's ResNet (no steps): 30 DataLoader fetches, 8,204.993 ms of the 16.2 s window.
TEST(PublicDiagnosis, ParamResNetWaitsForData) {
  WHYSLOW_PUBLIC_OR_SKIP("facebookresearch__param/et_replay__tests__inputs__resnet_kineto.json.gz", e);
  ASSERT_FALSE(e.findings.empty());
  EXPECT_EQ(e.findings.front().id, FindingId::data_loading);
  EXPECT_EQ(category(e.facts.window, CpuCategory::DataLoading), 8'204'993'000);
}

// TimeSformer on an H100: a 217 ms Python `preprocess` call launches no GPU work before the step's
// first launch: one block of CPU work (cpu_prefix), not launch overhead, so the advice is to
// overlap or move it, not CUDA graphs.
TEST(PublicDiagnosis, TimesformerPreprocessingIsCpuWork) {
  WHYSLOW_PUBLIC_OR_SKIP("AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz", e);
  EXPECT_GE(category(e.facts.steps.front(), CpuCategory::CpuCompute), 217'474'000);
  EXPECT_EQ(find(e, FindingId::overhead_bound), nullptr);
  const Finding* bound = find(e, FindingId::cpu_prefix);
  ASSERT_NE(bound, nullptr);
  EXPECT_FALSE(advises(*bound, "CUDA graphs ("));
  EXPECT_TRUE(advises(*bound, "DataLoader workers"));
  EXPECT_NE(bound->detail.find("preprocess"), std::string::npos);
}

}  // namespace
}  // namespace whyslow
