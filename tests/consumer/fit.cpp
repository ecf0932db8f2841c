// Links isocost::fitters (and through it Ceres and muParser) from an install
// tree: fits t = 2·x^1.5 from exact interval samples and checks p = 1.5.
#include <cmath>
#include <cstdio>
#include <vector>

#include "isocost/fitters/fit.hpp"

int main() {
  std::vector<isocost::IntervalSample> v;
  for (int k = 1; k <= 10; ++k)
    v.push_back({double(k), double(k + 1), 2 * (std::pow(k + 1.0, 1.5) - std::pow(k, 1.5))});
  const auto f = isocost::fit(isocost::Samples(v), isocost::parse_fit_spec("power"));
  const double p = f.summary.parameter("p");
  std::printf("fitted p = %.12f (expected 1.5)\n", p);
  return std::abs(p - 1.5) < 1e-8 ? 0 : 1;
}
