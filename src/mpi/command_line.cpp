#include "mpi/command_line.hpp"

#include "mpi/gather.hpp"

namespace whyslow::mpi {

std::vector<std::string> agree_on_command_line(int argc, char** argv, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Packed as gather's records, one per argument.
  std::string packed;
  if (rank == 0) {
    std::vector<FileResult> records;
    for (int i = 1; i < argc; ++i) records.push_back({static_cast<std::size_t>(i), true, argv[i]});
    packed = pack_results(records);
  }
  unsigned long long length = packed.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  packed.resize(static_cast<std::size_t>(length));
  // A command line is far below MPI's int counts (ARG_MAX is a few MiB, the counts 2 GiB).
  MPI_Bcast(packed.data(), static_cast<int>(packed.size()), MPI_CHAR, 0, comm);
  std::vector<std::string> args;
  for (FileResult& r : unpack_results(packed)) args.push_back(std::move(r.bytes));
  return args;
}

int agree_on_exit_status(int rc, MPI_Comm comm) {
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  return rc;
}

}  // namespace whyslow::mpi
