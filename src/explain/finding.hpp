// Findings: what whyslow tells the user. Each has a stable id that tools can match on, a
// severity, a one-line title, a paragraph a newcomer understands, the numbers behind it, the
// events that prove it, and what to try. No finding is made without evidence.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

enum class Severity : uint8_t { Info, Warning, Critical };
std::string_view to_string(Severity s);

// Severity follows cost: a finding whose time at stake is under 1 % of what it is measured
// against (its step, or the trace window) cannot change the run by more than that, so it is
// worth knowing but never a warning (explain() and explain_ranks() lower it to info).
inline constexpr double kMinWarningCostShare = 0.01;

// The stable ids, one per rule outcome, from the one list in finding_ids.def.
enum class FindingId : uint8_t {
#define WHYSLOW_FINDING(id, severity, title, fires_when, evidence_keys) id,
#include "explain/finding_ids.def"
#undef WHYSLOW_FINDING
};
std::string_view to_string(FindingId id);

// What finding_ids.def says about one id: the documentation and the severity a rule starts from.
struct FindingInfo {
  FindingId id;
  std::string_view name;  // the JSON id, "sync_wait"
  Severity default_severity;
  std::string_view title;
  std::string_view fires_when;     // Markdown, as in docs/JSON.md
  std::string_view evidence_keys;  // Markdown, as in docs/JSON.md
};
std::span<const FindingInfo> finding_catalog();
const FindingInfo& info(FindingId id);

// One number behind a finding: {"step_ms", 83.79, "ms"}. `key` is stable (snake_case).
struct Evidence {
  std::string key;
  double value = 0;
  std::string unit;  // "us", "ms", "%", "x", "count", "GB/s", "MB"
};

// An event that proves the finding, so a reader can find it in Perfetto.
struct EventRef {
  EventId event = kNoEvent;
  std::string role;  // "slowest step", "longest wait", …
};

// What a timeline (the HTML report) draws for a finding, by role, so that no renderer needs to
// know what a finding means. Filled by the rules (src/explain/highlights.hpp has the shared
// helpers and the caps); explain() adds the events each finding names (`Finding::events`).
enum class ShadeEmphasis : uint8_t {
  Faint,   // context for the finding (a typical step)
  Strong,  // the finding's subject (the cold-start step)
};
struct Highlights {
  std::vector<EventId> mark;                        // outlined: the events that show the finding
  std::vector<EventId> cover;                       // dashed: GPU work that ran while the CPU waited
  std::vector<std::pair<EventId, EventId>> queue;   // launch call → the GPU work it queued (delay drawn)
  std::vector<std::pair<int64_t, int64_t>> shade;   // [start, end) ns, shaded across every lane
  ShadeEmphasis shade_emphasis = ShadeEmphasis::Faint;
  bool marks_are_waits = false;  // the marked events block the CPU: shade the GPU lanes under them
};

// Code to paste, kept verbatim: renderers print it as a block and never re-wrap it
// (tests/snippets_test.py compiles every snippet the fixtures' findings carry).
struct CodeSnippet {
  std::string caption;            // "Name the top-level blocks of a step yourself:"
  std::string language = "python";
  std::string text;               // lines separated by '\n', indentation as written
};

struct Finding {
  FindingId id;
  Severity severity = Severity::Info;
  std::string title;
  std::string detail;
  std::vector<Evidence> evidence;
  std::vector<EventRef> events;
  std::vector<std::string> try_next;
  std::vector<CodeSnippet> code;  // after try_next, in the order given
  // A statement about what the trace holds (nothing recorded, the GPU's records missing), not a
  // cost: every other finding is read through it, so explain() ranks it first and does not cap
  // its severity by cost.
  bool about_the_trace = false;
  // A measurement that explains other findings (how long queued work waits to start) or another
  // resource (the memory a step needs), with no time of its own to give back: explain() ranks it
  // after the findings of its severity that name a cause of the time, whatever
  // their recoverable time (a fused optimizer or TF32 whose replay gains nothing on a CPU-bound step
  // is still the next thing to try; the measurement is not).
  bool context_only = false;
  // The time fixing it would give back (recoverable), and how the rule measured it ("the GPU idle
  // time after the syncs", not the wait when the GPU stayed busy). explain() states it as the
  // `recoverable_us` evidence and orders findings of equal severity by its share of the basis.
  int64_t impact_ns = 0;
  std::string impact_what;
  // impact_ns is GPU time saved: explain() counts the part of it the step would lose, the GPU's
  // busy share of the steady state (kernel time shortens the step only where the GPU is its
  // critical path; a launch-bound step loses none of it).
  bool impact_is_gpu_time = false;
  // What impact_ns is a part of: a step, for findings that measure per step; 0: the trace window.
  // explain() keeps a finding that costs under 1 % of it at info.
  int64_t impact_basis_ns = 0;
  // The replayed fix this finding's advice amounts to (analysis/graph/edits/): its recoverable time
  // is then step − predicted step, the one definition every finding with a fix uses.
  std::optional<WhatIf> what_if;
  // The edit its advice amounts to where the rule names one with a parameter of its own (host-op and
  // the op to take off the step); empty: explain picks the edit by the finding's id (fix_of).
  std::string fix_edit, fix_param;
  Highlights highlights;
};

// A finding of this id at its catalog severity, the rest to be filled by the rule.
Finding make_finding(FindingId id);

// Runs every rule; findings come back most important first.
std::vector<Finding> explain(const Trace& trace, const Facts& facts);

}  // namespace whyslow
