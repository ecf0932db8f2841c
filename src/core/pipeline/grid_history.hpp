// Per-cell cost estimates of a grid from the per-part loads of several
// rounds (rebalance_grid_global()'s history): internal to the pipeline family.
#pragma once

#include <span>
#include <vector>

#include "isocost/partition.hpp"
#include "isocost/rebalance_grid.hpp"

namespace isocost::detail {

/// What refine_with_history() did.
struct GridHistoryUse {
  int rounds_used = 0;
  int rounds_dropped = 0;
};

/// Refines `cells` (speed-1 cost per cell, x fastest, the current round's
/// piecewise-constant estimate on entry) so that every part of every round
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
                                   std::vector<double>& cells);

}  // namespace isocost::detail
