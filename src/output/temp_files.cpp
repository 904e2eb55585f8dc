#include "output/temp_files.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace whyslow {
namespace {

// Temporary files open at once: one per output being written, and a program writes a handful at
// most (a report, a trace per profiler rank); a 65th is written all the same, only not cleaned up
// on a signal.
constexpr int kSlots = 64;

// Each slot holds a copy of a path (malloc'd, freed only after the slot is cleared), read by the
// handler with nothing but an atomic load and unlink(), both async-signal-safe.
std::atomic<char*> slots[kSlots];

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

extern "C" void remove_temp_files(int signal) {
  for (std::atomic<char*>& slot : slots)
    if (const char* path = slot.load()) ::unlink(path);
  // The default action, taken once the handler returns (the signal is blocked until then).
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void install_handlers() {
  for (const int signal : kSignals) {
    struct sigaction now {};
    if (::sigaction(signal, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
    struct sigaction mine {};
    mine.sa_handler = remove_temp_files;
    sigemptyset(&mine.sa_mask);
    ::sigaction(signal, &mine, nullptr);
  }
}

}  // namespace

int remember_temp_file(const std::string& path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  char* copy = ::strdup(path.c_str());
  if (!copy) return -1;
  for (int i = 0; i < kSlots; ++i) {
    char* empty = nullptr;
    if (slots[i].compare_exchange_strong(empty, copy)) return i;
  }
  std::free(copy);
  return -1;
}

void forget_temp_file(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  std::free(slots[slot].exchange(nullptr));
}

}  // namespace whyslow
