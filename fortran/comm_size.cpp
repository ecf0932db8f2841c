// The size of a Fortran communicator, for module isocost's size checks of
// arrays with one entry per rank (MPI_Comm_f2c exists only in C).
#include <mpi.h>

extern "C" int isocost_fortran_comm_size(MPI_Fint comm) noexcept {
  const MPI_Comm c = MPI_Comm_f2c(comm);
  int size = 0;
  if (c != MPI_COMM_NULL) MPI_Comm_size(c, &size);
  return size;
}

// 1 on every rank when `ok` is nonzero on every rank of the Fortran
// communicator: module isocost agrees its own array-size checks before a
// collective call, so that a bad size on one rank fails every rank instead of
// leaving the others waiting. MPI_COMM_NULL: ok itself (the C call reports it).
extern "C" int isocost_fortran_all_ok(MPI_Fint comm, int ok) noexcept {
  const MPI_Comm c = MPI_Comm_f2c(comm);
  if (c == MPI_COMM_NULL) return ok != 0;
  int mine = ok != 0 ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c);
  return all;
}
