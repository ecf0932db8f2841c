// Time spent inside MPI calls, for the scaling benchmark (bench_mpi_partition):
// mpi_time.cpp defines the MPI functions the library calls and forwards each to
// its PMPI_ twin, summing the wall and CPU time of the call. It is linked into
// that benchmark only, so the library itself is measured unmodified.
#pragma once

namespace isocost::bench {

/// Seconds and calls inside the wrapped MPI functions since the last reset.
struct MpiTime {
  double wall = 0;  ///< MPI_Wtime inside the calls: transfer, and waiting for other ranks
  double cpu = 0;   ///< this thread's CPU time inside them (Open MPI polls while it waits)
  long calls = 0;
};

/// Zeroes the totals and starts counting (until mpi_time_stop()). Calls made
/// while counting is off (the benchmark's own barriers and reductions) are not counted.
void mpi_time_start();
/// Stops counting and returns the totals since mpi_time_start().
MpiTime mpi_time_stop();

}  // namespace isocost::bench
