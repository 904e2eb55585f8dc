// Which MPI process reads which rank files: balanced by bytes, since a trace's load time grows
// with its size.
#pragma once

#include <cstdint>
#include <vector>

namespace whyslow::mpi {

// Splits files of the given sizes over `processes` processes: each file goes, largest first, to
// the process with the fewest bytes so far (ties to the lower process number), so no process holds
// more than the average plus one file. Returns, per process, its files' indices in ascending
// order. Every file appears exactly once; a process may get none when files are fewer.
std::vector<std::vector<std::size_t>> partition_by_size(const std::vector<std::uint64_t>& sizes, int processes);

}  // namespace whyslow::mpi
