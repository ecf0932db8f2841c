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
/// `speeds` (P ranks) from the samples of one run or several (split_runs()
/// groups them), each interval's cost within ±`noise` (relative, in [0, 1))
/// of its timing. Throws Error when no run times the whole span without a
/// gap, or for cuts not nondecreasing or not finite, speeds for another P,
/// or a noise outside [0, 1).
BalanceGuarantee guaranteed_balance(const Samples& samples, std::span<const double> cuts,
                                    const Speeds& speeds, double noise = 0);

/// The same from several runs, each its own intervals (disjoint; a
/// cumulative run is its chain): every run bounds each part's cost on its
/// own, and the guarantee takes the tightest bound any run gives — a part's
/// cost at least the most any run's intervals inside it hold, at most the
/// least the intervals meeting it hold in any run that times the whole span
/// (so the range narrows as runs are added). Not the tightest bound the runs
/// allow together (which mixes runs inside one part). Where runs disagree by
/// more than the noise, a part's range closes to its lower bound.
/// O(runs · (n + P log n)).
BalanceGuarantee guaranteed_balance(std::span<const Samples> runs, std::span<const double> cuts,
                                    const Speeds& speeds, double noise = 0);

}  // namespace isocost
