// Links isocost::core from an install tree and checks one closed form:
// t(x) = x^2 on [0, 1] cut for 4 ranks gives x_i = sqrt(i/4).
#include <cmath>
#include <cstdio>

#include "isocost/cost_model.hpp"
#include "isocost/partition.hpp"

int main() {
  const auto t = isocost::power_model(1.0, 2.0, 0.0, 0.0, 1.0);
  const auto part = isocost::partition(t, isocost::Speeds::uniform(4));
  int bad = 0;
  for (int i = 0; i <= 4; ++i) {
    const double expected = std::sqrt(i / 4.0);
    std::printf("x_%d = %.15f (expected %.15f)\n", i, part.cuts[i], expected);
    if (std::abs(part.cuts[i] - expected) > 1e-12) ++bad;
  }
  return bad == 0 ? 0 : 1;
}
