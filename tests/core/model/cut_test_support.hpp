// Shared by the tests of the cut solvers (test_cut.cpp, test_numerical_edges.cpp).
#pragma once

#include "isocost/cut.hpp"

namespace isocost::testing {

/// Every root finder, for tests that hold for each of them.
inline constexpr CutMethod kMethods[] = {CutMethod::newton, CutMethod::secant, CutMethod::bisection,
                                         CutMethod::toms748};

/// Default options with method `m`.
inline CutOptions with(CutMethod m) {
  CutOptions o;
  o.method = m;
  return o;
}

}  // namespace isocost::testing
