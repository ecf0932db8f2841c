// core/pipeline/rebalance_grid_internal.hpp — the checks and estimates the
// grid rebalances share (rebalance_grid.cpp, rebalance_grid_diffusive.cpp)
// and the diffusive plan on any cost source (the GridBalancer's distributed
// costs, src/mpi/grid_diffusive.cpp). Internal.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/diffusion/jagged_costs.hpp"
#include "isocost/rebalance_grid.hpp"

namespace isocost::detail::grid_rebalance {

/// Cells of a part along the first `dims` axes (ranges already checked).
std::int64_t part_cells(const Part& p, int dims);
/// Cells two parts share along the first `dims` axes.
std::int64_t shared_cells(const Part& a, const Part& b, int dims);
/// Throws Error unless one cost per cell, finite, >= 0, not all zero.
void check_cell_costs(std::span<const double> costs, const GridShape& shape);
/// The grid's box: the parts' bounding box when they carry a valid one, else
/// cell units [0, cells[a]].
Box grid_box(const GridShape& shape, const Decomposition& dec);
/// O(P): a valid shape, `dec` of its process grid's part count in rank order,
/// every part's cells inside the grid. Throws Error otherwise.
void check_parts(const GridShape& shape, const Decomposition& dec);

/// What the checked current decomposition gives: the owner of every cell (x
/// fastest, as grid_density() expects; stored as doubles so the vector can be
/// turned into the weights in place) and the box the grid covers.
struct Tiling {
  std::vector<double> owner;
  Box box;
};
/// check_parts() and that the parts tile the grid; each cell's owner.
Tiling check_tiling(const GridShape& shape, const Decomposition& dec);

/// The piecewise-constant estimate: what one cell of each part costs,
/// loads[r]·speed[r]/cells(r) (speed 1 without `speeds`), 0 in empty parts and
/// for every part the same if only empty parts measured anything.
std::vector<double> cost_per_cell(const Decomposition& dec, std::span<const double> loads,
                                  const Speeds* speeds, int dims);
/// `dec` with the ranges along axes beyond the grid's dimensions cleared (as
/// decompose() leaves them), for grid_cells_moved().
Decomposition within_dims(const Decomposition& dec, int dims);

/// Each new part's predicted time in measured-load units.
using Predict = std::function<std::vector<double>(const Decomposition& next)>;

/// rebalance_grid_diffusive() once its inputs are checked: shift_jagged() on
/// `costs`, the new parts' times from `predict`. Collective where `costs`
/// and `predict` are.
GridRebalance rebalance_grid_diffusive_on(const GridShape& shape, const Decomposition& current,
                                          std::span<const double> loads,
                                          const GridDiffusiveRebalanceOptions& options,
                                          JaggedCosts& costs, const Predict& predict);

}  // namespace isocost::detail::grid_rebalance
