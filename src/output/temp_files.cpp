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

// Every signal whose default action ends the process (signal(7): "Term" and "Core"), but SIGKILL,
// which no handler sees, and SIGXFSZ, ignored instead (ignore_file_size_signal); the real-time
// signals are added at run time (SIGRTMIN is not a constant).
constexpr int kSignals[] = {
    SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGTRAP, SIGABRT,   SIGBUS,  SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2,
    SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGVTALRM, SIGPROF, SIGIO,   SIGSYS,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
};

extern "C" void remove_temp_files(int signal) {
  for (std::atomic<char*>& slot : slots)
    if (const char* path = slot.load()) ::unlink(path);
  // The default action, taken once the handler returns (the signal is blocked until then).
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// Whether `signal` still has its default action (a program that handles or ignores it keeps its choice).
bool default_action(int signal) {
  struct sigaction now {};
  return ::sigaction(signal, nullptr, &now) == 0 && now.sa_handler == SIG_DFL && !(now.sa_flags & SA_SIGINFO);
}

void install_handler(int signal) {
  if (!default_action(signal)) return;
  struct sigaction mine {};
  mine.sa_handler = remove_temp_files;
  sigemptyset(&mine.sa_mask);
  ::sigaction(signal, &mine, nullptr);
}

void install_handlers() {
  for (const int signal : kSignals) install_handler(signal);
  for (int signal = SIGRTMIN; signal <= SIGRTMAX; ++signal) install_handler(signal);
}

// Past a file size limit (ulimit -f) SIGXFSZ would end the process with no word and a partial
// temporary file; ignored, the write fails with EFBIG, which the writer reports and cleans up.
// Checked at every file, not once: the action may have been set back since.
void ignore_file_size_signal() {
  if (default_action(SIGXFSZ)) std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace

int remember_temp_file(const std::string& path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  ignore_file_size_signal();
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
