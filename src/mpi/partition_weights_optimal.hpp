// The exact chains-on-chains optimum of weights the ranks hold in slices
// (mpi/partition_weights.hpp, options.optimal): bottleneck_cuts()'s search
// with a probe pipelined along the ranks. Internal.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "mpi/nearest.hpp"

namespace isocost::mpi::detail {

/// The cuts of serial bottleneck_cuts(P, s, min_cells) of the gathered
/// prefix sums P, as this rank learns them: `pre` holds P[first … first + n]
/// for this rank's n cells (pre.size() = n + 1), N cells in all, total
/// P[N] = `total` (the same on every rank). Returns
/// s.size() + 1 candidates: entry k is {0, c_k, 0, P[c_k]} where this rank
/// found cut k (cut 0 and cut P on every rank) and the default Nearest
/// elsewhere, ready for the nearest reduction to agree on. Collective over
/// `comm`.
std::vector<Nearest> optimal_cuts(MPI_Comm comm, std::span<const double> pre, std::int64_t first,
                                  std::int64_t N, double total, std::span<const double> s,
                                  std::int64_t min_cells);

}  // namespace isocost::mpi::detail
