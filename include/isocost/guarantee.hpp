// isocost/guarantee.hpp — what interval timings can promise about a
// partition, whatever the cost inside each timed interval.
//
// Timings of intervals say how much cost each holds, not where inside it.
// A part's cost therefore lies between the timings of the intervals it
// covers whole and those of every interval it touches; its share of an
// interval a cut splits can be anything from none to all. From those ranges
// the partition's T_max and L_E lie in a range that holds for every cost
// distribution consistent with the timings (each within ±noise):
//
//   auto g = isocost::guaranteed_balance(samples, cuts, isocost::Speeds::uniform(8));
//   std::cout << g.brief_report();   // "guaranteed L_E 31.2 – 100 % …"
//
// A cut inside an interval that holds more than one part's share is where
// the samples are too coarse: where the cut should go inside it they cannot
// say, and timing the parts the cuts make is the way to learn it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

namespace isocost {

/// The range of a partition's balance that interval timings guarantee.
struct BalanceGuarantee {
  /// L_E (percent, Swartz eq. 3: 100·(2 − T_max/T_avg)) lies in [le_lo, le_hi].
  double le_lo = 0, le_hi = 100;
  /// T_max (cost / speed, the samples' units) lies in [t_max_lo, t_max_hi].
  double t_max_lo = 0, t_max_hi = 0;
  /// The part whose worst case sets le_lo, and the intervals (by their ends,
  /// [x_j, x_j+1] of the samples' cumulative points) that its cuts split.
  int limiting_part = -1;
  std::vector<std::pair<double, double>> limiting;
  /// The heaviest interval with a cut strictly inside that holds more than
  /// one part's share of the cost (T/P): its ends, its cost in shares, and
  /// the cuts inside it. coarse_cuts = 0: none (the samples resolve the cuts).
  double coarse_lo = 0, coarse_hi = 0, coarse_shares = 0;
  int coarse_cuts = 0;
  /// False when a part reaches beyond the samples' span: the cost there is
  /// unknown and le_lo is −∞ (reported as such).
  bool covered = true;
  /// The relative error each timing was allowed (guaranteed_balance()'s noise).
  double noise = 0;

  /// One line: the L_E range, the limiting intervals, a coarse interval.
  std::string brief_report() const;
};

/// The guarantee for the partition `cuts` (P + 1 nondecreasing ends) with
/// `speeds` (P ranks) from samples of one run (they tile) or cumulative
/// samples: their cumulative points' intervals, each's cost within
/// ±`noise` (relative, in [0, 1)) of its timing. O(n + P log n). Throws
/// Error for samples of several runs, cuts not nondecreasing or not finite,
/// speeds for another P, or a noise outside [0, 1).
BalanceGuarantee guaranteed_balance(const Samples& samples, std::span<const double> cuts,
                                    const Speeds& speeds, double noise = 0);

}  // namespace isocost
