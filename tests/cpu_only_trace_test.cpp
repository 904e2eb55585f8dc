// A CPU-only Kineto trace (torch 2.11, tools/record_cpu_fixture.py): the python_binding test's
// workload, whose loop waits for a DataLoader that sleeps 1 ms per sample. Steps and the
// data_loading finding are held to torch's own events, saved in the oracle when it was recorded;
// ops_oracle_test.cpp holds its op table to key_averages().
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace whyslow {
namespace {

const std::string kFixture = std::string(WHYSLOW_FIXTURES) + "/torch/mlp_dataloader_cpu";
constexpr double kToleranceUs = 1.0;  // torch's float µs against whyslow's integer ns

std::vector<double> oracle_list(const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(kFixture + ".oracle.json");
  std::vector<double> out;
  for (simdjson::dom::element v : doc[key].get_array()) out.push_back(double(v));
  return out;
}

TEST(CpuOnlyTrace, StepsAreTorchs) {
  const auto x = testing::explain_file(kFixture + ".json.gz");
  const std::vector<double> durations = oracle_list("step_durations_us");
  ASSERT_EQ(x.facts.steps.size(), durations.size());
  for (size_t i = 0; i < durations.size(); ++i) {
    EXPECT_NEAR(x.facts.steps[i].duration_ns / 1e3, durations[i], kToleranceUs) << x.facts.steps[i].name;
    EXPECT_EQ(x.facts.steps[i].kernels, 0u);
    EXPECT_EQ(x.facts.steps[i].gpu_busy_ns, 0);
  }
}

TEST(CpuOnlyTrace, DataLoadingWithinTorchsPerStepTimes) {
  const auto x = testing::explain_file(kFixture + ".json.gz");
  const std::vector<double> loading = oracle_list("data_loading_per_step_us");
  const std::vector<double> durations = oracle_list("step_durations_us");
  ASSERT_FALSE(loading.empty());
  const Finding* found = nullptr;
  for (const Finding& f : x.findings)
    if (f.id == FindingId::data_loading) found = &f;
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->severity, Severity::Critical);  // ~95 % of each step
  auto evidence = [&](std::string_view key) {
    for (const Evidence& e : found->evidence)
      if (e.key == key) return e.value;
    ADD_FAILURE() << "no evidence " << key;
    return 0.0;
  };
  EXPECT_GE(evidence("data_loading_us"), *std::min_element(loading.begin(), loading.end()) - kToleranceUs);
  EXPECT_LE(evidence("data_loading_us"), *std::max_element(loading.begin(), loading.end()) + kToleranceUs);
  EXPECT_GE(evidence("step_us"), *std::min_element(durations.begin(), durations.end()) - kToleranceUs);
  EXPECT_LE(evidence("step_us"), *std::max_element(durations.begin(), durations.end()) + kToleranceUs);
}

// The words: a CPU-only run has no GPU to leave idle; a GPU run (tests/fixtures/cpu/) does.
TEST(CpuOnlyTrace, DataLoadingSpeaksOfTheGpuOnlyWhenThereIsOne) {
  for (const auto& [path, has_gpu] : {std::pair{kFixture + ".json.gz", false},
                                      std::pair{std::string(WHYSLOW_FIXTURES) + "/cpu/dataloader_workers0.json.gz", true}}) {
    const auto x = testing::explain_file(path);
    const Finding* found = nullptr;
    for (const Finding& f : x.findings)
      if (f.id == FindingId::data_loading) found = &f;
    ASSERT_NE(found, nullptr) << path;
    EXPECT_EQ(found->title.find("GPU idle") != std::string::npos, has_gpu) << found->title;
    EXPECT_EQ(found->detail.find("of GPU time goes unused") != std::string::npos, has_gpu) << found->detail;
    EXPECT_EQ(found->detail.find("records no GPU work") != std::string::npos, !has_gpu) << found->detail;
  }
}

// The README's own Python example is this workload (issue 46 item 2): the step waits for its
// DataLoader 94 % of the time, so data_loading leads, the CPU verdict says so and advises no op
// speed-up in its place, and no hotspot names the DataLoader fetch again (with a split of its
// crumbs: "detach_ 0 %"; advice_agreement_test.cpp holds every finding to naming only findings in
// the output).
TEST(CpuOnlyTrace, ReadmeExampleLeadsWithItsDataLoader) {
  const auto x = testing::explain_file(kFixture + ".json.gz");
  std::vector<std::string> ids;
  for (const Finding& f : x.findings) ids.emplace_back(to_string(f.id));
  EXPECT_EQ(ids, (std::vector<std::string>{"data_loading", "cpu_bound"}));
  const Finding* cpu = testing::find(x, FindingId::cpu_bound);
  ASSERT_NE(cpu, nullptr);
  EXPECT_NE(cpu->title.find("waits for its DataLoader 94 %"), std::string::npos) << cpu->title;
  ASSERT_FALSE(cpu->try_next.empty());  // first: run it on the H200 the machine has
  EXPECT_NE(cpu->try_next.back().find("Shorten the wait for data first (the data_loading finding"), std::string::npos)
      << cpu->try_next.back();
  for (const std::string& s : cpu->try_next) EXPECT_EQ(s.find("Small ops and the Python between them lead"), std::string::npos);
}

}  // namespace
}  // namespace whyslow
