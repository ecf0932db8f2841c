// bench_peers' cases (issue #13): each builds one input, runs every
// partitioner on it (Zoltan, Zoltan2 MultiJagged, isocost) and prints one
// line per partitioner (peer_measure.hpp's report()).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peer_inputs.hpp"

namespace isocost::bench {

struct PeerSettings {
  int repetitions = 3;
  std::string zoltan_tol = "1.0";    ///< Zoltan's IMBALANCE_TOL
  double mj_tolerance = 1.0001;      ///< Zoltan2's imbalance_tolerance
  std::vector<std::string> methods;  ///< only these (by name prefix); empty: all
  bool wants(const std::string& method) const;
};

/// 1-D: n weights into P parts. Zoltan sees cell i as a point at i + 0.5.
/// Prints (rank 0) what a rerun must match: the libraries, the rank count,
/// what a fresh page costs here (page_fault_microseconds) and the hash all
/// random inputs come from. Collective over MPI_COMM_WORLD.
void print_preamble();

void run_1d(const PeerSettings& s, Shape shape, std::int64_t n, int P);

/// 2-D: an n×n grid into px×py parts. Zoltan and MJ see cells as points at
/// the cell centres; isocost decomposes the grid (jagged: px columns, then py
/// parts in each).
void run_2d(const PeerSettings& s, Shape shape, std::int64_t n, int px, int py);

/// Clustered 3-D points into P parts.
void run_points(const PeerSettings& s, std::int64_t count, int P);

/// MultiJagged on the n×n grid into px×py parts at each imbalance_tolerance
/// in `tolerances`: max/avg and whether the parts equal the first run's.
void run_mj_tolerance(const PeerSettings& s, Shape shape, std::int64_t n, int px, int py,
                      const std::vector<double>& tolerances);

}  // namespace isocost::bench
