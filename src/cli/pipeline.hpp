// load → analyze → explain, as every subcommand runs it: the truncation note, `--step` slicing and
// `--peaks` in one place.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "explain/finding.hpp"

namespace whyslow::cli {

// A mistake on the command line that only shows once the trace is read (a step it does not have,
// a peaks file that cannot be read): exit code 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Analyzed {
  Trace trace;
  Facts facts;
  std::vector<Finding> findings;
};

// Warns on stderr about what the loader had to tolerate (a truncated file, raw control characters).
void print_load_notes(const Trace& trace);
// Loads `path` (with a progress display on a terminal unless o.quiet) and prints its notes.
Trace load_with_notes(const std::string& path, const CommonOptions& o);

// The trace of o.path, cut to ProfilerStep#o.step when given, analyzed with o.peaks, explained.
Analyzed load_and_analyze(const CommonOptions& o);
// The same for a trace already loaded (from a copy of a pipe, say).
Analyzed analyze_loaded(Trace trace, const CommonOptions& o);

// Traces A (o.path) and B, for `diff` and the comparison page; --peaks applies to both.
struct AnalyzedPair {
  Analyzed a, b;
};
AnalyzedPair load_and_analyze_pair(const CommonOptions& o, const std::string& path_b);

}  // namespace whyslow::cli
