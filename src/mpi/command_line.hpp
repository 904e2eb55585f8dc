// What every process of the job is told to do, and how all of them end: process 0's command line
// and process 0's exit status. mpirun can start processes with different command lines (an MPMD
// `-n 1 whyslow-mpi --help : -n 2 whyslow-mpi explain …`, or a wrapper script that adds options on
// some hosts): were each process to parse its own, one stopping at `--help`, `--version` or a bad
// option would leave the others waiting in the first collective forever, and `--step` or
// `--max-events` given to one process would apply to its share of the files only.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace whyslow::mpi {

// Process 0's arguments (argv[1..], without the program name), on every process.
std::vector<std::string> agree_on_command_line(int argc, char** argv, MPI_Comm comm);

// Process 0's `rc`, on every process: the job ends with one status, whichever process mpirun reports.
int agree_on_exit_status(int rc, MPI_Comm comm);

}  // namespace whyslow::mpi
