// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// Neumaier's compensated summation: the running sum carries the rounding
// error of every addition in a second double, so a prefix sum of n terms is
// accurate to about ε·|sum| + n·ε²·Σ|w| instead of n·ε·Σ|w| — which matters
// for 10^9 cells, or a few large weights followed by many small ones (plain
// double and even x87 long double accumulation drop each small term there).
#pragma once

#include <cmath>

namespace isocost::detail {

struct CompensatedSum {
  double sum = 0;
  double compensation = 0;

  void add(double x) {
    const double t = sum + x;
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  /// The compensated sum; ±inf or NaN once the plain sum left the double range.
  double value() const { return std::isfinite(sum) ? sum + compensation : sum; }
};

}  // namespace isocost::detail
