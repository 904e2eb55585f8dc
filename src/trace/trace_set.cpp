#include "trace/trace_set.hpp"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "common/terminal_text.hpp"
#include "common/usable_cores.hpp"
#include "trace/load_error.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;

bool is_trace_file_name(const std::string& name) {
  auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  return ends(".json") || ends(".json.gz");
}

// A folder's entry named like a trace, or a glob's match, that is no file to read: skipping it
// would report fewer ranks than the job had, and opening a FIFO would wait for a writer forever.
// `found_by` says how the user named it ("named like a trace in the folder").
[[noreturn]] void refuse_odd_entry(const std::string& path, const std::string& found_by) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  std::string what = "not a regular file";
  if (fs::is_symlink(link)) {
    static_cast<void>(fs::status(path, ec));  // only its error: why the link leads nowhere
    what = ec == std::errc::too_many_symbolic_link_levels ? "a symbolic link in a loop" : "a broken symbolic link";
    if (!ec) what = "a symbolic link to something that is not a regular file";
  } else if (fs::is_fifo(link)) {
    what = "a FIFO (named pipe)";
  } else if (fs::is_block_file(link) || fs::is_character_file(link)) {
    what = "a device";
  } else if (fs::is_socket(link)) {
    what = "a socket";
  }
  throw LoadError(LoadError::Kind::Io,
                  printable(path) + ": " + what + ", " + found_by + "; remove it, or name the trace files themselves",
                  0);
}

// One file named twice (by two names, links, or "/dev/stdin /dev/stdin"): two loads of one pipe
// would each get part of it and blame the data; two of one file would count a rank twice.
void refuse_repeated_files(const std::vector<std::string>& paths) {
  std::map<std::pair<dev_t, ino_t>, const std::string*> seen;
  for (const std::string& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;  // the loader says what is wrong with it
    const auto [at, fresh] = seen.emplace(std::pair{st.st_dev, st.st_ino}, &p);
    if (!fresh)
      throw LoadError(LoadError::Kind::Io,
                      printable(*at->second) + " and " + printable(p) +
                          " are the same file: each rank's file is read once (a pipe cannot be read twice)",
                      0);
  }
}

}  // namespace

int32_t rank_from_file_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  int32_t rank = -1;
  for (std::string_view key : {"rank", "worker"}) {
    for (size_t at = name.find(key); at != std::string::npos; at = name.find(key, at + 1)) {
      size_t i = at + key.size();
      while (i < name.size() && (name[i] == '-' || name[i] == '_')) ++i;
      if (i >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i]))) continue;
      int64_t n = 0;
      for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && n < INT32_MAX / 10; ++i)
        n = n * 10 + (name[i] - '0');
      rank = static_cast<int32_t>(n);
    }
    if (rank >= 0) return rank;
  }
  return rank;
}

int32_t rank_of(const Trace& t) { return t.distributed.rank >= 0 ? t.distributed.rank : rank_from_file_name(t.path); }

std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args,
                                            const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> files;
      for (const auto& entry : fs::directory_iterator(a, ec)) {
        if (!is_trace_file_name(entry.path().filename().string())) continue;
        std::error_code kind_ec;
        if (entry.is_regular_file(kind_ec)) {
          if (!keep || keep(entry.path().string())) files.push_back(entry.path().string());
        }
        else if (!entry.is_directory(kind_ec)) refuse_odd_entry(entry.path().string(), "named like a trace in the folder");
      }
      if (ec) throw LoadError(LoadError::Kind::Io, printable(a) + ": cannot list the folder: " + ec.message(), 0);
      if (files.empty())
        throw LoadError(LoadError::Kind::Io, a + ": a folder with no trace files (*.json, *.json.gz) in it", 0);
      std::sort(files.begin(), files.end());
      out.insert(out.end(), files.begin(), files.end());
    } else if (!fs::exists(a, ec) && a.find_first_of("*?[") != std::string::npos) {
      glob_t g{};
      const int rc = ::glob(a.c_str(), 0, nullptr, &g);
      if (rc != 0) {
        globfree(&g);
        throw LoadError(LoadError::Kind::Io, a + ": no file matches this pattern", 0);
      }
      std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + g.gl_pathc);  // glob sorts them
      globfree(&g);
      for (const std::string& m : matches) {
        std::error_code kind_ec;
        const fs::file_status st = fs::status(m, kind_ec);
        if (!fs::is_regular_file(st) && !fs::is_directory(st))
          refuse_odd_entry(m, "matched by the pattern " + printable(a));
      }
      out.insert(out.end(), matches.begin(), matches.end());
    } else {
      out.push_back(a);  // a missing file is the loader's to report
    }
  }
  refuse_repeated_files(out);
  return out;
}

std::string one_trace_path(const std::string& arg) {
  std::error_code ec;
  if (!fs::is_directory(arg, ec)) return arg;
  const std::vector<std::string> files = expand_trace_paths({arg}, nullptr);
  if (files.size() == 1) return files.front();
  std::string names;
  for (size_t i = 0; i < files.size() && i < 3; ++i)
    names += (i ? ", " : "") + printable(fs::path(files[i]).filename().string());
  throw LoadError(LoadError::Kind::Io,
                  printable(arg) + ": a folder with " + std::to_string(files.size()) + " traces (" + names +
                      (files.size() > 3 ? ", …" : "") +
                      "): this command reads one trace, so name the file; `whyslow explain` on the folder reads "
                      "them together as the ranks of one job",
                  0);
}

void load_each(const std::vector<std::string>& paths, const LoadOptions& options,
               const std::function<void(size_t, Trace&&)>& each, unsigned max_threads) {
  const unsigned cores = load_cores(options);
  unsigned threads = cores;
  if (max_threads > 0) threads = std::min(threads, max_threads);
  threads = static_cast<unsigned>(std::min<size_t>(threads, paths.size()));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  size_t error_index = SIZE_MAX;
  std::mutex error_mutex;
  // LoadOptions::cores, when given, is the whole job's; each load plans for its thread's share.
  LoadOptions each_load = options;
  each_load.cores = 0;
  auto work = [&] {
    // Each load, and whatever `each` does with its trace (an analysis), plans its own threads
    // for this thread's share of the cores, not for all of them.
    const CoreShare share(cores / std::max(1u, threads));
    for (size_t i; !failed && (i = next++) < paths.size();) {
      try {
        each(i, load_trace(paths[i], each_load));
      } catch (...) {
        std::lock_guard lock(error_mutex);
        // The first file's error in argument order, whichever thread hit it first.
        if (i < error_index) {
          error = std::current_exception();
          error_index = i;
        }
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace whyslow
