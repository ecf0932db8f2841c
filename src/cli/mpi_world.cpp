// MPI under the isocost command (mpi_world.hpp).
#include "mpi_world.hpp"

#include <cstdlib>
#include <iostream>
#include <streambuf>

namespace isocost::cli {

namespace {

int* g_argc = nullptr;
char*** g_argv = nullptr;

// Output of the ranks that do not print. It outlives every stream that
// points to it: the streams get their own buffers back in finish(), before
// static destruction flushes them.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};
NullBuffer g_null;

#if ISOCOST_CLI_MPI
bool started() {
  int flag = 0;
  MPI_Initialized(&flag);
  return flag != 0;
}

int rank_of_world() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
#endif

}  // namespace

bool launched_by_mpi() {
  // OpenMPI, PMIx and MPICH/Hydra launchers.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

MpiSession::MpiSession(int* argc, char*** argv) {
  g_argc = argc;
  g_argv = argv;
#if ISOCOST_CLI_MPI
  if (!launched_by_mpi()) return;
  MPI_Init(argc, argv);
  if (rank_of_world() != 0) {
    out_ = std::cout.rdbuf(&g_null);
    err_ = std::cerr.rdbuf(&g_null);
  }
#endif
}

void MpiSession::restore_streams() {
  if (out_) std::cout.rdbuf(out_);
  if (err_) std::cerr.rdbuf(err_);
  out_ = err_ = nullptr;
}

MpiSession::~MpiSession() { restore_streams(); }

int MpiSession::finish(int code) {
  std::cout.flush();  // what a silenced rank wrote goes nowhere, now
  std::cerr.flush();
  restore_streams();
#if ISOCOST_CLI_MPI
  if (!started()) return code;
  int agreed = code;
  MPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return agreed;
#else
  return code;
#endif
}

bool output_rank() {
#if ISOCOST_CLI_MPI
  return !started() || rank_of_world() == 0;
#else
  return true;
#endif
}

void serial_section() {
#if ISOCOST_CLI_MPI
  if (started() && rank_of_world() != 0) throw SkippedRank{};
#endif
}

#if ISOCOST_CLI_MPI
MPI_Comm world() {
  if (!started()) MPI_Init(g_argc, g_argv);
  return MPI_COMM_WORLD;
}
#endif

}  // namespace isocost::cli
