// The weightings of the phases that a phase-synchronised plan tries
// (rebalance_phases(), plan_pieces()): one set of cuts cannot balance every
// phase at once, so a weighted sum of them is cut. Internal.
#pragma once

#include <span>
#include <vector>

namespace isocost::detail {

/// The candidates, in the order ties go to: all 1 (the total time), 1 / (the
/// phase's total) for every phase that costs anything (every phase's share
/// equalised on average), and each such phase alone. One phase: the total.
inline std::vector<std::vector<double>> phase_weightings(std::span<const double> phase_total) {
  const std::size_t F = phase_total.size();
  std::vector<std::vector<double>> out{std::vector<double>(F, 1.0)};
  if (F < 2) return out;
  std::vector<double> share(F, 0.0);
  for (std::size_t p = 0; p < F; ++p) share[p] = phase_total[p] > 0 ? 1 / phase_total[p] : 0;
  out.push_back(share);
  for (std::size_t q = 0; q < F; ++q)
    if (phase_total[q] > 0) {
      std::vector<double> alone(F, 0.0);
      alone[q] = 1;
      out.push_back(alone);
    }
  return out;
}

}  // namespace isocost::detail
