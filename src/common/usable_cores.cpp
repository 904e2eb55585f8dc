#include "common/usable_cores.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace whyslow {
namespace {

thread_local unsigned share_of_this_thread = 0;  // 0: none given, the process's affinity

unsigned process_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());  // affinity unknown: the machine's
}

}  // namespace

unsigned usable_cores() { return share_of_this_thread ? share_of_this_thread : process_cores(); }

CoreShare::CoreShare(unsigned cores) : previous_(share_of_this_thread) {
  share_of_this_thread = std::max(1u, cores);
}

CoreShare::~CoreShare() { share_of_this_thread = previous_; }

}  // namespace whyslow
