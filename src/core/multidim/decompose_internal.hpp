// Shared by decompose.cpp, process_grid_choice.cpp and the mpi layer's
// decompose_grid.cpp. Internal.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

/// A process grid whose parts cannot have the required widths:
/// choose_process_grid() skips such candidates; any other error is a real
/// failure and propagates.
struct DoesNotFit : Error {
  using Error::Error;
};

/// max_j (P[cuts[j+1]] − P[cuts[j]]) / s[j]: the heaviest part of a split of
/// the prefix sums P into parts of capacities s.
double bottleneck_of(std::span<const double> P, std::span<const double> s,
                     const std::vector<std::int64_t>& cuts);

/// The ranks in one slab of `level` of `grid` (the product of the deeper
/// levels' counts), and the m slabs' capacities (their ranks' speeds) for a
/// piece whose first rank is `first_rank`.
int ranks_per_slab(const ProcessGrid& grid, std::size_t level);
std::vector<double> slab_capacities(const ProcessGrid& grid, std::size_t level,
                                    const Speeds& speeds, int first_rank);

/// One level's grid-line cuts of a piece: bottleneck_cuts() of its marginal
/// prefix sums (`prefix`, one more than the piece's cells along `axis`) into
/// slabs of capacities `capacity`, each at least max(1, ⌈min_width / cell⌉)
/// cells (a rank with no cells is not a partition). Cuts are relative to the
/// piece. Throws DoesNotFit, naming the axis, when the slabs cannot fit.
std::vector<std::int64_t> grid_slab_cuts(std::span<const double> prefix,
                                         std::span<const double> capacity, double min_width,
                                         double cell, int axis);

/// A part's volume and surface from its box (faces on `domain`'s boundary
/// are not shared with another part), and its time cost / speed.
void finish_part(Part& part, const Box& domain, double speed);

/// A decomposition's predicted_le, max_time and cut_surface from its parts.
void summarise(Decomposition& d);

}  // namespace isocost::detail
