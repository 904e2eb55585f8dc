// Scopes: what records and what does not, nesting, names, and many threads at once.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "profiler_test_support.hpp"

namespace whyslow {
namespace {

using testing::names_of;
using testing::ScratchDir;
using testing::Warnings;
using Names = std::vector<std::string>;

// Records `body` between start() and stop() without a schedule and loads the trace back.
template <typename Body>
Trace record(Body body, Warnings* warnings = nullptr) {
  ScratchDir dir;
  ProfilerOptions options{.gpu = false};
  if (warnings) options.on_warning = warnings->handler();
  Profiler profiler(std::move(options));
  profiler.start();
  body(profiler);
  profiler.stop();
  profiler.export_chrome_trace(dir.file("t.json"));
  return load_trace(dir.file("t.json"));
}

TEST(ProfilerScopes, OnlyScopesOpenedWhileRecordingAreRecorded) {
  ScratchDir dir;
  { WHYSLOW_SCOPE("before_any_profiler"); }
  Profiler profiler({.schedule = schedule({.wait = 1, .warmup = 1, .active = 1}),
                     .on_trace_ready = [&](Profiler& p) { p.export_chrome_trace(dir.file("t.json")); },
                     .gpu = false});
  { WHYSLOW_SCOPE("before_start"); }
  profiler.start();
  { WHYSLOW_SCOPE("in_wait_step"); }
  profiler.step();
  { WHYSLOW_SCOPE("in_warmup_step"); }
  profiler.step();
  { WHYSLOW_SCOPE("in_active_step"); }
  profiler.step();
  { WHYSLOW_SCOPE("after_the_cycle"); }
  profiler.stop();
  { WHYSLOW_SCOPE("after_stop"); }
  EXPECT_EQ(names_of(load_trace(dir.file("t.json")), EventKind::UserAnnotation),
            (Names{"ProfilerStep#2", "in_active_step"}));
}

TEST(ProfilerScopes, NestingBecomesParentLinks) {
  const Trace t = record([](Profiler&) {
    for (int i = 0; i < 3; ++i) {
      WHYSLOW_SCOPE("outer");
      {
        WHYSLOW_SCOPE("middle");
        WHYSLOW_SCOPE("inner");
      }
      WHYSLOW_SCOPE("second_child");
    }
  });
  ASSERT_EQ(names_of(t, EventKind::UserAnnotation).size(), 12u);
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::UserAnnotation) continue;
    const std::string_view name = t.name_of(e);
    const EventId parent = t.parent[e];
    const std::string_view parent_name = parent == kNoEvent ? "" : t.name_of(parent);
    if (name == "outer") {
      EXPECT_EQ(parent, kNoEvent);
    } else if (name == "middle" || name == "second_child") {
      EXPECT_EQ(parent_name, "outer");
    } else {
      EXPECT_EQ(parent_name, "middle");
    }
  }
}

TEST(ProfilerScopes, NamesAreCopiedWhenNotLiterals) {
  const Trace t = record([](Profiler&) {
    for (int i = 0; i < 3; ++i) {
      // The temporary string dies at the end of the declaration: the scope must own a copy.
      const Scope layer(std::string("layer_") + std::to_string(i));
      const char* borrowed = i == 0 ? "borrowed_pointer" : "other_pointer";
      const Scope by_pointer{std::string_view(borrowed)};
    }
    const Scope escaped(std::string_view("quote \" backslash \\ newline \n tab \t end"));
  });
  EXPECT_EQ(names_of(t, EventKind::UserAnnotation),
            (Names{"layer_0", "borrowed_pointer", "layer_1", "other_pointer", "layer_2", "other_pointer",
                   "quote \" backslash \\ newline \n tab \t end"}));
}

TEST(ProfilerScopes, ManyThreadsEachOnTheirOwnLane) {
  constexpr int kThreads = 8, kIterations = 5000;
  const Trace t = record([](Profiler&) {
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([i] {
        const std::string name = "worker-" + std::to_string(i);
        pthread_setname_np(pthread_self(), name.c_str());
        for (int k = 0; k < kIterations; ++k) {
          WHYSLOW_SCOPE("outer");
          WHYSLOW_SCOPE("inner");
        }
      });  // each thread exits before stop(): its records must survive it
    }
    for (auto& th : threads) th.join();
  });
  std::map<std::string, int> per_track;  // track name → scopes
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::UserAnnotation) continue;
    ++per_track[t.tracks[t.track[e]].name];
    if (t.name_of(e) == "inner") {
      ASSERT_NE(t.parent[e], kNoEvent);
      EXPECT_EQ(t.name_of(t.parent[e]), "outer");
      EXPECT_EQ(t.track[t.parent[e]], t.track[e]);
    }
  }
  ASSERT_EQ(per_track.size(), static_cast<size_t>(kThreads));
  for (const auto& [track, scopes] : per_track) {
    EXPECT_EQ(scopes, 2 * kIterations) << track;
    EXPECT_NE(track.find("(worker-"), std::string::npos) << track;
  }
}

// Threads keep opening scopes while windows open and close under them: every trace loads, and
// each holds only whole scopes from inside its window.
TEST(ProfilerScopes, WindowsOpenAndCloseUnderBusyThreads) {
  ScratchDir dir;
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      while (!done.load()) {
        WHYSLOW_SCOPE("busy");
        const Scope copied{std::string_view("busy_copied")};
        for (int spin = 0; spin < 200; ++spin) asm volatile("");  // a little work in the scope
      }
    });
  for (int w = 0; w < 10; ++w) {
    Profiler profiler({.gpu = false});
    profiler.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    profiler.stop();
    const std::string path = dir.file(std::to_string(w) + ".json");
    profiler.export_chrome_trace(path);
    const Trace t = load_trace(path);
    EventId span = kNoEvent;
    for (EventId e = 0; e < t.size(); ++e)
      if (t.kind[e] == EventKind::TraceSpan) span = e;
    ASSERT_NE(span, kNoEvent);
    for (EventId e = 0; e < t.size(); ++e) {
      if (t.kind[e] != EventKind::UserAnnotation) continue;
      EXPECT_TRUE(t.name_of(e) == "busy" || t.name_of(e) == "busy_copied") << t.name_of(e);
      EXPECT_GE(t.start_ns[e], t.start_ns[span]);
      EXPECT_LE(t.end_ns(e), t.end_ns(span));
    }
  }
  done = true;
  for (auto& th : threads) th.join();
}

TEST(ProfilerScopes, ScopeClosedOnAnotherThreadIsDroppedWithAWarning) {
  Warnings warnings;
  const Trace t = record(
      [](Profiler&) {
        auto* moved = new Scope("moved_between_threads");
        { WHYSLOW_SCOPE("before"); }
        std::thread([moved] { delete moved; }).join();
        { WHYSLOW_SCOPE("after"); }
      },
      &warnings);
  EXPECT_EQ(names_of(t, EventKind::UserAnnotation), (Names{"before", "after"}));
  EXPECT_TRUE(warnings.any_contains("closed on a different thread"));
}

TEST(ProfilerScopes, ScopesOpenAcrossAWindowEdgeAreLeftOut) {
  ScratchDir dir;
  Profiler profiler({.gpu = false});
  profiler.start();
  auto spans_stop = std::make_unique<Scope>("spans_stop");
  { WHYSLOW_SCOPE("inside"); }
  profiler.stop();
  spans_stop.reset();
  profiler.export_chrome_trace(dir.file("first.json"));
  auto spans_windows = std::make_unique<Scope>("opened_between_windows");
  profiler.start();
  spans_windows.reset();
  profiler.stop();
  profiler.export_chrome_trace(dir.file("second.json"));
  EXPECT_EQ(names_of(load_trace(dir.file("first.json")), EventKind::UserAnnotation), (Names{"inside"}));
  EXPECT_TRUE(names_of(load_trace(dir.file("second.json")), EventKind::UserAnnotation).empty());
}

}  // namespace
}  // namespace whyslow
