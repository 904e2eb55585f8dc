// data_loading's first advice follows the DataLoader the trace shows: workers for one that loads in
// the main process (_SingleProcessDataLoaderIter), and for one that already has them
// (_MultiProcessingDataLoaderIter: an AMP training trace of incredere/gpu-profiling-pytorch-lab on a
// T4 waited 47 ms of each 54 ms step for its workers, and was advised to add workers) what helps
// workers that cannot keep up. Steps of 10 ms: 6 ms in the DataLoader span, then a 3 ms kernel.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

std::string steps_waiting_for(const std::string& iterator) {
  std::vector<std::string> events;
  for (int s = 0; s < 5; ++s) {
    const int t0 = 1000 + s * 10000;
    const std::string n = std::to_string(s);
    events.push_back(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + n + R"(","pid":1,"tid":1,"ts":)" +
                     std::to_string(t0) + R"(,"dur":10000})");
    events.push_back(R"({"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#)" + iterator +
                     R"(.__next__","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 10) + R"(,"dur":6000})");
    events.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
                     std::to_string(t0 + 6100) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(100 + s) + "}}");
    events.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(t0 + 6110) +
                     R"(,"dur":3000,"args":{"correlation":)" + std::to_string(100 + s) + R"(,"device":0,"stream":7}})");
  }
  return testing::trace_json(events);
}

std::string first_advice(const std::string& iterator) {
  testing::TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("steps.json", steps_waiting_for(iterator)));
  const Finding* f = testing::find(e.findings, FindingId::data_loading);
  if (f == nullptr || f->try_next.empty()) return "no data_loading finding";
  return f->try_next.front();
}

TEST(DataLoadingAdvice, WorkersOnlyWhereTheDataLoaderHasNone) {
  EXPECT_NE(first_advice("_SingleProcessDataLoaderIter").find("num_workers=N"), std::string::npos);
  const std::string with_workers = first_advice("_MultiProcessingDataLoaderIter");
  EXPECT_NE(with_workers.find("already loads in worker processes"), std::string::npos) << with_workers;
  EXPECT_EQ(with_workers.find("num_workers=N"), std::string::npos) << with_workers;
}

}  // namespace
}  // namespace whyslow
