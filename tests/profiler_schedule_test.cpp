// The schedule and the state machine behave as torch.profiler documents them (torch/profiler/
// profiler.py, schedule() and profile's action map): which steps do nothing, warm up, record
// and save, and which ProfilerStep#N annotations end up in which trace.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "profiler_test_support.hpp"

namespace whyslow {
namespace {

using testing::ScratchDir;
using testing::Warnings;

// One letter per step: N(one), W(armup), R(ecord), S (record and save).
std::string actions(const ScheduleFunction& f, int steps) {
  std::string out;
  for (int i = 0; i < steps; ++i) {
    switch (f(i)) {
      case ProfilerAction::None: out += 'N'; break;
      case ProfilerAction::Warmup: out += 'W'; break;
      case ProfilerAction::Record: out += 'R'; break;
      case ProfilerAction::RecordAndSave: out += 'S'; break;
    }
  }
  return out;
}

// Each row is torch's documented behaviour for these arguments, step 0 to 15.
TEST(ProfilerSchedule, ActionsStepByStepAsTorchDocuments) {
  // The example of torch.profiler.profile's docstring: "skip the first step, start warming up
  // on the second, record the third and the forth iterations, after which the trace will
  // become available"; repeat=1: nothing after that.
  EXPECT_EQ(actions(schedule({.wait = 1, .warmup = 1, .active = 2, .repeat = 1}), 16), "NWRSNNNNNNNNNNNN");
  // repeat = 0: the cycle goes on until the profiler stops.
  EXPECT_EQ(actions(schedule({.wait = 1, .warmup = 1, .active = 3}), 16), "NWRRSNWRRSNWRRSN");
  // skip_first steps come before the first cycle's wait; repeat = 2 stops after two cycles.
  EXPECT_EQ(actions(schedule({.wait = 1, .warmup = 1, .active = 2, .repeat = 2, .skip_first = 2}), 16),
            "NNNWRSNWRSNNNNNN");
  // No wait, no warm-up, one active step: every step after skip_first is its own trace.
  EXPECT_EQ(actions(schedule({.wait = 0, .warmup = 0, .active = 1, .skip_first = 3}), 16), "NNNSSSSSSSSSSSSS");
  EXPECT_EQ(actions(schedule({.wait = 0, .warmup = 1, .active = 1}), 16), "WSWSWSWSWSWSWSWS");
  // skip_first_wait: the first cycle starts without its wait; later cycles wait as usual.
  EXPECT_EQ(actions(schedule({.wait = 2, .warmup = 1, .active = 1, .repeat = 2, .skip_first = 1,
                              .skip_first_wait = true}),
                    16),
            "NWSNNWSNNNNNNNNN");
}

TEST(ProfilerSchedule, RejectsWhatTorchRejects) {
  EXPECT_THROW(schedule({.wait = 1, .warmup = 1, .active = 0}), std::invalid_argument);
  EXPECT_THROW(schedule({.wait = -1, .warmup = 1, .active = 1}), std::invalid_argument);
  EXPECT_THROW(schedule({.wait = 1, .warmup = -1, .active = 1}), std::invalid_argument);
  EXPECT_THROW(schedule({.wait = 1, .warmup = 1, .active = 1, .repeat = -1}), std::invalid_argument);
  EXPECT_THROW(schedule({.wait = 1, .warmup = 1, .active = 1, .skip_first = -2}), std::invalid_argument);
  EXPECT_THROW(schedule({.wait = 1, .warmup = 1, .active = 1})(-1), std::invalid_argument);
}

// Runs `steps` steps, each with a scope, and returns the ProfilerStep#N names of each trace
// handed to on_trace_ready, in order.
std::vector<std::vector<std::string>> traces_of(ScheduleFunction s, int steps, Warnings* warnings = nullptr) {
  ScratchDir dir;
  std::vector<std::vector<std::string>> traces;
  ProfilerOptions options{.schedule = std::move(s),
                          .on_trace_ready = [&](Profiler& p) {
                            const std::string path = dir.file(std::to_string(traces.size()) + ".json");
                            p.export_chrome_trace(path);
                            traces.push_back(testing::step_names(load_trace(path)));
                          },
                          .gpu = false};
  if (warnings) options.on_warning = warnings->handler();
  Profiler profiler(std::move(options));
  profiler.start();
  for (int i = 0; i < steps; ++i) {
    { WHYSLOW_SCOPE("work"); }
    profiler.step();
  }
  profiler.stop();
  return traces;
}

using Steps = std::vector<std::string>;

TEST(ProfilerSchedule, TracesHoldExactlyTheRecordedSteps) {
  // wait 1, warm-up 1, active 3, forever: steps 2-4 and 7-9; the stop() after twelve steps
  // ends a RECORD step (#12), which torch still saves.
  EXPECT_EQ(traces_of(schedule({.wait = 1, .warmup = 1, .active = 3}), 12),
            (std::vector<Steps>{{"ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4"},
                                {"ProfilerStep#7", "ProfilerStep#8", "ProfilerStep#9"},
                                {"ProfilerStep#12"}}));
  // skip_first 2 and repeat 2: two traces, then silence.
  EXPECT_EQ(traces_of(schedule({.wait = 1, .warmup = 1, .active = 2, .repeat = 2, .skip_first = 2}), 14),
            (std::vector<Steps>{{"ProfilerStep#4", "ProfilerStep#5"}, {"ProfilerStep#8", "ProfilerStep#9"}}));
  // torch's docstring example, repeat 1.
  EXPECT_EQ(traces_of(schedule({.wait = 1, .warmup = 1, .active = 2, .repeat = 1}), 8),
            (std::vector<Steps>{{"ProfilerStep#2", "ProfilerStep#3"}}));
  // Every step its own trace after skip_first; the stop() saves the step it interrupts.
  EXPECT_EQ(traces_of(schedule({.wait = 0, .warmup = 0, .active = 1, .skip_first = 3}), 5),
            (std::vector<Steps>{{"ProfilerStep#3"}, {"ProfilerStep#4"}, {"ProfilerStep#5"}}));
}

TEST(ProfilerSchedule, StepNumberAndActionFollowTheSchedule) {
  Profiler profiler({.schedule = schedule({.wait = 1, .warmup = 1, .active = 2}), .gpu = false});
  EXPECT_EQ(profiler.current_action(), ProfilerAction::None);
  profiler.start();
  const ProfilerAction expected[] = {ProfilerAction::Warmup, ProfilerAction::Record,
                                     ProfilerAction::RecordAndSave, ProfilerAction::None};
  for (int i = 0; i < 4; ++i) {
    profiler.step();
    EXPECT_EQ(profiler.step_num(), i + 1);
    EXPECT_EQ(profiler.current_action(), expected[i]) << "step " << i + 1;
  }
  profiler.stop();
}

TEST(ProfilerSchedule, WithoutScheduleRecordsFromStartToStopWithoutSteps) {
  ScratchDir dir;
  int ready = 0;
  Profiler profiler({.on_trace_ready =
                         [&](Profiler& p) {
                           ++ready;
                           p.export_chrome_trace(dir.file("t.json"));
                         },
                     .gpu = false});
  profiler.start();
  for (int i = 0; i < 3; ++i) {
    { WHYSLOW_SCOPE("work"); }
    profiler.step();
  }
  profiler.stop();
  EXPECT_EQ(ready, 1);
  const Trace t = load_trace(dir.file("t.json"));
  EXPECT_EQ(testing::names_of(t, EventKind::UserAnnotation), (Steps{"work", "work", "work"}));
}

// A custom schedule can break torch's rules; torch warns and drops the recording, and so do we.
TEST(ProfilerSchedule, IncorrectCustomScheduleWarnsAndDiscards) {
  Warnings warnings;
  const auto record_then_none = [](int64_t step) { return step == 1 ? ProfilerAction::Record : ProfilerAction::None; };
  EXPECT_TRUE(traces_of(record_then_none, 4, &warnings).empty());
  EXPECT_TRUE(warnings.any_contains("incorrect schedule: RECORD followed by NONE"));
}

}  // namespace
}  // namespace whyslow
