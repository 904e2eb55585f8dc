// What every process of the job reads, decided by process 0 alone and sent to the others before
// any other collective. Were each process to expand the arguments itself, one whose expansion
// failed (another working folder, a glob matching nothing there) would leave the gather while the
// others waited in it forever, and expansions that differed without failing would index each
// other's lists: a report mixing ranks of two folders. Relative paths are process 0's: every
// process reads them from process 0's working folder (one shared filesystem).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace whyslow::mpi {

struct InputList {
  std::vector<std::string> paths;
  std::vector<std::uint64_t> sizes;  // per path, for partition_by_size; 0 for a file that cannot be sized
  std::string error;                 // non-empty: the expansion failed, and this says why
  std::string folder;                // process 0's working folder, which relative paths start from
};

// Process 0 calls `expand`, notes its working folder and broadcasts both; every process returns
// that same list (or error), so all of them go on to the gather, or all stop, together.
InputList agree_on_inputs(const std::function<InputList()>& expand, MPI_Comm comm);

}  // namespace whyslow::mpi
