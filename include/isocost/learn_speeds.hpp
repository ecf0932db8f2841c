// isocost/learn_speeds.hpp — the ranks' relative speeds learned from the
// rounds a balancer has seen, jointly with the cost along the elements (core,
// pipeline family). A rank's time is its range's cost divided by its speed;
// one round cannot tell a slow rank from a costly range, but rounds that cut
// the elements differently can, as long as the cost density is smooth at the
// scale of the knots it is fitted on.
//
//   std::vector<isocost::BlockRound> rounds = …;   // oldest first: offsets, loads
//   auto learned = isocost::learn_speeds(rounds);
//   if (learned.identifiable) speeds = isocost::Speeds::from_values(learned.speeds);
#pragma once

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isocost/options.hpp"
#include "isocost/rebalance.hpp"
#include "isocost/rebalance_grid.hpp"
#include "isocost/result.hpp"
#include "isocost/samples.hpp"

namespace isocost {

/// Settings for learn_speeds().
struct SpeedLearningOptions {
  /// Knots of the piecewise-linear cost density, equally spaced over the
  /// elements (per axis on a grid), >= 2; 0 chooses them: along elements,
  /// the count of least AICc from a third to half of the equations left
  /// after the speeds, at most P + 1, in [2, 64]; on a grid, at the newest
  /// cut lines, a third of those equations. Far fewer unknowns than
  /// equations is what makes the speeds identifiable at all, and a density
  /// finer than the ranks' own scale is not seen by their loads.
  int knots = 0;
  /// Linear solves, >= 1: each weighs every load by the last solve's speed
  /// of its rank, so that the fit comes to minimise the relative misfits.
  int max_iterations = 20;
  /// Converged when no speed changes by more than this (relative) from one
  /// solve to the next.
  double tolerance = 1e-4;
  /// A fit whose misfit (the loads' rms relative error) exceeds this leaves
  /// out its oldest round and fits again, while two rounds remain: rounds
  /// from before a rank changed speed (or the cost changed) disagree with
  /// the newer ones. +inf keeps every round. Timings' own noise must stay
  /// below it. When even the newest two rounds are missed by more, the
  /// speeds are not learned (a cost sharper than the knots can follow).
  double max_misfit = 0.05;
  /// Speeds are used only when every one is known to within this: the
  /// standard error of log(speed) (LearnedSpeeds::spread) of each measured
  /// rank at most this, else nothing is learned. Rounds that cut alike but
  /// for a few elements, or a cost the knots barely follow, leave speeds a
  /// fit can still pick but the loads do not pin down. +inf: no limit.
  double max_spread = 0.1;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("knots", self.knots, closed(0, 1024));
    v("max_iterations", self.max_iterations, at_least(1));
    v("tolerance", self.tolerance, above(0));
    v("max_misfit", self.max_misfit, above(0).or_infinity());
    v("max_spread", self.max_spread, above(0).or_infinity());
  }
  /// The fields in range, and knots not 1.
  bool is_valid(std::string* why) const;
  /// Throws Error("learn_speeds options: …") unless is_valid().
  void validate() const { validate_options(*this, "learn_speeds options"); }
};

/// What learn_speeds() found.
struct LearnedSpeeds {
  /// P relative speeds, mean 1 over the ranks that were measured; all 1
  /// when not identifiable.
  std::vector<double> speeds;
  /// Per rank: the standard error of log(speed), about the relative
  /// uncertainty (from the fit's residuals and its Jacobian); NaN when it
  /// could not be computed (not identifiable, a rank never measured, or
  /// more than 600 unknowns).
  std::vector<double> spread;
  /// The rounds had more equations than unknowns and did not all cut the
  /// elements alike, the fit explains them (misfit <= max_misfit, the
  /// newest two rounds at least) and pins every speed down (spread <=
  /// max_spread): else the speeds are all 1, unused.
  bool identifiable = false;
  int rounds = 0;          ///< rounds fitted (the newest)
  int rounds_dropped = 0;  ///< older rounds left out (max_misfit)
  int observations = 0;    ///< non-empty ranges with a load > 0
  int knots = 0;           ///< of the density
  int iterations = 0;
  /// Root mean square of (predicted − measured)/measured over the loads;
  /// +inf when no density and speeds > 0 fit at all (termination failed).
  double misfit = 0;
  Termination termination = Termination::converged;
  std::string message;  ///< why not identifiable, or "" when it is
  /// Set by SpeedTracker::update(): a balancer plans with these speeds (the
  /// check before learned the same); false while they wait for that. Set
  /// by `isocost fit` when it fits the times at speed 1 with them.
  bool used = false;

  /// One line: the speeds (or why there are none), misfit, iterations.
  std::string brief_report() const;
};

/// The one JSON form of LearnedSpeeds, written by the balancers' logs and
/// `isocost fit --json`: nlohmann::json's to_json hook (as LoadStats',
/// metrics.hpp), templated so the core needs no JSON library. Keys:
/// identifiable, speeds, spread (null where NaN), rounds, rounds_dropped,
/// misfit (null when +inf), message and used.
template <class Json>
void to_json(Json& j, const LearnedSpeeds& l) {
  const auto finite = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json spread = Json::array();
  for (const double v : l.spread) spread.push_back(finite(v));
  j = Json{{"identifiable", l.identifiable},
           {"speeds", l.speeds},
           {"spread", spread},
           {"rounds", l.rounds},
           {"rounds_dropped", l.rounds_dropped},
           {"misfit", finite(l.misfit)},
           {"message", l.message},
           {"used", l.used}};
}

/// The speeds a balancer plans with, from one learn_speeds() a check. A
/// fit can read a load that moved between the rounds as speeds (a moving
/// peak is a slow rank in one round and a fast one in the next), and such a
/// fit is not repeated by the next check's; speeds that are, are real. So
/// an estimate is used once the next identifiable one agrees with it: every
/// speed within three of their combined spreads, or within 5 %. Until then
/// the speeds used stay (none at first: equal). Core, no MPI; each rank's
/// copy sees the same estimates and agrees.
class SpeedTracker {
 public:
  /// Takes this check's estimate (sets its `used`); returns the speeds to
  /// plan with (empty: none learned yet).
  const std::optional<std::vector<double>>& update(LearnedSpeeds& estimate);
  const std::optional<std::vector<double>>& speeds() const noexcept { return used_; }

 private:
  std::optional<LearnedSpeeds> pending_;     // the last identifiable estimate
  std::optional<std::vector<double>> used_;  // the speeds adopted
};

/// Estimates each rank's relative speed s_r from rounds of a block
/// distribution (oldest first; each: P + 1 offsets of the same N elements
/// and the P loads measured on them), with the cost density ρ along the
/// elements: load_{j,r} = ∫ρ over rank r's range in round j / s_r. ρ is
/// piecewise linear on equally spaced knots; load·s_r = ∫ρ is linear in
/// (ρ, s), so with the mean speed fixed the fit is a linear least-squares
/// problem, the speeds eliminated first (one rank, one unknown): O(loads +
/// knots³) a solve. Each solve weighs the loads by the last one's speeds,
/// which makes the misfit the loads' relative error. A density that is not
/// positive over every range, or a speed <= 0, is no fit (failed). Empty
/// ranges and zero loads say nothing and are left out. While the misfit exceeds options.max_misfit
/// the oldest round is left out and the rest fitted again (two rounds at least); if even two are
/// missed by more, nothing is learned (not identifiable). Needs at least two rounds with different
/// offsets; with one, or all alike, the result is all 1 and not identifiable (what a plan from it
/// cannot know). Throws Error for no rounds, rounds of different P or N, invalid offsets, loads of
/// the wrong count, negative or non-finite loads, bad options.
LearnedSpeeds learn_speeds(std::span<const BlockRound> rounds,
                           const SpeedLearningOptions& options = {});

/// The same for rounds of boxes of a grid of `shape` cells (oldest first;
/// each: one part per rank tiling the grid, and the P loads measured on
/// them, as GridBalancer's history keeps them): ρ is a tensor product of
/// piecewise-linear hats, equally spaced along each axis that some round
/// cuts (constant along an axis none does), as many knots as the equations
/// afford (options.knots: per axis). Errors as above, and for parts outside
/// the grid or rounds of another part count.
LearnedSpeeds learn_speeds(const GridShape& shape, std::span<const GridRound> rounds,
                           const SpeedLearningOptions& options = {});

/// The same for runs of timings on a continuous x (oldest first), each
/// sample labelled with the rank that took it (IntervalSample::rank, e.g. a
/// file's rank column): hats equally spaced over [lo, hi] of all runs. Runs
/// that time the same intervals count as one cut. Throws Error for no runs,
/// or a sample without a rank.
LearnedSpeeds learn_speeds(std::span<const Samples> runs, const SpeedLearningOptions& options = {});

/// The samples with every dt multiplied by its rank's speed: times measured
/// on ranks of different speeds as speed-1 costs, ready to fit. Throws
/// Error for a sample without a rank or a rank with no speed.
Samples at_unit_speed(const Samples& samples, std::span<const double> speeds);

}  // namespace isocost
