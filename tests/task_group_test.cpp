// TaskGroup: every job runs once, jobs queued by jobs too, never more at once than the threads,
// and the first job's error reaches wait() after the others ran.
#include "common/task_group.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace whyslow {
namespace {

TEST(TaskGroup, RunsEveryJobAndTheJobsTheyQueue) {
  for (unsigned threads : {1u, 2u, 5u}) {
    std::atomic<int> ran{0}, running{0}, most{0};
    TaskGroup jobs(threads);
    auto job = [&] {
      const int now = ++running;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      --running;
      ++ran;
    };
    for (int i = 0; i < 10; ++i)
      jobs.run([&] {
        job();
        jobs.run(job);  // a job's own follow-up
      });
    jobs.wait();
    EXPECT_EQ(ran.load(), 20) << threads;
    EXPECT_LE(most.load(), static_cast<int>(threads)) << threads;
    if (threads > 1) {
      EXPECT_GT(most.load(), 1) << threads;  // they did run side by side
    }
  }
}

TEST(TaskGroup, TheFirstErrorReachesWaitAfterTheOtherJobsRan) {
  std::atomic<int> ran{0};
  TaskGroup jobs(2);
  jobs.run([] { throw std::runtime_error("first"); });
  for (int i = 0; i < 5; ++i) jobs.run([&] { ++ran; });
  try {
    jobs.wait();
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "first");
  }
  EXPECT_EQ(ran.load(), 5);
  jobs.run([&] { ++ran; });  // usable again, the error reported once
  EXPECT_NO_THROW(jobs.wait());
  EXPECT_EQ(ran.load(), 6);
}

}  // namespace
}  // namespace whyslow
