// load → analyze → explain, as every CLI subcommand and the Python binding run it: the truncation
// note, `--step` slicing and `--peaks` in one place.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "explain/finding.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {

// A mistake on the command line that only shows once the trace is read (a step it does not have,
// a peaks file that cannot be read): exit code 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What to load and how to analyze it: the options every front end shares.
struct AnalysisOptions {
  std::string path;
  LoadOptions load;
  int step = -1;      // ProfilerStep#N to focus on; -1: the whole trace
  std::string peaks;  // measured ceilings for the roofline (a --peaks file); empty: datasheet only
  // Makes the progress display of one file's load (the CLI's line on a terminal); empty: none.
  std::function<std::function<void(const LoadProgress&)>(const std::string& path)> progress;
};

// o.load, with o.progress's display for `path`.
LoadOptions load_options_for(const AnalysisOptions& o, const std::string& path);

struct Analyzed {
  Trace trace;
  Facts facts;
  std::vector<Finding> findings;
};

// Where the notes on what the loader had to tolerate go (a truncated file, raw control
// characters): the CLI prints them on stderr, the Python binding raises them as warnings.
using NoteSink = std::function<void(const std::string&)>;
void print_note(const std::string& note);  // "whyslow: warning: <note>" on stderr

// The notes on `trace`, each to `notes`.
void report_load_notes(const Trace& trace, const NoteSink& notes = print_note);
// Warns on stderr about what the loader had to tolerate.
inline void print_load_notes(const Trace& trace) { report_load_notes(trace); }
// Loads `path` and reports its notes.
Trace load_with_notes(const std::string& path, const LoadOptions& options, const NoteSink& notes = print_note);
// Loads every path in parallel (load_each, trace_set.hpp), prints each trace's notes on stderr one
// trace at a time, then calls `each(index, trace)` on the loading thread.
void load_each_with_notes(const std::vector<std::string>& paths, const LoadOptions& options,
                          const std::function<void(size_t, Trace&&)>& each);

// The trace of o.path, cut to ProfilerStep#o.step when given, analyzed with o.peaks, explained.
Analyzed load_and_analyze(const AnalysisOptions& o, const NoteSink& notes = print_note);
// The same for a trace already loaded (from a copy of a pipe, say).
Analyzed analyze_loaded(Trace trace, const AnalysisOptions& o);

// Traces A (o.path) and B, for `diff` and the comparison page; --peaks applies to both.
struct AnalyzedPair {
  Analyzed a, b;
};
AnalyzedPair load_and_analyze_pair(const AnalysisOptions& o, const std::string& path_b,
                                   const NoteSink& notes = print_note);

}  // namespace whyslow
