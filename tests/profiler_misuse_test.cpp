// Misuse gets a clear error or a warning, never a crash or a half-written file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "profiler_test_support.hpp"

namespace whyslow {
namespace {

using testing::ScratchDir;
using testing::Warnings;

TEST(ProfilerMisuse, SecondProfilerWhileOneRunsIsAnError) {
  Profiler first({.gpu = false});
  Profiler second({.gpu = false});
  first.start();
  try {
    second.start();
    FAIL() << "a second profiler started";
  } catch (const ProfilerError& e) {
    EXPECT_NE(std::string(e.what()).find("another whyslow::Profiler is already running"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(second.running());
  first.stop();
  second.start();  // once the first has stopped, the second may run
  second.stop();
}

TEST(ProfilerMisuse, StartingTwiceIsAnError) {
  Profiler profiler({.gpu = false});
  profiler.start();
  EXPECT_THROW(profiler.start(), ProfilerError);
  EXPECT_TRUE(profiler.running());
  profiler.stop();
}

TEST(ProfilerMisuse, StepOrStopOnAStoppedProfilerWarnsAndDoesNothing) {
  Warnings warnings;
  Profiler profiler({.schedule = schedule({.wait = 0, .warmup = 1, .active = 1}), .gpu = false,
                     .on_warning = warnings.handler()});
  profiler.step();
  EXPECT_EQ(profiler.step_num(), 0);
  EXPECT_TRUE(warnings.any_contains("step() called on a profiler that is not running"));
  profiler.stop();
  EXPECT_TRUE(warnings.any_contains("stop() called on a profiler that is not running"));
  profiler.start();
  profiler.stop();
  profiler.step();
  EXPECT_EQ(profiler.step_num(), 0);
}

TEST(ProfilerMisuse, ExportBeforeAnyTraceIsAnError) {
  ScratchDir dir;
  Profiler profiler({.gpu = false});
  EXPECT_THROW(profiler.export_chrome_trace(dir.file("t.json")), ProfilerError);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProfilerMisuse, UnwritablePathIsAnErrorThatNamesThePathAndLeavesNothing) {
  ScratchDir dir;
  Profiler profiler({.gpu = false});
  profiler.start();
  { WHYSLOW_SCOPE("work"); }
  profiler.stop();

  const std::string missing_dir = dir.file("no/such/dir/t.json");
  try {
    profiler.export_chrome_trace(missing_dir);
    FAIL() << "wrote into a missing directory";
  } catch (const ProfilerError& e) {
    EXPECT_NE(std::string(e.what()).find(missing_dir), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
  // A directory where the file should be: the rename fails, the temporary file goes away.
  std::filesystem::create_directory(dir.file("taken.json"));
  EXPECT_THROW(profiler.export_chrome_trace(dir.file("taken.json")), ProfilerError);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"taken.json"});
  // A read-only directory (root ignores permissions, so only check when they bite).
  std::filesystem::create_directory(dir.file("readonly"));
  chmod(dir.file("readonly").c_str(), 0500);
  if (access(dir.file("readonly").c_str(), W_OK) != 0) {
    EXPECT_THROW(profiler.export_chrome_trace(dir.file("readonly/t.json")), ProfilerError);
    EXPECT_TRUE(std::filesystem::is_empty(dir.file("readonly")));
  }
  chmod(dir.file("readonly").c_str(), 0700);
  // The trace is still there for a path that works.
  profiler.export_chrome_trace(dir.file("t.json"));
  EXPECT_EQ(testing::names_of(load_trace(dir.file("t.json")), EventKind::UserAnnotation),
            std::vector<std::string>{"work"});
}

TEST(ProfilerMisuse, ThrowingCallbackReachesTheCallerAfterTheStepCompletes) {
  int calls = 0;
  Profiler profiler({.schedule = schedule({.wait = 0, .warmup = 1, .active = 1}),
                     .on_trace_ready =
                         [&](Profiler&) {
                           ++calls;
                           throw std::runtime_error("disk full");
                         },
                     .gpu = false});
  profiler.start();  // step 0: warm-up
  profiler.step();   // step 1: record and save
  EXPECT_THROW(profiler.step(), std::runtime_error);  // step 2: the trace is ready
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(profiler.step_num(), 2);
  EXPECT_EQ(profiler.current_action(), ProfilerAction::Warmup);
  EXPECT_TRUE(profiler.running());
  profiler.step();
  EXPECT_THROW(profiler.step(), std::runtime_error);
  EXPECT_EQ(calls, 2);
  profiler.stop();
}

TEST(ProfilerMisuse, DestructorStopsARunningProfilerAndReportsCallbackErrors) {
  Warnings warnings;
  int calls = 0;
  {
    Profiler profiler({.on_trace_ready =
                           [&](Profiler&) {
                             ++calls;
                             throw std::runtime_error("cannot save");
                           },
                       .gpu = false,
                       .on_warning = warnings.handler()});
    profiler.start();
  }
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(warnings.any_contains("cannot save"));
  Profiler next({.gpu = false});
  next.start();  // the destroyed one no longer counts as running
  next.stop();
}

// Without a GPU (or CUDA in the build) the profiler says once that GPU activity is off and
// records CPU scopes; with gpu = false it stays quiet.
TEST(ProfilerMisuse, GpuActivityOffIsSaidOnce) {
  Warnings warnings;
  ScratchDir dir;
  for (int i = 0; i < 2; ++i) {
    Profiler profiler({.on_warning = warnings.handler()});
    profiler.start();
    { WHYSLOW_SCOPE("cpu_work"); }
    profiler.stop();
    profiler.export_chrome_trace(dir.file("t.json"));
    if (profiler.gpu_activity()) GTEST_SKIP() << "this machine has a GPU: nothing to say";
  }
  int said = 0;
  for (const std::string& m : warnings.messages) said += m.find("GPU activity is off") != std::string::npos;
  EXPECT_EQ(said, 1);
  EXPECT_EQ(testing::names_of(load_trace(dir.file("t.json")), EventKind::UserAnnotation),
            std::vector<std::string>{"cpu_work"});
}

}  // namespace
}  // namespace whyslow
