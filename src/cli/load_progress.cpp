#include "cli/load_progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <memory>

#include "common/terminal_text.hpp"

namespace whyslow::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Loads faster than this show nothing: a line that flashes for a moment only distracts (the
// issue's bar: "a load that takes more than a second").
constexpr Clock::duration kProgressDelay = std::chrono::seconds(1);
// Redraw at most this often: often enough to look live, rarely enough to cost nothing.
constexpr Clock::duration kRedrawInterval = std::chrono::milliseconds(200);

struct ProgressLine {
  std::string name;
  Clock::time_point start = Clock::now();
  Clock::time_point last_draw{};
  bool drawn = false;

  void operator()(const LoadProgress& p) {
    const Clock::time_point now = Clock::now();
    if (p.done) {
      if (drawn) fmt::print(stderr, "\r\033[K");  // erase the line: the report follows
      return;
    }
    if (now - start < kProgressDelay || now - last_draw < kRedrawInterval) return;
    last_draw = now;
    drawn = true;
    const double seconds = std::chrono::duration<double>(now - start).count();
    std::string eta;
    if (p.file_size > 0 && p.file_bytes > 0 && p.file_bytes < p.file_size)
      eta = fmt::format(", about {:.0f} s left",
                        seconds * static_cast<double>(p.file_size - p.file_bytes) / static_cast<double>(p.file_bytes));
    fmt::print(stderr, "\r\033[Kwhyslow: loading {}: {:.0f} MB read, {:.0f} MB/s, {} events{}", name,
               static_cast<double>(p.bytes) / 1e6, static_cast<double>(p.bytes) / 1e6 / seconds, p.events, eta);
    std::fflush(stderr);
  }
};

}  // namespace

std::function<void(const LoadProgress&)> terminal_load_progress(const std::string& path) {
  if (!isatty(STDERR_FILENO)) return {};
  auto line = std::make_shared<ProgressLine>();
  line->name = printable(path);
  return [line](const LoadProgress& p) { (*line)(p); };
}

}  // namespace whyslow::cli
