// Shared by the tests of the gridded densities of isocost/density.hpp
// (test_density_grid.cpp, test_density_grid_io.cpp): grid shapes, the 3x2
// hand-computed grid, brute-force cell sums and every sub-range of a grid.
// Each test file includes it once; everything is in an anonymous namespace of
// that file.
//
// The hand-computed 3x2 grid (x fastest):
//   row y=0: 1 2 3      columns: 5 7 9, rows: 6 15, total 21
//   row y=1: 4 5 6
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "isocost/density.hpp"
#include "isocost/error.hpp"
#include "support/expect_error.hpp"

namespace isocost::detail {
// Defined in density_grid.cpp (no header): the summed-area table, to check
// that it occupies the moved-in weights' memory.
std::span<const double> grid_table(const Density& density);
}  // namespace isocost::detail

namespace {

using isocost::Box;
using isocost::Density;
using isocost::GridShape;
using isocost::testing::expect_error;
using Cells = std::array<std::int64_t, 3>;

GridShape Shape(std::int64_t nx, std::int64_t ny) { return {2, {nx, ny, 1}}; }
GridShape Shape(std::int64_t nx, std::int64_t ny, std::int64_t nz) { return {3, {nx, ny, nz}}; }

const std::vector<double> k3x2 = {1, 2, 3, 4, 5, 6};

// Σ weights over cells [c0, c1), in long double, straight from the weights.
long double BruteCells(const std::vector<double>& w, const GridShape& s, const Cells& c0,
                       const Cells& c1) {
  const std::int64_t nx = s.cells[0], ny = s.dims > 1 ? s.cells[1] : 1;
  long double sum = 0;
  for (std::int64_t k = c0[2]; k < c1[2]; ++k)
    for (std::int64_t j = c0[1]; j < c1[1]; ++j)
      for (std::int64_t i = c0[0]; i < c1[0]; ++i) sum += w[i + nx * (j + ny * k)];
  return sum;
}

// Every sub-range [c0, c1) of the grid, including empty ones; unused axes
// stay [0, 1) (cell_mass ignores them).
template <class F>
void ForEachRange(const GridShape& s, F&& f) {
  std::array<std::vector<std::pair<std::int64_t, std::int64_t>>, 3> ranges;
  for (int a = 0; a < 3; ++a) {
    if (a >= s.dims) ranges[a].push_back({0, 1});
    for (std::int64_t lo = 0; a < s.dims && lo <= s.cells[a]; ++lo)
      for (std::int64_t hi = lo; hi <= s.cells[a]; ++hi) ranges[a].push_back({lo, hi});
  }
  for (const auto& z : ranges[2])
    for (const auto& y : ranges[1])
      for (const auto& x : ranges[0])
        f(Cells{x.first, y.first, z.first}, Cells{x.second, y.second, z.second});
}

}  // namespace
