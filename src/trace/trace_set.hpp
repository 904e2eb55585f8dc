// The traces of one job, one file per rank: which files (a list, a folder, a glob), and loading
// them in parallel, one thread per file up to the cores. Each trace is handed to the caller on
// its loading thread, so the caller can reduce it (analyze, digest) and drop it: memory holds
// about one trace per thread, not one per rank.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/load_trace.hpp"

namespace whyslow {

// The rank a trace file belongs to: distributedInfo.rank, else the last number after "rank" or
// "worker" in the file name ("rank-3.json", "worker2_step_12.….json"), else -1.
int32_t rank_from_file_name(const std::string& path);
int32_t rank_of(const Trace& trace);

// Trace files named by `args`: files as given, folders' *.json / *.json.gz (sorted), and glob
// patterns (`*`, `?`, `[`) expanded. A file found in a folder is listed only when `keep` (when
// given) says so: the caller tells the user why not. Throws LoadError (Io) naming an argument that
// matches nothing, and a folder's entry named like a trace that is not a regular file (a broken
// or looping symbolic link, a FIFO, a device): skipped, the job would seem to have fewer ranks.
std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args,
                                            const std::function<bool(const std::string&)>& keep = nullptr);

// Loads every path (threads = min(files, usable cores, max_threads), each load planning its own
// threads for its share of the cores) and calls
// `each(index, trace)` on the loading thread; `each` must be safe to call concurrently for
// different indices. The first error (a LoadError naming its file) is rethrown after every
// thread has stopped.
// The one trace a command that reads one trace is given: the file itself, or the only trace file in
// a folder (tensorboard_trace_handler writes one per process into tb/). A folder holding several is
// refused, its files named: which one is meant cannot be guessed.
std::string one_trace_path(const std::string& arg);

void load_each(const std::vector<std::string>& paths, const LoadOptions& options,
               const std::function<void(size_t, Trace&&)>& each, unsigned max_threads = 0);

}  // namespace whyslow
