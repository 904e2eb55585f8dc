// torch.profiler.tensorboard_trace_handler() for whyslow: one file per trace, named so that
// traces of several workers and cycles never collide.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "whyslow/profiler.hpp"

namespace whyslow {

TraceReadyCallback trace_handler(std::string dir, std::string worker_name, bool use_gzip) {
  return [dir = std::move(dir), worker = std::move(worker_name), use_gzip](Profiler& profiler) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error)
      throw ProfilerError("trace_handler: cannot create the directory '" + dir + "' (" + error.message() + ")");
    std::string name = worker;
    if (name.empty()) {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      name = std::string(host) + "_" + std::to_string(getpid());
    }
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    const std::string file = name + "." + std::to_string(ns) + ".pt.trace.json" + (use_gzip ? ".gz" : "");
    profiler.export_chrome_trace((std::filesystem::path(dir) / file).string());
  };
}

}  // namespace whyslow
