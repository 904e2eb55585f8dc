// Helpers for the loader tests: a scratch directory, trace files written into it, gzip, and
// lookups into a loaded Trace.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow::testing {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("whyslow_loader_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path(const std::string& name) const { return (path_ / name).string(); }

  std::string write(const std::string& name, std::string_view content) const {
    const std::string p = path(name);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) throw std::runtime_error("cannot write " + p);
    return p;
  }

  // gzip through zlib's gzopen/gzwrite; `members` > 1 writes that many gzip members back to back.
  std::string write_gz(const std::string& name, std::string_view content, int members = 1) const {
    const std::string p = path(name);
    const size_t step = (content.size() + members - 1) / members;
    for (int m = 0; m < members; ++m) {
      gzFile f = gzopen(p.c_str(), m == 0 ? "wb" : "ab");
      if (!f) throw std::runtime_error("gzopen " + p);
      const size_t begin = std::min(content.size(), step * m);
      const size_t end = std::min(content.size(), begin + step);
      size_t done = begin;
      while (done < end) {
        const unsigned chunk = static_cast<unsigned>(std::min<size_t>(end - done, 1u << 30));
        if (gzwrite(f, content.data() + done, chunk) != static_cast<int>(chunk))
          throw std::runtime_error("gzwrite " + p);
        done += chunk;
      }
      if (gzclose(f) != Z_OK) throw std::runtime_error("gzclose " + p);
    }
    return p;
  }

 private:
  fs::path path_;
};

// Loads `path` through a named pipe that a thread fills with the file's bytes: the loader then
// reads it ahead on its reader thread (as for `whyslow explain <(zcat t.json.gz)`), where a
// regular file is read on the loading thread. Both ways must load the same trace.
template <typename Load>
auto load_through_pipe(const TempDir& dir, const std::string& path, Load load) {
  static std::atomic<int> counter{0};
  const std::string fifo = dir.path("pipe" + std::to_string(counter++));
  if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + fifo);
  // A load that stops early closes the pipe: the writer just stops. Only while this load runs: the
  // process's disposition is restored after (a test of SIGPIPE's handling runs in this process too).
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &before);
  std::thread writer([&] {
    const int out = ::open(fifo.c_str(), O_WRONLY);
    if (out < 0) return;
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buf(1 << 16);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
      const char* p = buf.data();
      for (size_t left = static_cast<size_t>(in.gcount()); left > 0;) {
        const ssize_t n = ::write(out, p, left);
        if (n <= 0) {
          ::close(out);
          return;
        }
        p += n;
        left -= static_cast<size_t>(n);
      }
    }
    ::close(out);
  });
  struct Join {
    std::thread& t;
    const struct sigaction& restore;
    ~Join() {
      t.join();
      ::sigaction(SIGPIPE, &restore, nullptr);
    }
  } join{writer, before};
  return load(fifo);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string gunzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("gzopen " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  if (n < 0) throw std::runtime_error("gzread " + path);
  return out;
}

// A trace object around the given events (comma-joined).
inline std::string trace_json(const std::vector<std::string>& events,
                              const std::string& extra_keys = "") {
  std::string s = "{\"schemaVersion\": 1, " + extra_keys + "\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) s += (i ? ",\n  " : "  ") + events[i];
  return s + "\n]}\n";
}

// The events named `name`, in file order.
inline std::vector<EventId> events_named(const Trace& t, std::string_view name) {
  std::vector<EventId> out;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.name_of(e) == name) out.push_back(e);
  return out;
}

// The one event named `name`; fails the test (and returns kNoEvent) when there is not exactly one.
inline EventId event_named(const Trace& t, std::string_view name) {
  const auto all = events_named(t, name);
  EXPECT_EQ(all.size(), 1u) << "events named '" << name << "'";
  return all.size() == 1 ? all[0] : kNoEvent;
}

inline std::string_view category_of(const Trace& t, EventId e) { return t.names.view(t.category[e]); }

// A column's values in order (IdColumn, CategoryColumn: what their narrow and wide storage hold).
template <class Column>
auto column_values(const Column& c) {
  std::vector<decltype(c[0])> v;
  for (size_t i = 0; i < c.size(); ++i) v.push_back(c[i]);
  return v;
}

}  // namespace whyslow::testing
