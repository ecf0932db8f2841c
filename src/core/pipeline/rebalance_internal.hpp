// Internal: the checks and measures shared by the 1-D block rebalancing
// (rebalance.cpp, messages prefixed "rebalance", one load per rank) and the
// grid rebalancing (rebalance_grid.cpp, "rebalance_grid", one load per part).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "isocost/cut.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/partition.hpp"
#include "isocost/shift.hpp"

namespace isocost::detail {

/// Speeds from `speeds` (uniform when empty), which must hold `P` entries.
Speeds speeds_of(const std::vector<double>& speeds, std::size_t P, const char* who,
                 const char* unit);

/// The first problem with `speeds` (each must be finite and > 0), or "".
std::string speeds_error(const std::vector<double>& speeds);

/// Whether the cut, diffusion and shift options are valid, checked in that
/// order; the first problem goes to *error.
bool nested_options_valid(const CutOptions& cut, const DiffusionOptions& diffusion,
                          const ShiftOptions& shift, std::string* error);

}  // namespace isocost::detail
