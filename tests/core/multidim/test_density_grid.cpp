// Tests for the gridded densities of isocost/density.hpp: the in-place
// summed-area table (cell_mass against brute-force sums), proportional shares
// of cells cut by a box, marginals and cross-sections, grid lines and every
// validation error. The text and raw weight files: test_density_grid_io.cpp.
//
// Hand-computed grids used below (x fastest):
//   3x2:   row y=0: 1 2 3      columns: 5 7 9, rows: 6 15, total 21
//          row y=1: 4 5 6
//   2x2x2: w(i, j, k) = 1 + i + 2j + 4k = 1..8, total 36
//          slices z=0: 10, z=1: 26; columns x=0: 16, x=1: 20
#include "core/multidim/density_grid_test.hpp"

namespace {

std::vector<double> Weights2x2x2() {
  std::vector<double> w;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) w.push_back(1 + i + 2 * j + 4 * k);
  return w;
}

// Σ weight × overlap fraction of each cell with a box in cell units.
long double BruteBox(const std::vector<double>& w, const GridShape& s, const Box& b) {
  const std::int64_t nx = s.cells[0], ny = s.dims > 1 ? s.cells[1] : 1,
                     nz = s.dims > 2 ? s.cells[2] : 1;
  auto overlap = [&](int a, std::int64_t c) -> long double {
    if (a >= s.dims) return 1;
    const double lo = std::max<double>(b.lo[a], c), hi = std::min<double>(b.hi[a], c + 1);
    return hi > lo ? hi - lo : 0;
  };
  long double sum = 0;
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i)
        sum += w[i + nx * (j + ny * k)] * overlap(0, i) * overlap(1, j) * overlap(2, k);
  return sum;
}

// ---------------------------------------------------------------------------
// Small hand-computed grids.

TEST(GridDensity, CellMassOfEverySubRange2D) {
  const auto d = isocost::grid_density(k3x2, Shape(3, 2));
  EXPECT_EQ(d.total(), 21);
  EXPECT_EQ(d.cell_mass({0, 0, 0}, {3, 2, 1}), 21);
  EXPECT_EQ(d.cell_mass({1, 0, 0}, {3, 1, 1}), 5);  // 2 + 3
  EXPECT_EQ(d.cell_mass({1, 1, 0}, {2, 2, 0}), 5);  // unused z range ignored
  EXPECT_EQ(d.cell_mass({2, 0, 0}, {2, 2, 1}), 0);  // empty
  int ranges = 0;
  ForEachRange(Shape(3, 2), [&](const Cells& c0, const Cells& c1) {
    EXPECT_EQ(d.cell_mass(c0, c1), static_cast<double>(BruteCells(k3x2, Shape(3, 2), c0, c1)))
        << c0[0] << ":" << c1[0] << " " << c0[1] << ":" << c1[1];
    ++ranges;
  });
  EXPECT_EQ(ranges, 10 * 6);
}

TEST(GridDensity, CellMassOfEverySubRange3D) {
  const auto w = Weights2x2x2();
  const auto d = isocost::grid_density(w, Shape(2, 2, 2));
  EXPECT_EQ(d.total(), 36);
  EXPECT_EQ(d.cell_mass({1, 0, 1}, {2, 1, 2}), 6);
  EXPECT_EQ(d.cell_mass({0, 0, 1}, {2, 2, 2}), 26);
  EXPECT_EQ(d.cell_mass({1, 0, 0}, {2, 2, 2}), 20);
  ForEachRange(Shape(2, 2, 2), [&](const Cells& c0, const Cells& c1) {
    EXPECT_EQ(d.cell_mass(c0, c1), static_cast<double>(BruteCells(w, Shape(2, 2, 2), c0, c1)));
  });
}

TEST(GridDensity, OneDimensional) {
  const auto d = isocost::grid_density({1, 0, 3}, GridShape{1, {3, 7, 7}});
  EXPECT_EQ(d.dims(), 1);
  EXPECT_EQ(d.total(), 4);
  EXPECT_EQ(d.grid()->cells[1], 1);  // unused axes normalised
  EXPECT_EQ(d.mass(Box::of({0.5}, {2.5})), 0.5 + 0 + 1.5);
  EXPECT_EQ(d.cross_section(d.box(), 0, 1.5), 0);
  EXPECT_EQ(d.cross_section(d.box(), 0, 2), 3);  // grid line: the cell above
  EXPECT_EQ(d.describe(), "grid 3 cells on [0, 3]");
}

TEST(GridDensity, MassOfBoxesCuttingCells2D) {
  const auto d = isocost::grid_density(k3x2, Shape(3, 2));
  // Row 0 from x = 0.5 to 2.5: half of 1, all of 2, half of 3.
  EXPECT_DOUBLE_EQ(d.mass(Box::of({0.5, 0}, {2.5, 1})), 4);
  // Both rows' x shares (4 and 10), half of each row.
  EXPECT_DOUBLE_EQ(d.mass(Box::of({0.5, 0.5}, {2.5, 1.5})), 7);
  // Column 1 (2 over 5), half of it in x; 3/4 of the lower cell, all of the upper.
  EXPECT_DOUBLE_EQ(d.mass(Box::of({1.25, 0.25}, {1.75, 2})), 0.5 * (2 * 0.75 + 5));
  EXPECT_DOUBLE_EQ(d.mass(Box::of({0, 0}, {3, 0.5})), 3);
  // Inside one cell: 6 × 0.4 × 0.2.
  EXPECT_NEAR(d.mass(Box::of({2.2, 1.1}, {2.6, 1.3})), 0.48, 1e-14);
  EXPECT_EQ(d.mass(Box::of({1, 0}, {2, 2})), 7);
  EXPECT_EQ(d.mass(Box::of({1, 1}, {1, 2})), 0);  // zero width
  EXPECT_EQ(d.mass(d.box()), 21);
}

TEST(GridDensity, MassOfBoxesCuttingCells3D) {
  const auto d = isocost::grid_density(Weights2x2x2(), Shape(2, 2, 2));
  // Half of every cell along every axis: 36 / 8.
  EXPECT_DOUBLE_EQ(d.mass(Box::of({0.5, 0.5, 0.5}, {1.5, 1.5, 1.5})), 4.5);
  EXPECT_DOUBLE_EQ(d.mass(Box::of({0, 0, 0}, {2, 2, 0.5})), 5);      // slice z=0 is 10
  EXPECT_DOUBLE_EQ(d.mass(Box::of({0.25, 0, 1}, {1, 1, 2})), 3.75);  // cell (0,0,1) = 5
  EXPECT_DOUBLE_EQ(d.mass(Box::of({1, 1, 1}, {2, 2, 1.25})), 2);     // cell (1,1,1) = 8
  // Cross-sections: slice z=1 (26), column x=0 (16), row y=1 within x < 1 (3 + 7).
  EXPECT_EQ(d.cross_section(d.box(), 2, 1.5), 26);
  EXPECT_EQ(d.cross_section(d.box(), 0, 0.5), 16);
  EXPECT_EQ(d.cross_section(Box::of({0, 0, 0}, {1, 2, 2}), 1, 2), 10);
  EXPECT_DOUBLE_EQ(d.marginal(d.box(), 2, 1.5), 10 + 13);
  EXPECT_EQ(d.describe(), "grid 2x2x2 cells on [0, 2] x [0, 2] x [0, 2]");
}

TEST(GridDensity, MarginalAndCrossSection2D) {
  const auto d = isocost::grid_density(k3x2, Shape(3, 2));
  const Box all = d.box();
  EXPECT_DOUBLE_EQ(d.marginal(all, 0, 1.5), 5 + 3.5);  // column 0 + half of column 1
  EXPECT_DOUBLE_EQ(d.marginal(all, 1, 0.5), 3);
  EXPECT_EQ(d.marginal(all, 0, 3), 21);
  // Column masses / cell width 1; at a grid line the cell above, at hi the one below.
  EXPECT_EQ(d.cross_section(all, 0, 0), 5);
  EXPECT_EQ(d.cross_section(all, 0, 0.5), 5);
  EXPECT_EQ(d.cross_section(all, 0, 1), 7);
  EXPECT_EQ(d.cross_section(all, 0, 2.999), 9);
  EXPECT_EQ(d.cross_section(all, 0, 3), 9);
  EXPECT_EQ(d.cross_section(all, 1, 1), 15);
  EXPECT_EQ(d.cross_section(all, 1, 2), 15);
  // Restricted to a box: column 1 over y in [0.5, 2] is 2/2 + 5.
  const Box part = Box::of({0.5, 0.5}, {2.5, 2});
  EXPECT_DOUBLE_EQ(d.cross_section(part, 0, 1.5), 6);
  EXPECT_DOUBLE_EQ(d.cross_section(part, 0, 2.5), 1.5 + 6);
  // A box ending on an interior grid line: its own (lower) cell there.
  EXPECT_EQ(d.cross_section(Box::of({0, 0}, {2, 2}), 0, 2), 7);
  EXPECT_EQ(d.cross_section(Box::of({2, 0}, {3, 2}), 0, 2), 9);
  EXPECT_EQ(d.cross_section(Box::of({0, 0}, {1, 2}), 0, 1), 5);
}

TEST(GridDensity, CrossSectionIsTheDerivativeOfTheMarginal) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> w(5 * 4 * 3);
  for (auto& v : w) v = unit(rng);
  const auto d = isocost::grid_density(w, Shape(5, 4, 3), Box::of({-1, 0, 2}, {4, 8, 2.75}));
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Box within = d.box();
    for (int a = 0; a < 3; ++a) {
      double p = d.box().lo[a] + unit(rng) * d.box().width(a);
      double q = d.box().lo[a] + unit(rng) * d.box().width(a);
      within.lo[a] = std::min(p, q);
      within.hi[a] = std::max(p, q);
    }
    const int axis = trial % 3;
    const double cell = d.box().width(axis) / static_cast<double>(d.grid()->cells[axis]);
    const double x = within.lo[axis] + unit(rng) * within.width(axis);
    const double h = 1e-5 * cell;
    const double k = (x - d.box().lo[axis]) / cell;  // away from grid lines and the ends
    if (std::abs(k - std::round(k)) < 1e-3 || x - h < within.lo[axis] || x + h > within.hi[axis])
      continue;
    const double numeric =
        (d.marginal(within, axis, x + h) - d.marginal(within, axis, x - h)) / (2 * h);
    const double exact = d.cross_section(within, axis, x);
    EXPECT_NEAR(numeric, exact, 1e-7 * (1 + exact)) << "axis " << axis << " x " << x;
    // Piecewise-constant: the same value anywhere in that cell column.
    const double cell_lo = d.box().lo[axis] + std::floor(k) * cell;
    const double y = std::clamp(cell_lo + 0.5 * cell, within.lo[axis], within.hi[axis]);
    EXPECT_NEAR(d.cross_section(within, axis, y), exact, 1e-12 * (1 + exact));
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

TEST(GridDensity, NonUnitBox) {
  // Cells 2.5 wide in both directions.
  const auto d = isocost::grid_density(k3x2, Shape(3, 2), Box::of({10, -1}, {17.5, 4}));
  EXPECT_EQ(d.total(), 21);
  EXPECT_EQ(d.describe(), "grid 3x2 cells on [10, 17.5] x [-1, 4]");
  EXPECT_EQ(d.grid_line(0, 1), 12.5);
  EXPECT_EQ(d.grid_line(1, 2), 4);
  // Cell coordinates [0.5, 2.5] × [0, 1], as in the unit box: 4.
  EXPECT_DOUBLE_EQ(d.mass(Box::of({11.25, -1}, {16.25, 1.5})), 4);
  // Column 1 (7) over a cell width of 2.5.
  EXPECT_DOUBLE_EQ(d.cross_section(d.box(), 0, 13.75), 7 / 2.5);
  EXPECT_DOUBLE_EQ(d.cross_section(d.box(), 1, 0), 6 / 2.5);
  EXPECT_DOUBLE_EQ(d.marginal(d.box(), 0, 13.75), 5 + 3.5);
  EXPECT_EQ(d.mass(Box::of({d.grid_line(0, 1), d.grid_line(1, 0)},
                           {d.grid_line(0, 3), d.grid_line(1, 1)})),
            5);
}

TEST(GridDensity, GridLinesGiveExactWholeCellMasses) {
  // Grid lines of [0.1, 0.7] in 7 cells are not exact in binary; masses of
  // boxes between them still equal cell_mass bit for bit.
  std::vector<double> w(7 * 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i % 5 + 1);
  const GridShape s = Shape(7, 3);
  const auto d = isocost::grid_density(w, s, Box::of({0.1, -0.3}, {0.7, 0.3}));
  for (std::int64_t a = 0; a <= 7; ++a)
    for (std::int64_t b = a; b <= 7; ++b)
      for (std::int64_t c = 0; c <= 3; ++c)
        for (std::int64_t e = c; e <= 3; ++e) {
          const Box box = Box::of({d.grid_line(0, a), d.grid_line(1, c)},
                                  {d.grid_line(0, b), d.grid_line(1, e)});
          EXPECT_EQ(d.mass(box), d.cell_mass({a, c, 0}, {b, e, 1})) << a << b << c << e;
        }
  for (std::int64_t a = 0; a <= 7; ++a)
    EXPECT_EQ(d.marginal(d.box(), 0, d.grid_line(0, a)), d.cell_mass({0, 0, 0}, {a, 3, 1}));
  EXPECT_EQ(d.grid_line(0, 0), 0.1);
  EXPECT_EQ(d.grid_line(0, 7), 0.7);
}

// ---------------------------------------------------------------------------
// Random grids against brute force.

TEST(GridDensity, RandomGridsMatchBruteForce) {
  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::vector<GridShape> shapes = {GridShape{1, {37, 1, 1}}, Shape(13, 7), Shape(16, 16),
                                         Shape(5, 1, 9), Shape(16, 16, 8)};
  double worst_relative = 0;
  for (const auto& s : shapes) {
    std::vector<double> w(static_cast<std::size_t>(s.count()));
    for (auto& v : w) v = unit(rng) * unit(rng) * 100;  // some tiny weights
    const auto d = isocost::grid_density(w, s);
    const double total = d.total();
    EXPECT_NEAR(total, static_cast<double>(BruteCells(w, s, {0, 0, 0}, d.grid()->cells)),
                1e-14 * total);
    for (int trial = 0; trial < 300; ++trial) {
      Cells c0{0, 0, 0}, c1{1, 1, 1};
      for (int a = 0; a < s.dims; ++a) {
        std::uniform_int_distribution<std::int64_t> pick(0, s.cells[a]);
        c0[a] = pick(rng);
        c1[a] = pick(rng);
        if (c0[a] > c1[a]) std::swap(c0[a], c1[a]);
      }
      const double brute = static_cast<double>(BruteCells(w, s, c0, c1));
      const double got = d.cell_mass(c0, c1);
      // The documented bound: a few ulps of the total (inclusion–exclusion).
      EXPECT_NEAR(got, brute, 1e-13 * total);
      if (brute > 1e-3 * total) {
        EXPECT_NEAR(got, brute, 1e-12 * brute);
        worst_relative = std::max(worst_relative, std::abs(got - brute) / brute);
      }
      Box b = d.box();
      for (int a = 0; a < s.dims; ++a) {
        const double p = unit(rng) * d.box().hi[a], q = unit(rng) * d.box().hi[a];
        b.lo[a] = std::min(p, q);
        b.hi[a] = std::max(p, q);
      }
      EXPECT_NEAR(d.mass(b), static_cast<double>(BruteBox(w, s, b)), 1e-13 * total);
    }
  }
  std::ostringstream worst;
  worst << worst_relative;
  RecordProperty("worst_relative_error", worst.str());
}

TEST(GridDensity, DyadicWeightsAreExact) {
  // Weights k/1024 keep every partial sum exact, so the table is exact too.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> pick(0, 4096);
  const GridShape s = Shape(16, 16, 8);
  std::vector<double> w(static_cast<std::size_t>(s.count()));
  for (auto& v : w) v = pick(rng) / 1024.0;
  const auto d = isocost::grid_density(w, s);
  for (int trial = 0; trial < 500; ++trial) {
    Cells c0, c1;
    for (int a = 0; a < 3; ++a) {
      std::uniform_int_distribution<std::int64_t> at(0, s.cells[a]);
      c0[a] = at(rng);
      c1[a] = at(rng);
      if (c0[a] > c1[a]) std::swap(c0[a], c1[a]);
    }
    EXPECT_EQ(d.cell_mass(c0, c1), static_cast<double>(BruteCells(w, s, c0, c1)));
  }
}

// ---------------------------------------------------------------------------
// The table reuses the weights' memory.

TEST(GridDensity, BuildsInPlace256Cubed) {
  const std::int64_t n = 256;
  const GridShape s = Shape(n, n, n);
  std::vector<double> w(static_cast<std::size_t>(s.count()));
  double sum = 0;  // integers: exact
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const double v = static_cast<double>((i * 7 + j * 3 + k) % 5);
        w[static_cast<std::size_t>(i + n * (j + n * k))] = v;
        sum += v;
      }
  const double* data = w.data();
  const auto d = isocost::grid_density(std::move(w), s);
  const auto table = isocost::detail::grid_table(d);
  EXPECT_EQ(table.data(), data) << "the summed-area table must reuse the weights' memory";
  EXPECT_EQ(table.size(), static_cast<std::size_t>(s.count()));
  EXPECT_EQ(d.total(), sum);
  // Sub-block [100, 110) × [20, 30) × [250, 256): brute force over its cells.
  double block = 0;
  for (std::int64_t k = 250; k < 256; ++k)
    for (std::int64_t j = 20; j < 30; ++j)
      for (std::int64_t i = 100; i < 110; ++i)
        block += static_cast<double>((i * 7 + j * 3 + k) % 5);
  EXPECT_EQ(d.cell_mass({100, 20, 250}, {110, 30, 256}), block);
}

// ---------------------------------------------------------------------------
// Validation.

TEST(GridDensity, BadWeights) {
  expect_error(
      [] {
        isocost::grid_density({1, 2, 3, 4, -1, 6}, Shape(3, 2));
      },
      {"cell (1, 1)", "-1", ">= 0"});
  auto w = Weights2x2x2();
  w[5] = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { isocost::grid_density(w, Shape(2, 2, 2)); }, {"cell (1, 0, 1)", "nan"});
  w[5] = std::numeric_limits<double>::infinity();
  expect_error([&] { isocost::grid_density(w, Shape(2, 2, 2)); }, {"cell (1, 0, 1)", "inf"});
  expect_error(
      [] {
        isocost::grid_density({0, 0, 0, 0, 0, 0}, Shape(3, 2));
      },
      {"all weights are zero"});
  expect_error(
      [] {
        isocost::grid_density({1e308, 1e308}, GridShape{1, {2, 1, 1}});
      },
      {"the weights' sum: expected a finite number, got inf"});
  expect_error(
      [] {
        isocost::grid_density({1, 2, 3, 4, 5}, Shape(3, 2));
      },
      {"5 weights", "3x2", "6 cells"});
}

TEST(GridDensity, BadShapeOrBox) {
  expect_error(
      [] {
        isocost::grid_density({1}, GridShape{0, {1, 1, 1}});
      },
      {"1 to 3 dimensions", "got 0"});
  expect_error([] { isocost::grid_density({1}, GridShape{4, {1, 1, 1}}); }, {"got 4"});
  expect_error([] { isocost::grid_density({}, Shape(3, 0)); }, {"cells along y", ">= 1", "got 0"});
  expect_error([] { isocost::grid_density({}, Shape(1LL << 40, 1LL << 40)); }, {"more than"});
  expect_error(
      [] {
        isocost::grid_density(k3x2, Shape(3, 2), Box::of({0, 0, 0}, {1, 1, 1}));
      },
      {"box has 3 dimensions", "grid shape 2"});
  expect_error(
      [] {
        isocost::grid_density(k3x2, Shape(3, 2), Box::of({0, 1}, {1, 1}));
      },
      {"y range", "lo < hi"});
}

}  // namespace
