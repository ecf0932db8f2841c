// Tests for isocost/decompose.hpp: Swartz §5's rows, closed forms derived here
// for jagged 2-D and 3-D sectioning, grid levels against brute force, coverage,
// speeds, minimum widths, the grid choice and bad input. bottleneck_cuts()
// alone: test_bottleneck_cuts.cpp.
#include "isocost/decompose.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "core/model/brute_bottleneck.hpp"
#include "isocost/error.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::Box;
using isocost::DecomposeOptions;
using isocost::Density;
using isocost::GridShape;
using isocost::ProcessGrid;
using isocost::Speeds;
using isocost::testing::brute_bottleneck;
using isocost::testing::expect_error;

// Swartz §5: rho = C·(x + y) on [0, 20]² (C = 1), with and without its
// antiderivative F(x, y) = (x²y + xy²)/2.
Density swartz(bool with_antiderivative) {
  return isocost::analytic_density(
      [](std::span<const double> p) { return p[0] + p[1]; }, Box::of({0, 0}, {20, 20}), {},
      with_antiderivative
          ? std::function<double(std::span<const double>)>([](std::span<const double> p) {
              return 0.5 * (p[0] * p[0] * p[1] + p[0] * p[1] * p[1]);
            })
          : std::function<double(std::span<const double>)>());
}

TEST(Decompose, SwartzSection5Rows) {
  // 10y² + 200y = 8000·i/4, so y_i = −10 + √(100 + 200·i) = {0, 7.32…, 12.36…,
  // 16.46…, 20}. (The paper prints "−10 + √(1 + 2i)", a typo: its own
  // quadratic gives the 100 and the 200.)
  for (bool F : {true, false}) {
    const auto d = isocost::decompose(swartz(F), {{4}, {1}}, Speeds::uniform(4));
    ASSERT_EQ(d.ranks(), 4);
    for (int i = 0; i < 4; ++i) {
      const auto& b = d.parts[i].box;
      EXPECT_NEAR(b.lo[1], -10 + std::sqrt(100 + 200.0 * i), 1e-9) << "F=" << F << " i=" << i;
      EXPECT_NEAR(b.hi[1], -10 + std::sqrt(100 + 200.0 * (i + 1)), 1e-9);
      EXPECT_EQ(b.lo[0], 0);
      EXPECT_EQ(b.hi[0], 20);
      EXPECT_NEAR(d.parts[i].cost, 2000, 1e-6);
    }
    EXPECT_NEAR(d.parts[1].box.lo[1], 7.32, 5e-3);
    EXPECT_NEAR(d.parts[2].box.lo[1], 12.36, 5e-3);
    EXPECT_NEAR(d.parts[3].box.lo[1], 16.46, 5e-3);
    EXPECT_NEAR(d.predicted_le, 100, 1e-7);
    // Three cuts of width 20 between four rows.
    EXPECT_NEAR(d.cut_surface, 60, 1e-9);
  }
}

TEST(Decompose, JaggedTwoByTwoClosedForm) {
  // rho = x + y on [0,20]², 2 columns in x, then 2 parts in y in each column.
  // Level 0: ∫_0^X ∫_0^20 (x+y) dy dx = 10X² + 200X = 4000 → X = −10 + √500.
  const double X = -10 + std::sqrt(500.0);
  // Left column [0,X]: ∫_0^Y ∫_0^X (x+y) dx dy = X·Y·(X + Y)/2 = 2000
  //   → Y² + X·Y − 4000/X = 0.
  const double Y_left = (-X + std::sqrt(X * X + 16000 / X)) / 2;
  // Right column [X,20], W = 20 − X: ∫_0^Y ((400 − X²)/2 + W·y) dy = 2000
  //   → W·Y² + (400 − X²)·Y − 4000 = 0.
  const double W = 20 - X, b = 400 - X * X;
  const double Y_right = (-b + std::sqrt(b * b + 16000 * W)) / (2 * W);
  const auto d = isocost::decompose(swartz(true), {{2, 2}, {0, 1}}, Speeds::uniform(4));
  ASSERT_EQ(d.ranks(), 4);
  // Ranks: (column, row) lexicographic, the last level fastest.
  EXPECT_NEAR(d.parts[0].box.hi[0], X, 1e-9);
  EXPECT_NEAR(d.parts[2].box.lo[0], X, 1e-9);
  EXPECT_NEAR(d.parts[0].box.hi[1], Y_left, 1e-9);
  EXPECT_NEAR(d.parts[1].box.lo[1], Y_left, 1e-9);
  EXPECT_NEAR(d.parts[2].box.hi[1], Y_right, 1e-9);
  EXPECT_NEAR(d.parts[3].box.lo[1], Y_right, 1e-9);
  for (const auto& p : d.parts) EXPECT_NEAR(p.cost, 2000, 1e-6);
  // Internal cuts: the x cut (20 long) and two y cuts (X and W long).
  EXPECT_NEAR(d.cut_surface, 20 + X + W, 1e-9);
}

TEST(Decompose, ThreeDSectioningOfASeparableDensity) {
  // rho = x·y·z on [0,1]³ is separable: the marginal along x of any slab is
  // ∝ X², so x cuts are at √(i/px), and likewise y and z inside every piece.
  const auto rho = isocost::analytic_density(
      [](std::span<const double> p) { return p[0] * p[1] * p[2]; }, Box::of({0, 0, 0}, {1, 1, 1}),
      {}, [](std::span<const double> p) { return p[0] * p[0] * p[1] * p[1] * p[2] * p[2] / 8; });
  const int px = 3, py = 2, pz = 4;
  const auto d = isocost::decompose(rho, {{px, py, pz}, {0, 1, 2}}, Speeds::uniform(24));
  ASSERT_EQ(d.ranks(), 24);
  for (int i = 0; i < px; ++i)
    for (int j = 0; j < py; ++j)
      for (int k = 0; k < pz; ++k) {
        const auto& b = d.parts[(i * py + j) * pz + k].box;
        EXPECT_NEAR(b.lo[0], std::sqrt(double(i) / px), 1e-9);
        EXPECT_NEAR(b.hi[1], std::sqrt(double(j + 1) / py), 1e-9);
        EXPECT_NEAR(b.lo[2], std::sqrt(double(k) / pz), 1e-9);
        EXPECT_NEAR(d.parts[(i * py + j) * pz + k].cost, 1.0 / 8 / 24, 1e-12);
      }
}

TEST(Decompose, SpeedsGiveEqualTimes) {
  // Each part's cost / speed is the same; slabs get the sum of their ranks'
  // speeds as their share.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.3, 3);
  std::vector<double> s(12);
  for (auto& v : s) v = u(rng);
  const auto speeds = Speeds::from_values(s);
  const auto d = isocost::decompose(swartz(true), {{3, 4}, {1, 0}}, speeds);
  const double t = 8000 / speeds.total();
  for (const auto& p : d.parts) {
    EXPECT_NEAR(p.time, t, 1e-9 * t) << "rank " << p.rank;
    EXPECT_NEAR(p.cost, t * s[p.rank], 1e-9 * t);
  }
  // The separable 3-D case with speeds: x cuts at √(S_i/S) by slab speed sums.
  const auto rho = isocost::analytic_density(
      [](std::span<const double> p) { return p[0] * p[1] * p[2]; }, Box::of({0, 0, 0}, {1, 1, 1}),
      {}, [](std::span<const double> p) { return p[0] * p[0] * p[1] * p[1] * p[2] * p[2] / 8; });
  const auto e = isocost::decompose(rho, {{2, 3, 2}, {0, 1, 2}}, speeds);
  double left = 0;
  for (int r = 0; r < 6; ++r) left += s[r];
  EXPECT_NEAR(e.parts[0].box.hi[0], std::sqrt(left / speeds.total()), 1e-9);
}

// Volumes add up to the box and no two parts overlap (continuous), every cell
// is owned exactly once (grid).
void expect_cover(const isocost::Decomposition& d, const Density& rho) {
  double volume = 0, cost = 0;
  for (const auto& p : d.parts) {
    volume += p.volume;
    cost += p.cost;
    for (int a = 0; a < rho.dims(); ++a) EXPECT_LE(p.box.lo[a], p.box.hi[a]);
  }
  EXPECT_NEAR(volume, rho.box().volume(), 1e-9 * rho.box().volume());
  EXPECT_NEAR(cost, rho.total(), 1e-9 * rho.total());
  for (std::size_t i = 0; i < d.parts.size(); ++i)
    for (std::size_t j = i + 1; j < d.parts.size(); ++j) {
      double overlap = 1;
      for (int a = 0; a < rho.dims(); ++a)
        overlap *= std::max(0.0, std::min(d.parts[i].box.hi[a], d.parts[j].box.hi[a]) -
                                     std::max(d.parts[i].box.lo[a], d.parts[j].box.lo[a]));
      EXPECT_LE(overlap, 1e-9 * rho.box().volume()) << i << " " << j;
    }
  if (const auto* g = rho.grid()) {
    std::vector<int> owner(static_cast<std::size_t>(g->count()), 0);
    for (const auto& p : d.parts)
      for (std::int64_t k = p.cell_lo[2]; k < (g->dims > 2 ? p.cell_hi[2] : 1); ++k)
        for (std::int64_t j = p.cell_lo[1]; j < (g->dims > 1 ? p.cell_hi[1] : 1); ++j)
          for (std::int64_t i = p.cell_lo[0]; i < p.cell_hi[0]; ++i)
            ++owner[i + g->cells[0] * (j + g->cells[1] * k)];
    for (int o : owner) ASSERT_EQ(o, 1);
  }
}

TEST(Decompose, PartsCoverTheBoxExactly) {
  expect_cover(isocost::decompose(swartz(true), {{3, 5}, {0, 1}}, Speeds::uniform(15)),
               swartz(true));
  std::mt19937_64 rng(6);
  std::vector<double> w(13 * 11 * 7);
  for (auto& v : w) v = static_cast<double>(rng() % 100);
  const auto g = isocost::grid_density(w, GridShape{3, {13, 11, 7}});
  for (const ProcessGrid& pg :
       {ProcessGrid{{3, 2, 2}, {0, 1, 2}}, ProcessGrid{{4, 3}, {2, 0}}, ProcessGrid{{5}, {1}}})
    expect_cover(isocost::decompose(g, pg, Speeds::uniform(pg.ranks())), g);
}

// ---------------------------------------------------------------------------
// Grid cuts: the rule (minimise the heaviest slab at each level) against brute
// force over every contiguous split.

TEST(Decompose, GridLevelsMinimiseTheirHeaviestSlab) {
  // On small random grids: level 0's heaviest column (per speed) and each
  // column's heaviest part are the brute-force optima of the rule.
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 200; ++trial) {
    const int nx = 2 + static_cast<int>(rng() % 6), ny = 2 + static_cast<int>(rng() % 6);
    const int px = 1 + static_cast<int>(rng() % std::min(nx, 3));
    const int py = 1 + static_cast<int>(rng() % std::min(ny, 3));
    std::vector<double> w(static_cast<std::size_t>(nx * ny));
    for (auto& v : w) v = static_cast<double>(1 + rng() % 9);
    const auto g = isocost::grid_density(w, GridShape{2, {nx, ny, 1}});
    ProcessGrid pg;
    if (px > 1) pg.counts.push_back(px), pg.axes.push_back(0);
    if (py > 1) pg.counts.push_back(py), pg.axes.push_back(1);
    const auto d = isocost::decompose(g, pg, Speeds::uniform(px * py));
    expect_cover(d, g);
    // Level 0 columns.
    std::vector<double> col(static_cast<std::size_t>(nx), 0.0);
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) col[i] += w[i + nx * j];
    const std::vector<double> cap(static_cast<std::size_t>(px), static_cast<double>(py));
    double worst_col = 0;
    for (int c = 0; c < px; ++c) {
      double mass = 0;
      for (int r = 0; r < py; ++r) mass += d.parts[c * py + r].cost;
      worst_col = std::max(worst_col, mass / py);
      // Level 1 inside this column.
      const auto& first = d.parts[c * py];
      std::vector<double> row(static_cast<std::size_t>(ny), 0.0);
      for (int j = 0; j < ny; ++j)
        for (auto i = first.cell_lo[0]; i < first.cell_hi[0]; ++i) row[j] += w[i + nx * j];
      double worst_row = 0;
      for (int r = 0; r < py; ++r) worst_row = std::max(worst_row, d.parts[c * py + r].cost);
      ASSERT_NEAR(worst_row, brute_bottleneck(row, std::vector<double>(py, 1.0), 0), 1e-9)
          << "trial " << trial << " column " << c;
    }
    ASSERT_NEAR(worst_col, brute_bottleneck(col, cap, 0), 1e-9) << "trial " << trial;
  }
}

// ---------------------------------------------------------------------------
TEST(Decompose, MinimumWidthIsHonouredOrAnError) {
  // Work piled up near x = 1: equal-cost rows there would be very thin.
  const auto steep = isocost::analytic_density(
      [](std::span<const double> p) { return std::exp(20 * p[0]); }, Box::of({0, 0}, {1, 1}));
  const auto free = isocost::decompose(steep, {{4}, {0}}, Speeds::uniform(4));
  EXPECT_LT(free.parts[3].box.width(0), 0.1);  // unconstrained: thin last part
  DecomposeOptions o;
  o.min_width = {0.15, 0, 0};
  const auto d = isocost::decompose(steep, {{4}, {0}}, Speeds::uniform(4), o);
  double heaviest_equal_widths = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_GE(d.parts[i].box.width(0), 0.15 * (1 - 1e-9)) << i;
    heaviest_equal_widths =
        std::max(heaviest_equal_widths, steep.mass(Box::of({0.25 * i, 0}, {0.25 * (i + 1), 1})));
  }
  expect_cover(d, steep);
  // Not worse than an obvious feasible split (equal widths), and the constraint
  // binds: the thinnest part has exactly the minimum width.
  EXPECT_LE(d.max_time, heaviest_equal_widths);
  double thinnest = 1;
  for (const auto& p : d.parts) thinnest = std::min(thinnest, p.box.width(0));
  EXPECT_NEAR(thinnest, 0.15, 1e-6);
  o.min_width = {0.3, 0, 0};
  expect_error(
      [&] {
        isocost::decompose(steep, {{4}, {0}}, Speeds::uniform(4), o);
      },
      {"4 parts of width >= 0.3", "do not fit"});
  // On a grid: widths in cells.
  std::vector<double> w(20, 1.0);
  w[19] = 100;
  const auto g = isocost::grid_density(w, GridShape{1, {20, 1, 1}});
  DecomposeOptions og;
  og.min_width = {3, 0, 0};
  const auto e = isocost::decompose(g, {{5}, {0}}, Speeds::uniform(5), og);
  for (const auto& p : e.parts) EXPECT_GE(p.cell_hi[0] - p.cell_lo[0], 3);
  og.min_width = {5, 0, 0};
  expect_error(
      [&] {
        isocost::decompose(g, {{5}, {0}}, Speeds::uniform(5), og);
      },
      {"5 parts of width >= 5", "20 cells"});
}

TEST(ChooseGrid, SmallestHeaviestPartThenLeastSurface) {
  // Continuous and exact: every candidate balances perfectly, so the least cut
  // surface wins: 2x2 (one cut of 20, two of ~20: ≈ 40) over rows (3 × 20).
  const auto d = isocost::choose_process_grid(swartz(true), Speeds::uniform(4));
  EXPECT_EQ(d.process_grid.counts, (std::vector<int>{2, 2}));
  EXPECT_NEAR(d.cut_surface, 40, 1e-9);
  // A grid with all work in one row of cells: splitting that row's cells is the
  // only way to balance, so the chosen grid cuts x first and only x.
  std::vector<double> w(8 * 8, 0.0);
  for (int i = 0; i < 8; ++i) w[i + 8 * 3] = 1;
  const auto g = isocost::grid_density(w, GridShape{2, {8, 8, 1}});
  const auto c = isocost::choose_process_grid(g, Speeds::uniform(4));
  EXPECT_EQ(c.process_grid.axes, (std::vector<int>{0}));
  EXPECT_NEAR(c.max_time, 2, 1e-12);
  // Every candidate for 12 ranks in 3-D is a distinct ordered factorisation.
  const auto all = isocost::candidate_process_grids(12, 3);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].ranks(), 12);
    for (std::size_t j = i + 1; j < all.size(); ++j)
      EXPECT_FALSE(all[i].counts == all[j].counts && all[i].axes == all[j].axes);
  }
}

TEST(ProcessGrid, ParsingAndValidation) {
  const auto g = isocost::parse_process_grid("4x1", 2);
  EXPECT_EQ(g.counts, (std::vector<int>{4}));
  EXPECT_EQ(g.axes, (std::vector<int>{0}));
  const auto h = isocost::parse_process_grid("2x3x4", 3);
  EXPECT_EQ(h.ranks(), 24);
  EXPECT_TRUE(isocost::parse_process_grid("auto", 2).counts.empty());
  expect_error([] { isocost::parse_process_grid("4x", 2); }, {"--grid", "'4x'"});
  expect_error([] { isocost::parse_process_grid("4x2", 3); }, {"2 counts for a 3-D"});
  expect_error([] { isocost::parse_process_grid("0x2", 2); }, {"--grid"});
  expect_error([] { ProcessGrid{{2, 2}, {0, 0}}.validate(2); }, {"axis x is cut twice"});
  expect_error([] { ProcessGrid{{2}, {2}}.validate(2); }, {"axis 2 does not exist"});
  expect_error(
      [] {
        isocost::decompose(swartz(true), {{2, 2}, {0, 1}}, Speeds::uniform(5));
      },
      {"has 4 ranks but 5 speeds"});
  DecomposeOptions o;
  o.min_width = {std::nan(""), 0, 0};
  expect_error(
      [&] {
        isocost::decompose(swartz(true), {{2}, {0}}, Speeds::uniform(2), o);
      },
      {"min_width[0]: expected a finite number >= 0", "nan"});
}

}  // namespace

namespace {

// On a grid every part gets at least one cell along each axis it is cut on:
// more parts than cells is an Error, and choose_process_grid skips such grids.
TEST(Decompose, GridPartsHaveAtLeastOneCell) {
  std::vector<double> w(5 * 40, 1.0);
  const auto g = isocost::grid_density(w, GridShape{2, {5, 40, 1}});
  expect_error(
      [&] {
        isocost::decompose(g, {{8}, {0}}, Speeds::uniform(8));
      },
      {"8 parts of width >= 0", "5 cells"});
  const auto c = isocost::choose_process_grid(g, Speeds::uniform(8));
  for (const auto& p : c.parts)
    for (int a = 0; a < 2; ++a) EXPECT_GE(p.cell_hi[a] - p.cell_lo[a], 1);
  EXPECT_NEAR(c.max_time, 25, 1e-12);  // 200 cells over 8 ranks, balanced exactly
}

}  // namespace

namespace {

// The rule of choose_process_grid() applied to every candidate, without
// pruning (decompose.hpp): balanced candidates (heaviest part within 1e-9 of
// total/S) by cut surface, then order; else the lightest heaviest part (ties
// within 1e-12), then cut surface, then order.
ProcessGrid exhaustive_choice(const Density& d, const Speeds& s, const DecomposeOptions& o = {}) {
  const auto all = isocost::candidate_process_grids(s.ranks(), d.dims());
  std::vector<std::pair<std::size_t, double>> fitted;  // index, heaviest part
  for (std::size_t c = 0; c < all.size(); ++c) {
    try {
      fitted.emplace_back(c, isocost::decompose(d, all[c], s, o).max_time);
    } catch (const isocost::Error&) {  // does not fit the minimum widths
    }
  }
  const double ideal = d.total() / s.total();
  double lightest = std::numeric_limits<double>::infinity();
  bool any_balanced = false;
  for (const auto& [c, t] : fitted) {
    lightest = std::min(lightest, t);
    any_balanced = any_balanced || t <= ideal * (1 + 1e-9);
  }
  std::optional<std::size_t> best;
  for (const auto& [c, t] : fitted) {
    const bool eligible = any_balanced ? t <= ideal * (1 + 1e-9) : t <= lightest * (1 + 1e-12);
    if (!eligible) continue;
    if (!best || all[c].cut_surface(d.box()) < all[*best].cut_surface(d.box())) best = c;
  }
  EXPECT_TRUE(best.has_value());
  return best ? all[*best] : ProcessGrid{};
}

// The pruned search chooses what trying every candidate chooses: smooth and
// lumpy, continuous and gridded densities, 2-D and 3-D, several rank counts,
// uniform and mixed speeds, with and without minimum widths.
TEST(ChooseGrid, PrunedSearchEqualsExhaustiveSearch) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> lumpy(24 * 18);
  for (auto& w : lumpy) w = std::pow(u(rng), 4);
  std::vector<double> ramp(30 * 7 * 5);
  for (std::size_t k = 0; k < ramp.size(); ++k) ramp[k] = 1 + static_cast<double>(k % 30);
  std::vector<double> uniform(16 * 12, 1.0);
  const std::vector<std::pair<const char*, Density>> densities{
      {"swartz", swartz(true)},
      {"gaussian", isocost::analytic_density(
                       [](std::span<const double> p) {
                         return std::exp(
                             -8 * ((p[0] - 0.3) * (p[0] - 0.3) + (p[1] - 0.6) * (p[1] - 0.6)));
                       },
                       Box::of({0, 0}, {1, 2}))},
      {"lumpy grid", isocost::grid_density(lumpy, GridShape{2, {24, 18, 1}})},
      {"uniform grid", isocost::grid_density(uniform, GridShape{2, {16, 12, 1}})},
      {"3-D ramp grid", isocost::grid_density(ramp, GridShape{3, {30, 7, 5}})},
  };
  for (const auto& [name, d] : densities)
    for (const int P : {1, 4, 6, 12, 16, 30}) {
      for (const bool mixed : {false, true}) {
        std::vector<double> v(static_cast<std::size_t>(P));
        for (int i = 0; i < P; ++i) v[i] = mixed ? 1 + (i % 3) : 1.0;
        const Speeds s = Speeds::from_values(v);
        SCOPED_TRACE(std::string(name) + ", P = " + std::to_string(P) +
                     (mixed ? ", mixed speeds" : ""));
        const auto chosen = isocost::choose_process_grid(d, s);
        const auto expected = exhaustive_choice(d, s);
        EXPECT_EQ(chosen.process_grid.counts, expected.counts) << chosen.process_grid.name();
        EXPECT_EQ(chosen.process_grid.axes, expected.axes) << expected.name();
      }
    }
  // Minimum widths, on a grid (some candidates do not fit).
  DecomposeOptions o;
  o.min_width = {3, 2, 0};
  const auto& g = densities[2].second;
  for (const int P : {4, 8, 12}) {
    const auto chosen = isocost::choose_process_grid(g, Speeds::uniform(P), o);
    const auto expected = exhaustive_choice(g, Speeds::uniform(P), o);
    EXPECT_EQ(chosen.process_grid.counts, expected.counts) << "P = " << P;
    EXPECT_EQ(chosen.process_grid.axes, expected.axes) << "P = " << P;
  }
}

// ProcessGrid::cut_surface is what decompose() sums part by part.
TEST(ChooseGrid, PlannedCutSurfaceEqualsTheDecomposition) {
  std::vector<double> ramp(9 * 8 * 7);
  for (std::size_t k = 0; k < ramp.size(); ++k) ramp[k] = 1 + static_cast<double>(k % 5);
  const auto grid =
      isocost::grid_density(ramp, GridShape{3, {9, 8, 7}}, Box::of({0, 0, 0}, {3, 2, 5}));
  const int P = 12;
  for (const Density& d : {swartz(true), grid})
    for (const auto& g : isocost::candidate_process_grids(P, d.dims())) {
      if (d.grid()) {  // more parts than cells along an axis do not fit (tested above)
        bool fits = true;
        for (std::size_t l = 0; l < g.counts.size(); ++l)
          fits = fits && g.counts[l] <= d.grid()->cells[g.axes[l]];
        if (!fits) continue;
      }
      const auto dec = isocost::decompose(d, g, Speeds::uniform(P));
      EXPECT_NEAR(g.cut_surface(d.box()), dec.cut_surface, 1e-9 * dec.cut_surface) << g.name();
    }
}

// The most parts decompose() accepts (limits.hpp), checked before allocating.
TEST(Decompose, PartsAboveTheLimitAreAnError) {
  const ProcessGrid g{{5000, 4000}, {0, 1}};  // 2·10^7 parts
  expect_error([&] { isocost::decompose(swartz(true), g, Speeds::uniform(20'000'000)); },
               {"decompose: 20000000 is above the limit of 10000000 parts"});
}

// Equal boxes without weights: where the cells divide evenly, decompose() of
// a uniform grid; elsewhere a tiling whose slabs differ by at most one cell.
TEST(DecomposeUniform, EqualBoxesTileTheGrid) {
  const GridShape even{2, {12, 12, 1}};
  const ProcessGrid g{{2, 3}, {0, 1}};
  const auto u = isocost::decompose_uniform(even, g);
  const auto d = isocost::decompose(isocost::grid_density(std::vector<double>(144, 1.0), even), g,
                                    Speeds::uniform(6));
  ASSERT_EQ(u.parts.size(), 6u);
  for (std::size_t r = 0; r < 6; ++r) {
    EXPECT_EQ(u.parts[r].rank, static_cast<int>(r));
    EXPECT_EQ(u.parts[r].cell_lo, d.parts[r].cell_lo) << r;
    EXPECT_EQ(u.parts[r].cell_hi, d.parts[r].cell_hi) << r;
    EXPECT_EQ(u.parts[r].cost, 24.0);
  }
  EXPECT_TRUE(u.on_grid_lines);
  EXPECT_DOUBLE_EQ(u.predicted_le, 100.0);
  // Uneven: 10 x 7 x 3 cells into 3 slabs along x, each into 2 along z.
  const GridShape odd{3, {10, 7, 3}};
  const auto v = isocost::decompose_uniform(odd, {{3, 2}, {0, 2}});
  std::vector<int> owner(210, -1);
  double total = 0;
  for (const auto& p : v.parts) {
    for (int a = 0; a < 3; ++a) {
      EXPECT_LE(p.cell_hi[a] - p.cell_lo[a], a == 0 ? 4 : a == 1 ? 7 : 2);
      EXPECT_GE(p.cell_hi[a] - p.cell_lo[a], a == 0 ? 3 : a == 1 ? 7 : 1);
    }
    for (auto k = p.cell_lo[2]; k < p.cell_hi[2]; ++k)
      for (auto j = p.cell_lo[1]; j < p.cell_hi[1]; ++j)
        for (auto i = p.cell_lo[0]; i < p.cell_hi[0]; ++i) {
          int& o = owner[static_cast<std::size_t>(i + 10 * (j + 7 * k))];
          EXPECT_EQ(o, -1) << "cell held twice";
          o = p.rank;
        }
    total += p.cost;
  }
  EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0);
  EXPECT_EQ(total, 210.0);
  EXPECT_EQ(v.total_cost, 210.0);
  // Ranks as decompose() numbers them: the first x slab holds ranks 0 and 1.
  EXPECT_EQ(v.parts[0].cell_lo[0], 0);
  EXPECT_EQ(v.parts[1].cell_lo[0], 0);
  EXPECT_EQ(v.parts[1].cell_lo[2], v.parts[0].cell_hi[2]);
  expect_error(
      [] {
        isocost::decompose_uniform(GridShape{2, {2, 5, 1}}, {{3}, {0}});
      },
      {"decompose_uniform: 2 cells along x for 3 slabs"});
  expect_error(
      [] {
        isocost::decompose_uniform(GridShape{2, {0, 5, 1}}, {{1}, {0}});
      },
      {"decompose_uniform: cells along x: expected an integer >= 1, got 0"});
}

}  // namespace
