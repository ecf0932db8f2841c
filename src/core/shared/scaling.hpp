// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// Exact rescaling by powers of two. Internal.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

namespace isocost::detail {

/// The k for which the largest |v| times 2^k lies in [1, 2) (0 when all are
/// 0). Scaling by 2^k is exact: ordinary values give the same results bit for
/// bit, while sums near the double limit no longer overflow and tiny values
/// no longer go subnormal (tabulated models, diffusion).
inline int unit_exponent(std::span<const double> v) {
  double m = 0;
  for (double e : v) m = std::max(m, std::abs(e));
  return m > 0 ? -std::ilogb(m) : 0;
}

}  // namespace isocost::detail
