// isocost/forecast.hpp — where the cuts will be: a linear trend per cut
// through the plans of recent checks, for loads that move (Eijkhout §4's
// moving bell). A plan made from the last window's loads balances the past;
// when the load moves steadily, each cut moves steadily too, and the trend
// through the last few plans says where it will be over the coming interval.
//
//   std::vector<isocost::PlannedCuts> recent;       // oldest first
//   recent.push_back({window_centre_step, plan.offsets});
//   auto next = isocost::forecast_offsets(recent, step + (every + 1) / 2.0);
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "isocost/decompose.hpp"

namespace isocost {

/// One check's plan: the P + 1 offsets it computed from its own measurements
/// alone, and the time (in steps) its measurements stand for, the centre of
/// the window they were averaged over.
struct PlannedCuts {
  double time = 0;
  std::vector<std::int64_t> offsets;
};

/// Forecasts every interior offset at time `at` by the least-squares line
/// through its values in `rounds` (oldest first, all with the same P and N),
/// rounded to the nearest element, clamped to [0, N] and kept nondecreasing.
/// Each round weighs half as much as one `half_life` rounds newer (infinity:
/// all alike), so the line follows a cut whose speed changes while the older
/// rounds still average out the plans' errors. With fewer than two rounds of
/// distinct times, the newest round's offsets. Throws Error for no rounds,
/// rounds of differing P or N, invalid offsets, a time that is not finite, or
/// a half_life that is not > 0.
std::vector<std::int64_t> forecast_offsets(
    std::span<const PlannedCuts> rounds, double at,
    double half_life = std::numeric_limits<double>::infinity());

/// One check's plan of a grid of cells: its decomposition (only the parts'
/// cell ranges are read) and the time its measurements stand for.
struct PlannedParts {
  double time = 0;
  Decomposition decomposition;
};

/// forecast_offsets() for the parts of a gridded decomposition: every part's
/// cell_lo and cell_hi on every axis follow their least-squares line to time
/// `at`, rounded and clamped to [0, cells]. Parts that share a cut share its
/// values in every round and so its forecast; the result tiles the grid
/// unless cuts cross, and then (any part's range inverted) the newest round's
/// decomposition is returned unchanged. Only cell ranges change (box, cost
/// and time stay the newest plan's). Rounds are weighed as in
/// forecast_offsets(). Throws Error for no rounds, rounds with another number
/// of parts, a time that is not finite, or a half_life that is not > 0.
Decomposition forecast_decomposition(std::span<const PlannedParts> rounds, double at,
                                     const GridShape& shape,
                                     double half_life = std::numeric_limits<double>::infinity());

}  // namespace isocost
