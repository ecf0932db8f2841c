// The cells, their work and the checks of the density2d example.
#include "density2d_kernel.hpp"

#include <cmath>

#include "example_support.hpp"

namespace density2d {

std::int64_t units(std::int64_t i, std::int64_t j, std::int64_t n, double k) {
  const double h = kSide / static_cast<double>(n);
  const double x = (static_cast<double>(i) + 0.5) * h, y = (static_cast<double>(j) + 0.5) * h;
  return std::llround(k * (x + y));
}

std::vector<double> unit_grid(std::int64_t n, double k) {
  std::vector<double> w(static_cast<std::size_t>(n * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i)
      w[static_cast<std::size_t>(i + n * j)] = static_cast<double>(units(i, j, n, k));
  return w;
}

Tally work(std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1, std::int64_t n,
           double k) {
  Tally t;
  for (std::int64_t j = j0; j < j1; ++j)
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int64_t u = units(i, j, n, k);
      double v = 1.0 + 1e-9 * static_cast<double>(i + j);
      for (std::int64_t s = 0; s < u; ++s) v = std::sqrt(v * v + 1e-3) * 0.9999;  // dependent
      t.sink += v;
      t.units += u;
      ++t.cells;
      t.hash ^= examples::mix64(static_cast<std::uint64_t>(i + n * j));
    }
  return t;
}

Tally reference(std::int64_t n, double k) {
  Tally t;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      t.units += units(i, j, n, k);
      ++t.cells;
      t.hash ^= examples::mix64(static_cast<std::uint64_t>(i + n * j));
    }
  return t;
}

}  // namespace density2d
