// Internal entry points shared by the core's translation units.
#pragma once

#include "isocost/cut.hpp"

namespace isocost::detail {

/// solve_cut with the bracket values fa = t(a) − target <= 0 <= fb = t(b) − target
/// already known; options must be valid. The cost tolerance is
/// options.cost_tolerance·cost_scale. No argument checks.
CutSummary solve_cut_known(const CostModel& model, double target, double a, double fa, double b,
                           double fb, const CutOptions& options, double cost_scale);

}  // namespace isocost::detail
