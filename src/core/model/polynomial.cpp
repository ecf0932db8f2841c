#include "core/model/polynomial.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/math/tools/toms748_solve.hpp>

namespace isocost::detail {

double polynomial_value(const std::vector<double>& c, double x) {
  double v = 0;
  for (std::size_t k = c.size(); k-- > 0;) v = v * x + c[k];
  return v;
}

std::vector<double> polynomial_derivative(const std::vector<double>& c) {
  std::vector<double> d;
  for (std::size_t k = 1; k < c.size(); ++k) d.push_back(static_cast<double>(k) * c[k]);
  return d;
}

std::vector<double> polynomial_roots(const std::vector<double>& c_in, double a, double b) {
  std::vector<double> c = c_in;
  while (!c.empty() && c.back() == 0.0) c.pop_back();
  if (c.size() <= 1) return {};  // constant: no isolated roots
  if (c.size() == 2) {
    const double r = -c[0] / c[1];
    return (r > a && r < b) ? std::vector<double>{r} : std::vector<double>{};
  }
  // Between consecutive critical points the polynomial is monotone.
  std::vector<double> knots{a};
  for (double r : polynomial_roots(polynomial_derivative(c), a, b)) knots.push_back(r);
  knots.push_back(b);
  std::vector<double> roots;
  for (std::size_t k = 0; k + 1 < knots.size(); ++k) {
    const double u = knots[k], v = knots[k + 1];
    const double fu = polynomial_value(c, u), fv = polynomial_value(c, v);
    if (fu == 0.0 && u > a) {
      if (roots.empty() || roots.back() != u) roots.push_back(u);
      continue;
    }
    if ((fu < 0 && fv > 0) || (fu > 0 && fv < 0)) {
      std::uintmax_t iterations = 200;
      auto f = [&](double x) { return polynomial_value(c, x); };
      auto r = boost::math::tools::toms748_solve(
          f, u, v, fu, fv, boost::math::tools::eps_tolerance<double>(52), iterations);
      roots.push_back(0.5 * (r.first + r.second));
    }
  }
  return roots;
}

MinDerivative polynomial_min_derivative(const std::vector<double>& c, double a, double b) {
  const auto d = polynomial_derivative(c);
  std::vector<double> xs{a, b};
  for (double r : polynomial_roots(polynomial_derivative(d), a, b)) xs.push_back(r);
  MinDerivative best{a, std::numeric_limits<double>::infinity(), 0};
  for (double x : xs) {
    const double v = polynomial_value(d, x);
    if (v < best.value) {
      double scale = 0, power = 1;
      for (double dk : d) {
        scale += std::abs(dk) * power;
        power *= std::abs(x);
      }
      best = {x, v, scale * std::numeric_limits<double>::epsilon()};
    }
  }
  return best;
}

}  // namespace isocost::detail
