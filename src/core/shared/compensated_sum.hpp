// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// Neumaier's compensated summation: the running sum carries the rounding
// error of every addition in a second double, so a prefix sum of n terms is
// accurate to about ε·|sum| + n·ε²·Σ|w| instead of n·ε·Σ|w| — which matters
// for 10^9 cells, or a few large weights followed by many small ones (plain
// double and even x87 long double accumulation drop each small term there).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

namespace isocost::detail {

struct CompensatedSum {
  double sum = 0;
  double compensation = 0;

  void add(double x) {
    const double t = sum + x;
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  /// Adds a compensated sum of terms that come before this one's (another
  /// rank's part of a reduction): the heads by TwoSum, the errors added, as
  /// double-doubles are.
  void add_earlier(const CompensatedSum& earlier) {
    const double s = earlier.sum + sum;
    const double bb = s - earlier.sum;
    const double e = (earlier.sum - (s - bb)) + (sum - bb);
    compensation = earlier.compensation + compensation + e;
    sum = s;
  }
  /// The compensated sum; ±inf or NaN once the plain sum left the double range.
  double value() const { return std::isfinite(sum) ? sum + compensation : sum; }
};

/// Neumaier's compensated prefix sums of weights w >= 0 carried on from
/// `run`: out[k] is run.value() after run.add(w[0]), …, run.add(w[k]), bit
/// for bit, and `run` ends as those adds leave it. Cheaper than the adds:
/// blocks of cells are summed with Fast2Sum's step where it is exact
/// (compensated_prefix.cpp). The sums are non-decreasing. Returns the index of the
/// first weight that is negative, NaN or infinite, or w.size() if none is
/// (the sum may still have overflowed: then run.value() is +inf and out is
/// unspecified from the overflow on). After a bad weight `run` and out are
/// unspecified.
std::size_t compensated_prefix(std::span<const double> w, CompensatedSum& run, double* out);
/// The same sum without the prefix sums: run.add() of every weight.
std::size_t compensated_add(std::span<const double> w, CompensatedSum& run);

}  // namespace isocost::detail
