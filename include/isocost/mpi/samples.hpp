// isocost/mpi/samples.hpp — gathering measurements across ranks (mpi layer).
#pragma once

#include <mpi.h>

#include <vector>

#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

namespace isocost::mpi {

/// Every rank contributes the time it measured for its own range [lo, hi);
/// every rank receives all P intervals in rank order (MPI_Allgather).
/// Collective over `comm`. Ranks with an empty range (lo == hi) contribute
/// nothing. Throws Error on every rank (no deadlock) if any rank's values are
/// invalid (non-finite, hi < lo, dt <= 0 for a non-empty range).
Samples gather_samples(MPI_Comm comm, double lo, double hi, double dt);

/// Every rank's time, on every rank, in rank order (MPI_Allgather).
/// Collective over `comm`.
std::vector<double> gather_times(MPI_Comm comm, double time);

/// Load statistics of the ranks' times, identical on every rank.
/// Collective over `comm`.
LoadStats gather_load_stats(MPI_Comm comm, double time);

/// Relative speeds from a calibration run: every rank timed the same work and
/// passes its own `seconds`; every rank receives Speeds::from_times() of all
/// of them (the slowest rank has speed 1), in rank order. Collective over
/// `comm`. Throws Error on every rank if any rank's time is not finite and > 0.
Speeds calibrate_speeds(MPI_Comm comm, double seconds);

}  // namespace isocost::mpi
