// How many cores this thread's work may use: the share a CoreShare gave this thread, else the
// process's CPU affinity (taskset, a container's cpuset, a Slurm or MPI binding) — not the
// machine's count that std::thread::hardware_concurrency() gives. The loader and the analyses
// size their threads by it: more threads than cores only take turns.
#pragma once

namespace whyslow {

unsigned usable_cores();

// While it lives, usable_cores() on this thread answers `cores`: whoever runs several loads (and
// analyses) side by side, one per thread, gives each thread its share of the cores, and the work
// on it plans its own threads within that share without being told.
class CoreShare {
 public:
  explicit CoreShare(unsigned cores);
  ~CoreShare();
  CoreShare(const CoreShare&) = delete;
  CoreShare& operator=(const CoreShare&) = delete;

 private:
  unsigned previous_;
};

}  // namespace whyslow
