// Internal entry points shared by the core's translation units.
#pragma once

#include "isocost/cut.hpp"

namespace isocost::detail {

/// The verdict on an integer cut placed without a root find, at `residual`
/// from its target: exact where it meets it, else how it was `placed`
/// (nearest_integer or optimum). partition(), the nearest-boundary search
/// and partition_from_cuts() judge their cuts this one way.
constexpr CutTermination placed_termination(double residual, CutTermination placed) {
  return residual == 0 ? CutTermination::exact : placed;
}

/// solve_cut with the bracket values fa = t(a) − target <= 0 <= fb = t(b) − target
/// already known; options must be valid. The cost tolerance is
/// options.cost_tolerance·cost_scale. No argument checks.
CutSummary solve_cut_known(const CostModel& model, double target, double a, double fa, double b,
                           double fb, const CutOptions& options, double cost_scale);

}  // namespace isocost::detail
