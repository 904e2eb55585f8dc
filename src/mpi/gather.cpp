#include "mpi/gather.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace whyslow::mpi {

// One record: file index (8 bytes), ok (1 byte), length (8 bytes), the bytes.
std::string pack_results(const std::vector<FileResult>& results) {
  std::string out;
  for (const FileResult& r : results) {
    const std::uint64_t file = r.file, length = r.bytes.size();
    out.append(reinterpret_cast<const char*>(&file), sizeof file);
    out.push_back(r.ok ? 1 : 0);
    out.append(reinterpret_cast<const char*>(&length), sizeof length);
    out.append(r.bytes);
  }
  return out;
}

std::vector<FileResult> unpack_results(const std::string& in) {
  std::vector<FileResult> results;
  std::size_t at = 0;
  constexpr std::size_t kHeader = 2 * sizeof(std::uint64_t) + 1;
  while (at < in.size()) {
    if (in.size() - at < kHeader) throw std::runtime_error("whyslow-mpi: a gathered record is cut short");
    std::uint64_t file = 0, length = 0;
    std::memcpy(&file, in.data() + at, sizeof file);
    const bool ok = in[at + sizeof file] != 0;
    std::memcpy(&length, in.data() + at + sizeof file + 1, sizeof length);
    at += kHeader;
    if (in.size() - at < length) throw std::runtime_error("whyslow-mpi: a gathered record is cut short");
    results.push_back({static_cast<std::size_t>(file), ok, in.substr(at, length)});
    at += length;
  }
  return results;
}

std::vector<FileResult> gather_results(const std::vector<FileResult>& mine, MPI_Comm comm) {
  const std::string packed = pack_results(mine);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Every process learns every count, so all of them agree on whether the bytes fit one call and
  // none is left waiting in a collective the others skipped.
  const long long my_bytes = static_cast<long long>(packed.size());
  std::vector<long long> counts(static_cast<std::size_t>(size));
  MPI_Allgather(&my_bytes, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, comm);
  long long total = 0;
  for (const long long c : counts) total += c;
  if (total > INT_MAX)
    throw std::runtime_error("whyslow-mpi: the digests together exceed 2 GiB, more than one MPI gather carries");
  std::vector<int> int_counts(counts.begin(), counts.end()), displacements(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displacements[i] = displacements[i - 1] + int_counts[i - 1];
  std::string all(rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(packed.data(), static_cast<int>(packed.size()), MPI_CHAR, all.data(), int_counts.data(),
              displacements.data(), MPI_CHAR, 0, comm);
  if (rank != 0) return {};
  std::vector<FileResult> results = unpack_results(all);
  std::sort(results.begin(), results.end(), [](const FileResult& a, const FileResult& b) { return a.file < b.file; });
  return results;
}

}  // namespace whyslow::mpi
