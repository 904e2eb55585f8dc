#include "profiler/warnings.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace whyslow::profiler_detail {
namespace {

std::mutex& warnings_mutex() {
  static std::mutex m;
  return m;
}
WarningHandler& running_handler() {
  static WarningHandler handler;
  return handler;
}

}  // namespace

void emit_warning(const WarningHandler& handler, std::string_view message) {
  if (handler) {
    handler(message);
    return;
  }
  std::fprintf(stderr, "whyslow: %.*s\n", static_cast<int>(message.size()), message.data());
}

void warn_once(std::string_view key, std::string_view message) noexcept {
  try {
    std::lock_guard lock(warnings_mutex());
    static std::set<std::string, std::less<>> warned;
    if (!warned.emplace(key).second) return;
    emit_warning(running_handler(), message);
  } catch (...) {
  }
}

void set_running_warning_handler(WarningHandler handler) {
  std::lock_guard lock(warnings_mutex());
  running_handler() = std::move(handler);
}

}  // namespace whyslow::profiler_detail
