// whyslow_bench: times whyslow's end-to-end pipeline on trace files.
//
//   whyslow_bench [--repeat N] FILE...
//
// For each FILE: the pipeline runs N times (default 1) and the best time counts. One line per
// file, tab-separated, after a header line:
//   file  input_MB  disk_MB  seconds  MB_per_s  events  peak_rss_MB  cpu_seconds
//   read  inflate  wait  frame  parse  build  analyze  explain  render  load
// input_MB is the uncompressed bytes the loader read (Trace::input_bytes); MB/s is input_MB over
// the best wall-clock time; MB = 10^6 bytes. cpu_seconds is the best CPU time (user + system) of
// the process over one run: on a machine shared with other work it is the steadier number.
// peak_rss_MB is getrusage(RUSAGE_SELF).ru_maxrss, the peak of the whole process so far: it only
// describes one file when the process reads one file, so bench/run_bench.sh runs one process per
// file. The last ten columns are the best run's seconds per stage: the loader's (Trace::load_times;
// read or inflate runs on a thread of its own, parse is summed over the threads that parse, and
// `wait` is how long the framer waited for input), then analyze, explain and render the text
// report, then the loader's wall-clock time.
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "report/text/text_report.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace {

struct PipelineResult {
  uint64_t input_bytes = 0;
  uint64_t events = 0;
  whyslow::LoadTimes load;
  double analyze = 0, explain = 0, render = 0;
};

double since(std::chrono::steady_clock::time_point& t0) {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - t0).count();
  t0 = now;
  return s;
}

// The end-to-end pipeline `whyslow explain` runs: load → analyze → explain → render the text
// report (everything but writing it to the terminal). The report's size goes into the result so
// that nothing can be optimised away.
PipelineResult run_pipeline(const std::string& path) {
  whyslow::Trace trace = whyslow::load_trace(path);
  trace.drop_raw_ids();  // as the pipeline does before analyzing
  auto t0 = std::chrono::steady_clock::now();
  const whyslow::Facts facts = whyslow::analyze(trace);
  const double analyze = since(t0);
  const std::vector<whyslow::Finding> findings = whyslow::explain(trace, facts);
  const double explain = since(t0);
  const std::string text = whyslow::render_explain_text(trace, facts, findings, whyslow::TextOptions{});
  const double render = since(t0);
  return {trace.input_bytes, trace.size() + (text.empty() ? 1 : 0), trace.load_times, analyze, explain, render};
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) * 1024.0 / 1e6;  // ru_maxrss is in KiB on Linux
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--repeat N] FILE...\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
      if (repeat < 1) return usage(argv[0]);
    } else if (std::strncmp(argv[i], "--", 2) == 0) {
      return usage(argv[0]);
    } else {
      files.emplace_back(argv[i]);
    }
  }
  if (files.empty()) return usage(argv[0]);

  std::printf("file\tinput_MB\tdisk_MB\tseconds\tMB_per_s\tevents\tpeak_rss_MB\tcpu_seconds"
              "\tread\tinflate\twait\tframe\tparse\tbuild\tanalyze\texplain\trender\tload\n");
  int failures = 0;
  for (const std::string& path : files) {
    struct stat st{};
    const double disk_mb = stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) / 1e6 : 0;
    double best = 1e300, best_cpu = 1e300;
    PipelineResult r, best_r;
    try {
      for (int k = 0; k < repeat; ++k) {
        const double c0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        r = run_pipeline(path);
        const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
        const double cpu = cpu_seconds() - c0;
        if (dt.count() < best) {
          best = dt.count();
          best_r = r;
        }
        if (cpu < best_cpu) best_cpu = cpu;
      }
    } catch (const whyslow::LoadError& e) {
      std::fprintf(stderr, "whyslow_bench: %s\n", e.what());
      ++failures;
      continue;
    }
    const double input_mb = static_cast<double>(r.input_bytes) / 1e6;
    const whyslow::LoadTimes& l = best_r.load;
    std::printf("%s\t%.1f\t%.1f\t%.4f\t%.0f\t%llu\t%.1f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n",
                path.c_str(), input_mb, disk_mb, best, input_mb / best, static_cast<unsigned long long>(r.events),
                peak_rss_mb(), best_cpu, l.read, l.inflate, l.wait, l.frame, l.parse, l.build, best_r.analyze,
                best_r.explain, best_r.render, l.total);
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
