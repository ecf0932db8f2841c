// The cumulative measured cost through a block distribution's offsets, and
// the accumulated points of earlier rounds (rebalance_global()'s history):
// internal to the pipeline family.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "isocost/partition.hpp"
#include "isocost/rebalance.hpp"

namespace isocost::detail {

/// The cumulative speed-1 cost (cost = time·speed, as samples_from_partition()
/// converts it) through the ends of the non-empty ranges: x = 0 and every
/// offset that ends a non-empty range, t from 0 to the total.
void cumulative_points(std::span<const std::int64_t> offsets, std::span<const double> loads,
                       const Speeds& speeds, std::vector<double>& x, std::vector<double>& t);

/// What accumulate_rounds() made of the history.
struct Accumulated {
  std::vector<double> x, t;  ///< nondecreasing points from 0 to the current total
  int rounds_used = 0;       ///< history rounds merged (newest first)
  int rounds_dropped = 0;    ///< older rounds left out as drifted
};

/// The current round's cumulative cost, with earlier rounds merged in on the
/// atoms every round's ends make (merge_runs(): proportional fitting, the
/// grid history's merge). Each earlier round's cost is scaled to the current
/// total; the current round's sums hold exactly; an older round the merge
/// still misses by more than `tolerance`·total (Σ over its ranges: the load
/// has drifted since) is left out with every older round.
Accumulated accumulate_rounds(std::span<const std::int64_t> offsets, std::span<const double> loads,
                              const Speeds& speeds, std::span<const BlockRound> history,
                              double tolerance);

/// GlobalRebalanceOptions::edges: (x, t) (nondecreasing, x strictly
/// increasing, t from 0) replaced by points to interpolate linearly. An
/// interval whose neighbours' slopes are each flat (the next slope out
/// differs from theirs by at most a tenth of the interval's jump from them)
/// holds an edge of the density when its slope lies between theirs: the two
/// slopes are extended to where they meet. When it is steeper than both, it
/// holds a concentrated excess, put in its middle 70 % (a narrower guess
/// would put the cuts of several targets together); flatter than both, a
/// deficit, met by both slopes. Elsewhere the points follow the pchip
/// through (x, t), sampled 8 times per interval. A missing neighbour (the
/// domain's ends) mirrors the other.
void edge_points(std::vector<double>& x, std::vector<double>& t);

}  // namespace isocost::detail
