// Internal: real-root isolation for checking polynomial monotonicity.
#pragma once

#include <vector>

namespace isocost::detail {

/// c[0] + c[1]·x + … by Horner's rule.
double polynomial_value(const std::vector<double>& c, double x);

/// Coefficients of the derivative.
std::vector<double> polynomial_derivative(const std::vector<double>& c);

/// Real roots of the polynomial inside the open interval (a, b), sorted. Exact
/// isolation: the roots of the derivative split (a, b) into monotone pieces and
/// each piece with a sign change holds one root, polished by TOMS748.
std::vector<double> polynomial_roots(const std::vector<double>& c, double a, double b);

/// Where t' = (c)' is smallest on [a, b]: at an end or at a root of t''.
struct MinDerivative {
  double x = 0;
  double value = 0;
  double rounding = 0;  ///< Σ|k·c_k·x^(k−1)|·ε at that x: the evaluation's noise scale
};
MinDerivative polynomial_min_derivative(const std::vector<double>& c, double a, double b);

}  // namespace isocost::detail
