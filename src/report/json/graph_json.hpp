// The dependency graph's part of the JSON report (docs/JSON.md): each step's `replay_us` and
// `critical_path`, the top-level `replay` and `what_if`, a finding's `what_if`.
#pragma once

#include "analysis/facts.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow::report {

// Inside a step's object: "replay_us" and "critical_path".
void write_step_replay(JsonWriter& w, const Facts& facts, size_t step);
// Top level: "replay" (the steady step measured and replayed, the nominal lags, a stepless
// trace's critical path) and "what_if" (every edit that applies, then "all").
void write_replay(JsonWriter& w, const Facts& facts);
// One what-if as an object: {"edit", "param", "title", "change", "scope", "step_us", "predicted_step_us", "saved_us"}.
void write_what_if(JsonWriter& w, const WhatIf& x);
void write_critical_path(JsonWriter& w, const std::vector<PathPart>& path);

}  // namespace whyslow::report
