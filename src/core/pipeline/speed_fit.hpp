// The joint fit of the ranks' speeds and a cost density on a fixed basis
// (learn_speeds.hpp): shared by the 1-D learners (along elements or a
// continuous x) and the grid's (tensor-product hats over boxes). Each
// geometry gives its observations and the integral of every basis function
// over each observation's range; the fit is the same.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/learn_speeds.hpp"

namespace isocost::detail {

/// One load: `rank`'s time for its range in one round.
struct SpeedObservation {
  int rank = 0;
  double load = 0;
};

/// The basis on `knots` functions (chosen by the geometry from the budget,
/// the most the equations afford) and the M×K matrix of its integrals over
/// the observations' ranges, row-major.
struct SpeedBasis {
  int knots = 0;
  std::vector<double> integrals;
};

/// Fits speeds and density to `obs` (loads > 0 on non-empty ranges) of P
/// ranks from `distinct` rounds that cut differently. `basis(spare)` builds
/// the basis for `spare` equations left after the speeds (called once the
/// fit is known to be possible at all); not identifiable (all speeds 1, the
/// message saying why) with fewer than two distinct rounds or when the
/// basis leaves no spare equation.
LearnedSpeeds fit_speeds(const std::vector<SpeedObservation>& obs, int P, int distinct,
                         const std::function<SpeedBasis(int spare)>& basis,
                         const SpeedLearningOptions& options);

/// fit_speeds() along one axis with the knots chosen by the data: every
/// count from a third to half of the spare equations, within [2, most] (or
/// options.knots alone when set), fitted, the one of least AICc kept (the
/// loads' relative misfits, the density's knots and the free speeds its
/// parameters): a convex cost on few ranks needs the extra knot that noisy
/// loads cannot afford. basis(knots) builds the basis.
LearnedSpeeds fit_speeds_choosing_knots(const std::vector<SpeedObservation>& obs, int P,
                                        int distinct, int most,
                                        const std::function<SpeedBasis(int knots)>& basis,
                                        const SpeedLearningOptions& options);

/// fit(first) on the rounds [first, rounds), from 0: while the misfit
/// exceeds options.max_misfit the oldest round is left out and the rest
/// fitted again, as long as two rounds remain (rounds from before a change
/// of speed, or of the cost, disagree with the newer ones). When even the
/// newest two are missed by more, speeds and a density smooth at the knots'
/// scale do not explain the loads (a cost sharper than that, or timings
/// noisier than max_misfit): nothing is learned, rather than speeds that
/// stand for the cost's shape; nor when a speed's spread exceeds
/// options.max_spread.
template <class Fit>
LearnedSpeeds fit_dropping_oldest(std::size_t rounds, const SpeedLearningOptions& options,
                                  Fit&& fit) {
  // A fit missed by more, or none of the form at all (failed), may be the
  // older rounds' fault; fewer rounds that are not identifiable end it.
  const auto missed = [&](const LearnedSpeeds& l) {
    return (l.identifiable || l.termination == Termination::failed) &&
           l.misfit > options.max_misfit;
  };
  LearnedSpeeds out = fit(std::size_t{0});
  std::size_t first = 0;
  while (missed(out) && rounds - first > 2) {
    LearnedSpeeds fewer = fit(++first);
    if (!fewer.identifiable && fewer.termination != Termination::failed) break;
    out = std::move(fewer);
    out.rounds_dropped = static_cast<int>(first);
  }
  out.rounds = static_cast<int>(rounds - first);
  std::string why;
  if (out.identifiable && out.misfit > options.max_misfit)
    why = "the loads are not explained by speeds and a cost smooth at " +
          std::to_string(out.knots) + " knots: misfit " +
          exact(std::round(out.misfit * 1e4) / 1e4) + " > max_misfit " + exact(options.max_misfit);
  for (std::size_t r = 0; r < out.spread.size() && out.identifiable && why.empty(); ++r)
    if (out.spread[r] > options.max_spread)
      why = "the loads do not pin rank " + std::to_string(r) + "'s speed down: spread " +
            exact(std::round(out.spread[r] * 1e4) / 1e4) + " > max_spread " +
            exact(options.max_spread);
  if (!why.empty()) {
    out.identifiable = false;
    out.message = why;
    std::fill(out.speeds.begin(), out.speeds.end(), 1.0);
    std::fill(out.spread.begin(), out.spread.end(), std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

/// ∫ over [a, b) of each of `knots` unit hats equally spaced on [lo, hi]
/// (knot k at lo + k·h, h = (hi − lo)/(knots − 1)), into out[0..knots); with
/// knots == 1, the constant: b − a.
void hat_integrals(double lo, double hi, int knots, double a, double b, std::span<double> out);
/// The same for hats on the increasing knots `at` (at least 2; one: the
/// constant), hat k rising from at[k-1] to 1 at at[k] and falling to at[k+1].
void hat_integrals(std::span<const double> at, double a, double b, std::span<double> out);

}  // namespace isocost::detail
