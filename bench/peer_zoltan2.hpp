// Zoltan2's MultiJagged (Trilinos 13.2) as a peer in bench_peers. Its
// headers (Tpetra, Kokkos) take about 25 s to compile, so they stay in
// peer_zoltan2.cpp alone, compiled as C++17: Teuchos 13.2 declares a
// constructor as a template-id, which C++20 rejects. Hence no std::span here.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace isocost::bench::zoltan2 {

/// Kokkos::initialize / Kokkos::finalize (MultiJagged works on Kokkos views).
void initialize(int argc, char** argv);
void finalize();
/// "Trilinos 13.2, Kokkos Serial".
std::string version();

/// Settings passed to the Zoltan2 parameter list.
struct Settings {
  int parts = 1;                     ///< num_global_parts
  std::string mj_parts;              ///< e.g. "16,16" (px along x, then py in each); "" = MJ's own
  double imbalance_tolerance = 1.0;  ///< imbalance_tolerance
};

/// A PartitioningProblem with algorithm "multijagged" on this rank's points
/// (`dims` interleaved coordinates, one weight each, global ids first_id, …);
/// each local point's part.
/// Every object's part, and the parameter list MJ was given ("algorithm=
/// multijagged …" and Kokkos' execution space): printed beside the time.
struct Partitioned {
  std::vector<int> part;
  std::string settings;
};
Partitioned multijagged(MPI_Comm comm, int dims, const std::vector<double>& coords,
                        const std::vector<double>& weights, std::int64_t first_id,
                        const Settings& settings);

}  // namespace isocost::bench::zoltan2
