// Tests for isocost/shift.hpp, jagged 2-D: shift_jagged() against closed
// forms for rho = x + y on [0, 20]² (Swartz §5), 2×2 jagged grid from the
// uniform cuts: the column marginal is M(x) = 10x² + 200x, so the balanced
// column cut solves x² + 20x − 400 = 0, X = √500 − 10; inside a column [a, b]
// of width W the y marginal is W·y²/2 + (b² − a²)/2·y, and halving it gives
// y² + (a + b)·y − 10(a + b) − 200 = 0. Grid cuts stay on grid lines.
#include "isocost/shift.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "shift_test_support.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::imbalance;
using isocost::testing::expect_error;

using isocost::testing::v;

// ---------------------------------------------------------------------------
// Jagged 2-D

isocost::Decomposition uniform_jagged(const isocost::Density& d, double xcut, double ycut0,
                                      double ycut1) {
  // Hand-made 2×2 jagged grid {{2, 2}, {x, y}} on [0, 20]².
  isocost::Decomposition dec;
  dec.process_grid = {{2, 2}, {0, 1}};
  const double xs[] = {0, xcut, 20};
  const double ys[2][3] = {{0, ycut0, 20}, {0, ycut1, 20}};
  for (int c = 0; c < 2; ++c)
    for (int r = 0; r < 2; ++r) {
      isocost::Part p;
      p.rank = 2 * c + r;
      p.box = isocost::Box::of({xs[c], ys[c][r]}, {xs[c + 1], ys[c][r + 1]});
      p.cost = d.mass(p.box);
      dec.parts.push_back(p);
    }
  return dec;
}

TEST(ShiftJagged, SwartzDensityClosedForm) {
  const auto rho = isocost::analytic_density([](std::span<const double> p) { return p[0] + p[1]; },
                                             isocost::Box::of({0, 0}, {20, 20}));
  const auto dec = uniform_jagged(rho, 10, 10, 10);
  // Measured = the true masses, in seconds ×2.
  std::vector<double> loads;
  for (const auto& p : dec.parts) loads.push_back(2 * rho.mass(p.box));
  EXPECT_NEAR(loads[0] + loads[1], 6000, 1e-6);  // column [0, 10]: 3000
  isocost::DiffusionOptions lsq;
  lsq.scheme = isocost::DiffusionScheme::least_squares;
  const auto out = isocost::shift_jagged(rho, dec, loads, lsq);
  ASSERT_EQ(out.ranks(), 4);
  const double X = std::sqrt(500.0) - 10;
  auto y_of = [](double a, double b) {
    const double s = a + b;
    return (-s + std::sqrt(s * s + 40 * s + 800)) / 2;
  };
  const double tol = 1e-8;
  EXPECT_NEAR(out.parts[0].box.hi[0], X, tol);
  EXPECT_NEAR(out.parts[1].box.hi[0], X, tol);
  EXPECT_NEAR(out.parts[2].box.lo[0], X, tol);
  EXPECT_NEAR(out.parts[0].box.hi[1], y_of(0, X), tol);
  EXPECT_NEAR(out.parts[1].box.lo[1], y_of(0, X), tol);
  EXPECT_NEAR(out.parts[2].box.hi[1], y_of(X, 20), tol);
  for (const auto& p : out.parts) {
    EXPECT_EQ(p.rank, &p - out.parts.data());
    EXPECT_NEAR(p.cost, 2000, 1e-6);
    EXPECT_NEAR(p.time, 4000, 1e-5);  // k = 2 seconds per unit cost
  }
  EXPECT_NEAR(out.predicted_le, 100, 1e-8);
  EXPECT_TRUE(out.converged());
  EXPECT_FALSE(out.on_grid_lines);
}

TEST(ShiftJagged, GridCutsStayOnGridLines) {
  // 8 × 8 cells of weight 1, the 2 × 2 grid at cell 4; rank 0 measured twice
  // as slow. Columns: 48 vs 32, least squares sends 8 seconds of column 0
  // (2/3 of a unit of mass each) = 16/3 mass = 2/3 of a column of 8 cells:
  // the cut 4 − 2/3 lies nearest grid line 3.
  const auto rho = isocost::grid_density(std::vector<double>(64, 1.0), {2, {8, 8, 1}});
  const auto dec = isocost::decompose(rho, {{2, 2}, {0, 1}}, isocost::Speeds::uniform(4));
  ASSERT_EQ(dec.parts[0].cell_hi[0], 4);
  const std::vector<double> loads{32, 16, 16, 16};
  isocost::DiffusionOptions lsq;
  lsq.scheme = isocost::DiffusionScheme::least_squares;
  const auto out = isocost::shift_jagged(rho, dec, loads, lsq);
  EXPECT_TRUE(out.on_grid_lines);
  EXPECT_EQ(out.parts[0].cell_hi[0], 3);
  EXPECT_EQ(out.parts[2].cell_lo[0], 3);
  for (const auto& p : out.parts)
    for (int a = 0; a < 2; ++a) {
      EXPECT_GE(p.cell_hi[a] - p.cell_lo[a], 1);
      EXPECT_EQ(p.box.lo[a], static_cast<double>(p.cell_lo[a]));
      EXPECT_EQ(p.box.hi[a], static_cast<double>(p.cell_hi[a]));
    }
  // Column 0 (3 cells wide): rank 0 (2 s per cell) against rank 1 (1 s per
  // cell), 12 cells each: 24 vs 12 predicted; least squares moves 6 s of
  // rank 0 = 3 cells = one row of 3: the y cut goes 4 → 3.
  EXPECT_EQ(out.parts[0].cell_hi[1], 3);
  const double before = 32.0 / 20 - 1;
  std::vector<double> times;
  for (const auto& p : out.parts) times.push_back(p.time);
  EXPECT_LT(imbalance(times), before);
  // The old costs were recomputed from the density, not taken from `dec`.
  auto tampered = dec;
  for (auto& p : tampered.parts) p.cost = 1e9;
  EXPECT_EQ(isocost::shift_jagged(rho, tampered, loads, lsq).parts[0].cell_hi[0], 3);
}

TEST(ShiftJagged, RowsAreOneLevel) {
  const auto rho = isocost::analytic_density([](std::span<const double> p) { return p[0] + p[1]; },
                                             isocost::Box::of({0, 0}, {20, 20}));
  const auto dec = isocost::decompose(rho, {{2}, {1}}, isocost::Speeds::uniform(2));
  // Loads 3:1, in model units the cut moves so that rank 0 gives 1/3 of its cost.
  const std::vector<double> loads{3, 1};
  isocost::DiffusionOptions lsq;
  lsq.scheme = isocost::DiffusionScheme::least_squares;
  const auto out = isocost::shift_jagged(rho, dec, loads, lsq);
  // t(y) = 200y + 10y²; the cut had t = 4000, and moves to t = 4000 − 4000/3.
  const double target = 4000 - 4000.0 / 3;
  const double y = -10 + std::sqrt(100 + target / 10);
  EXPECT_NEAR(out.parts[0].box.hi[1], y, 1e-8);
}

TEST(ShiftJagged, BadInput) {
  const auto rho = isocost::analytic_density([](std::span<const double> p) { return p[0] + p[1]; },
                                             isocost::Box::of({0, 0}, {20, 20}));
  const auto dec = uniform_jagged(rho, 10, 10, 10);
  expect_error([&] { isocost::shift_jagged(rho, dec, v({1, 1, 1})); }, {"3 loads", "4 ranks"});
  expect_error([&] { isocost::shift_jagged(rho, dec, v({1, 1, -1, 1})); }, {"rank 2", "-1"});
  expect_error([&] { isocost::shift_jagged(rho, dec, v({0, 0, 0, 0})); }, {"all loads are zero"});
  auto broken = dec;
  broken.parts[3].box.lo[1] = 11;  // a gap in column 1
  expect_error(
      [&] {
        isocost::shift_jagged(rho, broken, v({1, 1, 1, 1}));
      },
      {"part 3", "expected the decomposition"});
  auto missing = dec;
  missing.parts.pop_back();
  expect_error([&] { isocost::shift_jagged(rho, missing, v({1, 1, 1, 1})); }, {"3 parts"});
  isocost::DiffusionOptions bad;
  bad.alpha = 2;
  expect_error([&] { isocost::shift_jagged(rho, dec, v({1, 1, 1, 1}), bad); }, {"alpha"});
}

}  // namespace
