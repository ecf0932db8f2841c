// mpi/grid_diffusive.hpp — the GridBalancer's diffusive plan from per-cell
// costs where they are (internal to isocost::mpi).
#pragma once

#include <mpi.h>

#include <span>

#include "isocost/mpi/distribution.hpp"
#include "isocost/rebalance_grid.hpp"

namespace isocost::mpi::detail {

/// rebalance_grid_diffusive(shape, current, loads, options, costs of every
/// cell) without gathering the costs: `mine` is this rank's part of
/// `current` and `costs` its cells' costs in the box, x fastest;
/// `cost_sums[r]` is rank r's sum of them. Collective: one MPI_Allreduce of
/// the marginal along the columns' axis, one of every new column's marginal
/// along the rows' axis, one of the P predicted times — O(n_x + px·n_y + P)
/// doubles and O(local cells) work. The arguments other than `mine` and
/// `costs` must agree across ranks (the GridBalancer agreed on layout and
/// options at construction and gathered the loads and sums at the check);
/// they are trusted, not checked.
GridRebalance rebalance_grid_diffusive_distributed(
    MPI_Comm comm, const GridShape& shape, const Decomposition& current, const CellBox& mine,
    std::span<const double> costs, std::span<const double> cost_sums, std::span<const double> loads,
    const GridDiffusiveRebalanceOptions& options);

}  // namespace isocost::mpi::detail
