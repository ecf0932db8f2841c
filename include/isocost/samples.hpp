// isocost/samples.hpp — measured costs: interval samples, readers, repair and
// tabulation (core layer: no Ceres, no MPI).
//
// A sample says "the work in [lo, hi) took dt". Cumulative samples (x_k, t_k)
// are the same thing with a common left end: [x_0, x_k) took t_k − t_0. Ranks
// measure intervals (their own ranges); runs with different partitions give
// overlapping intervals, which parametric fits (fit.hpp) combine directly.
//
//   auto s = isocost::samples_from_partition(cuts, times);   // one run
//   auto t = isocost::tabulate(s);                            // pchip through it
#pragma once

#include <istream>
#include <span>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/partition.hpp"

namespace isocost {

/// The work in [lo, hi) took dt (> 0).
struct IntervalSample {
  double lo = 0;
  double hi = 0;
  double dt = 0;
  /// The rank that timed it (a file's rank column), so that learn_speeds()
  /// can tell a slow rank from a costly range; -1: not known. Last, so that
  /// {lo, hi, dt} still initialises the rest.
  int rank = -1;
};

/// A validated set of interval samples.
class Samples {
 public:
  Samples() = default;
  /// Validates: at least one sample; all finite; lo < hi; dt > 0; a rank of
  /// -1 or in [0, kMaxRankIndex], and either every sample has one (>= 0) or
  /// none does. Throws Error naming the sample index otherwise.
  explicit Samples(std::vector<IntervalSample> intervals);

  /// Cumulative samples (x_k, t_k), at least 2, all finite: x strictly
  /// increasing, t nondecreasing unless `repair` (then t is replaced by its
  /// isotonic regression first). Becomes the intervals [x_0, x_k) with
  /// dt = t_k − t_0, k >= 1. Points of a flat start (t_k == t_0) would have
  /// dt = 0 and are dropped, so cumulative_points() no longer shows them; if no
  /// point rises above t_0 that is an Error.
  static Samples from_cumulative(std::vector<double> x, std::vector<double> t, bool repair = false);

  /// The intervals in the order given.
  const std::vector<IntervalSample>& intervals() const noexcept { return intervals_; }
  /// Number of samples.
  std::size_t size() const noexcept { return intervals_.size(); }
  /// Every sample has a rank (IntervalSample::rank >= 0). False when empty.
  bool ranked() const noexcept { return !intervals_.empty() && intervals_.front().rank >= 0; }
  /// Smallest lo and largest hi over all samples.
  double lo() const noexcept { return lo_; }
  double hi() const noexcept { return hi_; }

  /// True when, sorted by lo, the samples are contiguous and do not overlap
  /// (each hi equals the next lo): one run of a partition. False when empty.
  bool tiles() const;
  /// True when all samples share the left end lo() (cumulative samples).
  /// False when empty.
  bool cumulative() const;
  /// Cumulative points (x_k, t_k) with t_0 = 0 at x_0 = lo(), for samples that
  /// are cumulative() (sorted by hi; repeats of one interval with equal dt
  /// collapse, with different dt they are an Error, as is a longer interval
  /// with a smaller dt) or tile() (prefix sums of
  /// dt in order of lo). Throws Error otherwise, naming the first overlap or
  /// gap. x and t are overwritten.
  void cumulative_points(std::vector<double>& x, std::vector<double>& t) const;

  /// Samples from both sets, this one's first (e.g. two rounds of
  /// measurements), ranks kept. An empty (default-constructed) set
  /// contributes nothing. Error when one set is ranked() and the other not.
  Samples merged(const Samples& other) const;

 private:
  std::vector<IntervalSample> intervals_;
  double lo_ = 0;
  double hi_ = 0;
};

/// One run of a partition: rank i measured times[i] for [cuts[i], cuts[i+1]).
/// Needs P >= 1 times and P + 1 finite, nondecreasing cuts. With speeds (for
/// exactly P ranks), the cost in speed-1 units is times[i]·speed(i). Ranks with
/// an empty range are skipped (their time is ignored); a zero, negative or
/// non-finite time for a non-empty range is an Error naming the rank, and so is
/// a partition where every range is empty.
Samples samples_from_partition(std::span<const double> cuts, std::span<const double> times,
                               const Speeds* speeds = nullptr);

/// Reads samples from a file: CSV/whitespace rows "x,t" (cumulative),
/// "lo,hi,dt" (intervals) or "lo,hi,dt,rank" (intervals with the rank that
/// timed each, an integer >= 0), with the splitting rules of io.hpp ('#'
/// comments, blank lines, CRLF) and an optional header "x,t", "lo,hi,dt",
/// "x_lo,x_hi,dt", "lo,hi,dt,rank" or "x_lo,x_hi,dt,rank"; the header or the
/// first row fixes the kind, and mixing kinds is an Error. Or JSON (first
/// non-blank character '{' or '['): {"cumulative": [{"x":…, "t":…}, …]} or
/// {"intervals": [{"lo":…, "hi":…, "dt":…}, …]} (each interval may have an
/// integer "rank", and then every one must), or a bare array of either kind
/// of object (its first element fixes the kind); other keys are ignored.
/// Cumulative x must increase strictly in file order. Errors are ParseError
/// with the file and the line of the offending row, JSON element or member
/// (JSON syntax errors too). With `repair`, non-monotone cumulative t is
/// replaced by its isotonic regression instead of rejected.
Samples read_samples(const std::string& path, bool repair = false);
/// As read_samples, from a stream; `name` is used in error messages.
Samples read_samples(std::istream& in, const std::string& name, bool repair = false);

/// Isotonic (nondecreasing) least-squares regression by pool-adjacent-violators:
/// the nondecreasing z minimising Σ w_k (z_k − y_k)². y must be finite; weights
/// default to 1, must be finite and > 0, and match y in size. Already
/// nondecreasing y is returned unchanged. O(n).
std::vector<double> isotonic_regression(std::span<const double> y,
                                        std::span<const double> weights = {});

/// A monotone interpolant through samples that tile the domain or are
/// cumulative: Boost.Math pchip/makima (or linear) through the cumulative
/// points. Outside [lo(), hi()] the model is not defined: cuts must lie inside
/// the sampled range (cost() there is an Error). Overlapping samples from
/// several runs cannot be tabulated (Error); fit a parametric model instead.
/// Errors from cumulative_points() and tabulated_model() are rethrown with the
/// prefix "cannot tabulate the samples: ".
CostModel tabulate(const Samples& samples, Interpolation interpolation = Interpolation::pchip);

}  // namespace isocost
