// Shared by decompose.cpp and process_grid_choice.cpp. Internal.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

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

}  // namespace isocost::detail
