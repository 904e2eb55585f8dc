// Gathers each process's per-file results (a digest, or the error that stopped the file) to
// process 0, with two collectives: the byte counts, then the bytes.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace whyslow::mpi {

struct FileResult {
  std::size_t file = 0;  // index into the command line's file list
  bool ok = false;       // true: `bytes` is the digest; false: `bytes` is the error message
  std::string bytes;
};

// The results as the gather sends them (host byte order: one binary on one kind of machine), and
// back; unpack_results throws std::runtime_error on records cut short.
std::string pack_results(const std::vector<FileResult>& results);
std::vector<FileResult> unpack_results(const std::string& packed);

// Every process calls this once with its own results; process 0 gets all of them, ordered by file
// index, the others get an empty list. Throws std::runtime_error (on every process alike) when
// the gathered bytes exceed what one MPI call can carry (2 GiB: MPI counts are int).
std::vector<FileResult> gather_results(const std::vector<FileResult>& mine, MPI_Comm comm);

}  // namespace whyslow::mpi
