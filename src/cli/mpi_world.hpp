// Internal to the isocost command: MPI under the command. Launched by
// mpiexec, every rank runs the command; the forms that partition data no
// single rank holds (cut --model discrete --weights, partition --weights,
// partition --points) work on every rank's share, every other form runs on
// rank 0 alone, and only rank 0 prints or writes. Without mpiexec MPI starts
// only when a form needs it (partition --points), as a single process.
#pragma once

#include <streambuf>
#include <string>

#if ISOCOST_CLI_MPI
#include <mpi.h>
#endif

namespace isocost::cli {

/// Started by main(): MPI_Init when launched by mpiexec (its environment
/// says so), and MPI_Finalize at finish().
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  /// Every rank's exit code becomes the largest of them (a failure anywhere
  /// fails everywhere), then MPI_Finalize; returns that code. The silenced
  /// ranks get their std::cout and std::cerr buffers back first.
  int finish(int code);
  ~MpiSession();

 private:
  void restore_streams();
  std::streambuf* out_ = nullptr;  // the buffers of the silenced ranks
  std::streambuf* err_ = nullptr;
};

/// True when the process was started by mpiexec/mpirun.
bool launched_by_mpi();
/// True where output goes: rank 0, or the only process.
bool output_rank();
/// For forms that run on one rank: under mpiexec with several ranks, the
/// other ranks stop here (SkippedRank), and take rank 0's exit code.
void serial_section();
/// Thrown on ranks that leave a serial section; not an error.
struct SkippedRank {};

#if ISOCOST_CLI_MPI
/// MPI_COMM_WORLD, starting MPI first if the process was not launched by
/// mpiexec (a singleton).
MPI_Comm world();
#endif

}  // namespace isocost::cli
