#include "mpi/inputs.hpp"

#include <filesystem>

#include "mpi/gather.hpp"

namespace whyslow::mpi {

InputList agree_on_inputs(const std::function<InputList()>& expand, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Packed as gather's records: the working folder first, then the paths as results that are ok,
  // or the error as one that is not.
  std::string packed;
  std::vector<std::uint64_t> sizes;
  if (rank == 0) {
    const InputList list = expand();
    std::error_code ec;
    std::vector<FileResult> records = {{0, true, std::filesystem::current_path(ec).string()}};
    if (!list.error.empty()) records.push_back({0, false, list.error});
    for (std::size_t i = 0; i < list.paths.size() && list.error.empty(); ++i) records.push_back({i, true, list.paths[i]});
    packed = pack_results(records);
    sizes = list.sizes;
  }
  unsigned long long lengths[2] = {packed.size(), sizes.size()};
  MPI_Bcast(lengths, 2, MPI_UNSIGNED_LONG_LONG, 0, comm);
  packed.resize(static_cast<std::size_t>(lengths[0]));
  sizes.resize(static_cast<std::size_t>(lengths[1]));
  // A command line's expansion is far below MPI's int counts (2 GiB).
  MPI_Bcast(packed.data(), static_cast<int>(packed.size()), MPI_CHAR, 0, comm);
  MPI_Bcast(sizes.data(), static_cast<int>(sizes.size()), MPI_UINT64_T, 0, comm);
  InputList out;
  std::vector<FileResult> records = unpack_results(packed);
  out.folder = std::move(records.at(0).bytes);
  for (auto r = records.begin() + 1; r != records.end(); ++r) {
    if (!r->ok) out.error = std::move(r->bytes);
    else out.paths.push_back(std::move(r->bytes));
  }
  if (out.error.empty()) out.sizes = std::move(sizes);
  return out;
}

}  // namespace whyslow::mpi
