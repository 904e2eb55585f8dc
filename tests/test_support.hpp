// Shared helpers for the tests: fixture paths and the pipeline in one call.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "trace/load_trace.hpp"

namespace whyslow::testing {

inline std::string fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/torch/" + name; }
// A file of another fixture folder: fixture_in("memory", "leak.truth.json").
inline std::string fixture_in(const std::string& folder, const std::string& file) {
  return std::string(WHYSLOW_FIXTURES) + "/" + folder + "/" + file;
}

// Every trace there is to test on: the fixtures (committed) and the shared corpora beside the
// checkout (../shared/traces) where they exist; .json and .json.gz files, in a stable order.
inline std::vector<std::filesystem::path> every_trace() {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  std::vector<fs::path> roots = {WHYSLOW_FIXTURES};
  const fs::path shared = fs::path(WHYSLOW_SOURCE_DIR) / ".." / "shared" / "traces";
  if (fs::is_directory(shared)) roots.push_back(shared);
  for (const fs::path& root : roots)
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz"))) out.push_back(entry.path());
    }
  std::sort(out.begin(), out.end());
  return out;
}

struct Explained {
  Trace trace;
  Facts facts;
  std::vector<Finding> findings;
};

inline Explained explain_file(const std::string& path) {
  Explained e{load_trace(path), {}, {}};
  e.facts = analyze(e.trace);
  e.findings = explain(e.trace, e.facts);
  return e;
}

// The first finding with `id`, or nullptr.
inline const Finding* find(const std::vector<Finding>& findings, FindingId id) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}
inline const Finding* find(const Explained& e, FindingId id) { return find(e.findings, id); }

// The value of evidence `key`; a test failure (and NaN, which no comparison accepts) when the
// finding has none.
inline double evidence(const Finding& f, std::string_view key) {
  for (const Evidence& ev : f.evidence)
    if (ev.key == key) return ev.value;
  ADD_FAILURE() << to_string(f.id) << " has no evidence " << key;
  return std::numeric_limits<double>::quiet_NaN();
}

// A trace of the public corpus (WHYSLOW_PUBLIC_TRACES), explained; false when the corpus (or the
// file) is absent, as in a plain clone.
inline bool load_public(const std::string& rel, Explained& out) {
  const std::filesystem::path path = std::filesystem::path(WHYSLOW_PUBLIC_TRACES) / rel;
  if (!std::filesystem::exists(path)) return false;
  out = explain_file(path.string());
  return true;
}

}  // namespace whyslow::testing

// Declares `e`, the public trace `rel` explained, or skips the test when the corpus lacks it.
#define WHYSLOW_PUBLIC_OR_SKIP(rel, e)     \
  ::whyslow::testing::Explained e;         \
  if (!::whyslow::testing::load_public(rel, e)) GTEST_SKIP() << "corpus file absent: " << (rel)
