// Helpers for the profiler tests: scratch directories, captured warnings, and reading a trace
// the profiler wrote back through whyslow's own loader.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "trace/load_trace.hpp"
#include "whyslow/profiler.hpp"

namespace whyslow::testing {

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("whyslow_profiler_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

// Collects the warnings a profiler reports (its on_warning handler).
struct Warnings {
  std::mutex mutex;
  std::vector<std::string> messages;
  WarningHandler handler() {
    return [this](std::string_view m) {
      std::lock_guard lock(mutex);
      messages.emplace_back(m);
    };
  }
  bool any_contains(std::string_view text) {
    std::lock_guard lock(mutex);
    return std::any_of(messages.begin(), messages.end(),
                       [&](const std::string& m) { return m.find(text) != std::string::npos; });
  }
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The names of the events of `kind`, in start order (ties: file order).
inline std::vector<std::string> names_of(const Trace& t, EventKind kind) {
  std::vector<EventId> events;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == kind) events.push_back(e);
  std::stable_sort(events.begin(), events.end(),
                   [&](EventId a, EventId b) { return t.start_ns[a] < t.start_ns[b]; });
  std::vector<std::string> names;
  for (EventId e : events) names.emplace_back(t.name_of(e));
  return names;
}

inline std::vector<std::string> step_names(const Trace& t) {
  std::vector<std::string> steps;
  for (const std::string& n : names_of(t, EventKind::UserAnnotation))
    if (n.rfind("ProfilerStep#", 0) == 0) steps.push_back(n);
  return steps;
}

inline size_t count_named(const Trace& t, EventKind kind, std::string_view name) {
  size_t n = 0;
  for (EventId e = 0; e < t.size(); ++e) n += t.kind[e] == kind && t.name_of(e) == name;
  return n;
}

}  // namespace whyslow::testing
