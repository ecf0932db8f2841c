// Per-cell cost estimates of a grid from the per-part loads of several
// rounds (rebalance_grid_global()'s history): internal to the pipeline family.
#pragma once

#include <span>
#include <vector>

#include "core/multidim/density_atoms.hpp"
#include "isocost/partition.hpp"
#include "isocost/rebalance_grid.hpp"

namespace isocost::detail {

/// The grid cut along every part boundary of the current parts and of every
/// history round's: each part of each round is a block of these atoms, and
/// the estimate is constant on each, so fitting atoms is fitting the cells in
/// O(atoms) instead of O(cells). `owner`: each atom's current part.
struct GridAtoms {
  AtomGrid grid;
  std::vector<int> owner;
};

/// The atoms of `current` and `history`. Throws check_tiling()'s Error (a
/// cell held by two parts, or by none, naming the first in x-fastest order)
/// unless the current parts tile the grid; the history rounds are checked by
/// refine_with_history(). `current`'s part ranges must be checked already.
GridAtoms grid_atoms(const GridShape& shape, const Decomposition& current,
                     std::span<const GridRound> history);

/// What refine_with_history() did.
struct GridHistoryUse {
  int rounds_used = 0;
  int rounds_dropped = 0;
};

/// Sets atoms.grid.rho (speed-1 cost per cell), from the current round's
/// piecewise-constant estimate `per_cell` (per current part), so that every part of every round
/// sums to its measured speed-1 cost, each earlier round scaled to the current
/// total: iterative proportional fitting, oldest round first and the current
/// one last in every sweep, so the current sums hold exactly. A static load
/// satisfies all rounds at once; when an earlier round still misses its own
/// sums by more than `tolerance`·total after the sweeps, the load has drifted
/// since, and it is left out with every older one. Throws Error, naming the
/// round and a cell, for a round whose parts do not tile the grid.
GridHistoryUse refine_with_history(const GridShape& shape, const Decomposition& current,
                                   std::span<const double> loads, const Speeds& speeds,
                                   std::span<const GridRound> history, double tolerance,
                                   std::span<const double> per_cell, GridAtoms& atoms);

}  // namespace isocost::detail
