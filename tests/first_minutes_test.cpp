// The traces a new user's first recordings produce (tests/fixtures/first_minutes/, recorded on an
// H200 with torch 2.11 by tools/record_first_minutes.py): no false all-clear, no GPU words where
// the trace has no GPU records, a CPU verdict for a CPU program. Counts are held to the raw
// events' (the oracle's raw_counts) and the op shares to torch's key_averages().
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "loader_test_util.hpp"
#include "report/text/text_report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

std::string path(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/first_minutes/" + name; }

simdjson::dom::element oracle(simdjson::dom::parser& p, const std::string& name) {
  return p.load(path(name + ".oracle.json"));
}

bool any_advice_mentions(const std::vector<Finding>& findings, std::string_view words) {
  for (const Finding& f : findings) {
    for (const std::string& t : f.try_next)
      if (t.find(words) != std::string::npos) return true;
    for (const CodeSnippet& c : f.code)
      if (c.text.find(words) != std::string::npos) return true;
  }
  return false;
}

// Findings that read the GPU's records: none may appear without them.
bool reads_gpu_records(FindingId id) {
  switch (id) {
    case FindingId::overhead_bound: case FindingId::gpu_bound: case FindingId::dependency_wait:
    case FindingId::cpu_prefix: case FindingId::sync_wait: case FindingId::host_sync_in_loop:
    case FindingId::launch_queue: case FindingId::exposed_comm: case FindingId::low_efficiency:
      return true;
    default: return false;
  }
}

TEST(FirstMinutes, EmptyProfileSaysNothingWasRecordedAndExitsThree) {
  const auto x = testing::explain_file(path("empty_profile.json.gz"));
  EXPECT_EQ(x.facts.recording.what, Recorded::Nothing);
  ASSERT_EQ(x.findings.size(), 1u);
  EXPECT_EQ(x.findings[0].id, FindingId::nothing_recorded);
  EXPECT_EQ(x.findings[0].severity, Severity::Critical);
  const std::string cmd = std::string(WHYSLOW_BINARY) + " explain " + path("empty_profile.json.gz") + " > /dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  // report writes the page that says so, and exits 3 too.
  const testing::TempDir dir;
  const std::string page = dir.path("empty.html");
  const std::string report = std::string(WHYSLOW_BINARY) + " report " + path("empty_profile.json.gz") + " -o " + page;
  const int report_status = std::system(report.c_str());
  ASSERT_TRUE(WIFEXITED(report_status));
  EXPECT_EQ(WEXITSTATUS(report_status), 3);
  EXPECT_NE(testing::read_file(page).find("nothing_recorded"), std::string::npos);
}

TEST(FirstMinutes, CpuActivityOnlyOnAGpuMachineSaysTheGpuRecordsAreMissing) {
  simdjson::dom::parser p;
  const auto o = oracle(p, "gpu_train_cpu_activity");
  const auto x = testing::explain_file(path("gpu_train_cpu_activity.json.gz"));
  EXPECT_EQ(x.facts.recording.what, Recorded::GpuNotRecorded);
  EXPECT_EQ(x.facts.recording.gpu_work_calls, uint64_t(o["raw_counts"]["gpu_work_calls"]));
  EXPECT_EQ(x.facts.recording.cpu_ops, uint64_t(o["raw_counts"]["cpu_ops"]));
  ASSERT_FALSE(x.findings.empty());
  EXPECT_EQ(x.findings[0].id, FindingId::gpu_not_recorded);  // first: every other finding is read through it
  EXPECT_EQ(x.findings[0].severity, Severity::Critical);
  for (const Finding& f : x.findings) EXPECT_FALSE(reads_gpu_records(f.id)) << to_string(f.id);
  const std::string text = render_explain_text(x.trace, x.facts, x.findings, {});
  EXPECT_EQ(text.find("· GPU busy"), std::string::npos) << "no GPU busy time in the summary without GPU records";
  EXPECT_EQ(text.find("GPU busy %"), std::string::npos) << "no GPU columns in the steps table without GPU records";
}

// HTA's rank_non_gpu test trace (tests/fixtures/public/): 2,424 ATen ops and 43 blocks of one step,
// no CUDA call, no GPU record. An expert reading its events sees a GPU job cut down to its CPU ops:
// DistributedDataParallel.forward, six nccl:all_to_all blocks (NCCL runs only on GPUs),
// aten::record_stream (CUDA tensors only), FusedAdam. It is not a CPU program, and nothing in it
// says how the GPU spent its time. Counts by Python over the raw events: 6 nccl:* + 48 record_stream.
TEST(FirstMinutes, GpuJobCutToItsCpuOpsSaysTheGpuRecordsAreMissing) {
  const auto x = testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/public/hta_rank_non_gpu.json.gz");
  EXPECT_EQ(x.facts.recording.what, Recorded::GpuNotRecorded);
  EXPECT_EQ(x.facts.recording.gpu_work_calls, 0u);
  EXPECT_EQ(x.facts.recording.gpu_only_ops, 54u);
  EXPECT_EQ(x.facts.recording.gpu_only_op, "nccl:all_to_all");
  ASSERT_FALSE(x.findings.empty());
  EXPECT_EQ(x.findings[0].id, FindingId::gpu_not_recorded);
  EXPECT_NE(x.findings[0].title.find("ran on a GPU"), std::string::npos) << x.findings[0].title;
  for (const Finding& f : x.findings) {
    EXPECT_FALSE(reads_gpu_records(f.id)) << to_string(f.id);
    EXPECT_NE(f.id, FindingId::cpu_bound) << "a GPU job's CPU side is not a CPU program's verdict";
  }
}

TEST(FirstMinutes, CpuTrainingOnAGpuMachineGetsACpuVerdictHeldToKeyAverages) {
  simdjson::dom::parser p;
  const auto o = oracle(p, "cpu_train");
  double all_self = 0, mm = 0, matrix = 0;
  for (auto row : o["key_averages"].get_array()) {
    const double self = double(row["self_cpu_us"]);
    const std::string_view name = row["name"].get_string();
    all_self += self;
    if (name == "aten::mm") mm = self;
    if (name == "aten::mm" || name == "aten::addmm") matrix += self;
  }
  const auto x = testing::explain_file(path("cpu_train.json.gz"));
  EXPECT_EQ(x.facts.recording.what, Recorded::CpuOnly);
  const auto it = std::find_if(x.findings.begin(), x.findings.end(), [](const Finding& f) { return f.id == FindingId::cpu_bound; });
  ASSERT_NE(it, x.findings.end());
  EXPECT_EQ(it->severity, Severity::Warning);  // the H200 in the machine runs nothing
  EXPECT_NE(it->title.find("aten::mm"), std::string::npos) << it->title;
  EXPECT_NEAR(testing::evidence(*it, "top_op_pct"), 100 * mm / all_self, 0.1);
  EXPECT_NEAR(testing::evidence(*it, "matrix_pct"), 100 * matrix / all_self, 0.1);
  EXPECT_TRUE(any_advice_mentions(x.findings, "NVIDIA H200"));
  EXPECT_FALSE(any_advice_mentions(x.findings, "CUDA graph"));
  for (const Finding& f : x.findings) EXPECT_FALSE(reads_gpu_records(f.id)) << to_string(f.id);
}

// Holdout (never tuned to): a conv net on the CPU fed by a single-process DataLoader.
TEST(FirstMinutes, HoldoutCpuConvTrainingGetsACpuVerdictAndItsDataLoading) {
  const auto x = testing::explain_file(path("holdout/cpu_conv_train.json.gz"));
  EXPECT_EQ(x.facts.recording.what, Recorded::CpuOnly);
  const auto has = [&](FindingId id) {
    return std::any_of(x.findings.begin(), x.findings.end(), [id](const Finding& f) { return f.id == id; });
  };
  EXPECT_TRUE(has(FindingId::cpu_bound));
  EXPECT_TRUE(has(FindingId::data_loading));
  EXPECT_FALSE(any_advice_mentions(x.findings, "CUDA graph"));
}

}  // namespace
}  // namespace whyslow
