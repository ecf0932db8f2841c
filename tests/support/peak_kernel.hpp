// Issue #25's kernel: cost density 1 + 20·exp(−((x − 700)/50)²) µs on
// [0, 1000], whose cost inside one of 16 equal intervals the timings cannot
// resolve. Shared by the tests of the guarantee and of several runs.
#pragma once

#include <cmath>

namespace isocost::testing {

/// ∫_0^x of the density: x + 20·50·(√π/2)·(erf((x − 700)/50) + erf(14)).
inline double peak_cumulative(double x) {
  return x + 500 * std::sqrt(M_PI) * (std::erf((x - 700) / 50) + std::erf(14.0));
}

}  // namespace isocost::testing
