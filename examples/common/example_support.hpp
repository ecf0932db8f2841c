// What the example programs share: per-rank CPU time, an order-free hash for
// their exact checks, and writing the --json summary.
#pragma once

#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>

#include <cstdint>
#include <iostream>
#include <string>

#include "isocost/detail/file.hpp"

namespace examples {

/// CPU time of the calling thread, seconds (CLOCK_THREAD_CPUTIME_ID): it does
/// not advance while a rank waits for a core, so per-rank times stay honest
/// when ranks outnumber cores.
inline double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// The CPU seconds `work()` takes on this rank: the fastest of `repeats`
/// runs (timings on a shared machine only ever err upwards), each after a
/// barrier so that the ranks start together. Collective over `comm`.
template <class Work>
double fastest_cpu_seconds(MPI_Comm comm, int repeats, Work&& work) {
  double best = 0;
  for (int k = 0; k < repeats; ++k) {
    MPI_Barrier(comm);
    const double t0 = cpu_seconds();
    work();
    const double t = cpu_seconds() - t0;
    best = k == 0 ? t : std::min(best, t);
  }
  return best;
}

/// The slowest rank's CPU seconds in `work()`, e.g. a balancer's collective
/// call, which costs every rank until the slowest is done. Collective over
/// `comm`.
template <class Work>
double slowest_cpu_seconds(MPI_Comm comm, Work&& work) {
  const double t0 = cpu_seconds();
  work();
  double spent = cpu_seconds() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX, comm);
  return spent;
}

/// Before MPI_Init: OpenMPI's ranks waiting in a collective yield their core
/// instead of spinning on it. With more ranks than cores, spinning is charged
/// to the waiting rank's CPU time — up to a time slice per collective, which
/// swamps a balancer's own cost (0.1–4 ms per rebalance measured here,
/// 0.1–0.2 ms with yielding). A value the user set is kept; other MPIs
/// ignore the variable.
inline void yield_when_idle() { setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0); }

/// SplitMix64's finaliser: distinct inputs give unrelated outputs, so an XOR
/// of mix64(id) over elements changes when one is lost or counted twice.
inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The --json summary: to stdout for "-", else written atomically to `path`.
inline void write_summary(const std::string& path, const std::string& text) {
  if (path == "-")
    std::cout << text;
  else
    isocost::detail::write_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace examples
