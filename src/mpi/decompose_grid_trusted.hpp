// mpi/decompose_grid_trusted.hpp — decompose_grid() for a caller that has
// already checked and agreed on its inputs (internal to isocost::mpi).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"

namespace isocost::mpi::detail {

/// decompose_grid() without its input checks and agreements: the caller
/// knows that shape, process grid, speeds and options are valid and the same
/// on every rank, that the boxes tile the grid and that the weights are
/// finite and >= 0 (the GridBalancer agreed on its layout and options at
/// construction and checks the costs at every check). Collective: one
/// MPI_Allreduce of marginals per level. Throws the same Error on every
/// rank for all-zero weights or parts that do not fit their minimum width.
Decomposition decompose_grid_trusted(MPI_Comm comm, const GridShape& shape,
                                     const std::array<std::int64_t, kMaxDims>& lo,
                                     const std::array<std::int64_t, kMaxDims>& hi,
                                     std::span<const double> weights,
                                     const ProcessGrid& process_grid, const Speeds& speeds,
                                     const DecomposeOptions& options);

}  // namespace isocost::mpi::detail
