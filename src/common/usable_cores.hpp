// How many cores this process may run on: its CPU affinity (taskset, a container's cpuset, a
// Slurm or MPI binding), not the machine's count that std::thread::hardware_concurrency()
// gives. The loader sizes its threads by it: more threads than cores only take turns.
#pragma once

namespace whyslow {

unsigned usable_cores();

}  // namespace whyslow
