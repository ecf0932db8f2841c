// Tests for the C interface's gridded densities and multi-dimensional
// partitions (isocost_density_grid, isocost_decompose, isocost_decompose_auto)
// and its load metrics (isocost_imbalance, isocost_phase_stats): every result
// equals the C++ library's on the same inputs bit for bit, the boxes tile the
// grid exactly with costs summing to the total, and every error path returns
// its code and a message naming the bad argument.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "c_test_support.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/isocost.h"
#include "isocost/metrics.hpp"

namespace {

using isocost::testing::Density;

using isocost::testing::ExpectFailure;
using isocost::testing::Has;

// A lumpy grid: cell (i, j, k) costs 1 + (7i + 3j + 5k) mod 11, x fastest.
std::vector<double> Lumpy(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  std::vector<double> w;
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i)
        w.push_back(static_cast<double>(1 + (7 * i + 3 * j + 5 * k) % 11));
  return w;
}

Density MakeGrid(const std::vector<double>& w, int dims, std::vector<std::int64_t> cells,
                 const double* lo = nullptr, const double* hi = nullptr) {
  isocost_density* out = nullptr;
  EXPECT_EQ(isocost_density_grid(w.data(), dims, cells.data(), lo, hi, &out), ISOCOST_OK)
      << isocost_last_error();
  EXPECT_STREQ(isocost_last_error(), "");
  return Density(out);
}

isocost::GridShape Shape(int dims, std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  isocost::GridShape s;
  s.dims = dims;
  s.cells = {nx, ny, nz};
  return s;
}

// The C parts and info equal the C++ decomposition d field for field.
void ExpectSame(const std::vector<isocost_part>& parts, const isocost_decomposition& info,
                const isocost::Decomposition& d, const isocost::Speeds& speeds) {
  ASSERT_EQ(parts.size(), d.parts.size());
  const int dims = d.parts[0].box.dims;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = d.parts[i];
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      EXPECT_EQ(parts[i].lo[a], a < dims ? p.box.lo[u] : 0) << i << " " << a;
      EXPECT_EQ(parts[i].hi[a], a < dims ? p.box.hi[u] : 0) << i << " " << a;
      EXPECT_EQ(parts[i].cell_lo[a], a < dims ? p.cell_lo[u] : 0) << i << " " << a;
      EXPECT_EQ(parts[i].cell_hi[a], a < dims ? p.cell_hi[u] : 0) << i << " " << a;
    }
    EXPECT_EQ(parts[i].cost, p.cost);
    EXPECT_EQ(parts[i].time, p.time);
    EXPECT_EQ(parts[i].volume, p.volume);
    EXPECT_EQ(parts[i].surface, p.surface);
  }
  EXPECT_EQ(info.ranks, d.ranks());
  ASSERT_EQ(info.levels, static_cast<int>(d.process_grid.counts.size()));
  for (int l = 0; l < 3; ++l) {
    const auto u = static_cast<std::size_t>(l);
    EXPECT_EQ(info.counts[l], l < info.levels ? d.process_grid.counts[u] : 0);
    EXPECT_EQ(info.axes[l], l < info.levels ? d.process_grid.axes[u] : -1);
  }
  EXPECT_EQ(info.total_cost, d.total_cost);
  EXPECT_EQ(info.max_time, d.max_time);
  EXPECT_EQ(info.predicted_le, d.predicted_le);
  EXPECT_EQ(info.cut_surface, d.cut_surface);
  EXPECT_EQ(info.imbalance, d.max_time / (d.total_cost / speeds.total()) - 1);
}

// Invariants, independently of the C++ API: the parts' cells tile the grid
// (every cell in exactly one part), each part's cost is the sum of its cells'
// weights, and the costs sum to the total.
void ExpectTiling(const std::vector<isocost_part>& parts, const std::vector<double>& w, int dims,
                  std::int64_t nx, std::int64_t ny, std::int64_t nz, double total) {
  std::vector<int> owner(w.size(), -1);
  double sum = 0;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    const auto& p = parts[r];
    const std::int64_t z0 = dims > 2 ? p.cell_lo[2] : 0, z1 = dims > 2 ? p.cell_hi[2] : 1;
    const std::int64_t y0 = dims > 1 ? p.cell_lo[1] : 0, y1 = dims > 1 ? p.cell_hi[1] : 1;
    double cost = 0;
    for (std::int64_t k = z0; k < z1; ++k)
      for (std::int64_t j = y0; j < y1; ++j)
        for (std::int64_t i = p.cell_lo[0]; i < p.cell_hi[0]; ++i) {
          const auto at = static_cast<std::size_t>(i + nx * (j + ny * k));
          EXPECT_EQ(owner[at], -1) << "cell " << at << " in parts " << owner[at] << " and " << r;
          owner[at] = static_cast<int>(r);
          cost += w[at];
        }
    EXPECT_EQ(p.cost, cost) << r;  // integer weights: sums are exact
    // Cell units: the box is the cell range.
    for (int a = 0; a < dims; ++a) {
      EXPECT_EQ(p.lo[a], static_cast<double>(p.cell_lo[a]));
      EXPECT_EQ(p.hi[a], static_cast<double>(p.cell_hi[a]));
    }
    sum += p.cost;
  }
  for (std::size_t c = 0; c < owner.size(); ++c) EXPECT_NE(owner[c], -1) << "cell " << c;
  EXPECT_EQ(sum, total);
  EXPECT_EQ(total, std::accumulate(w.begin(), w.end(), 0.0));
  (void)nz;
}

TEST(CDecompose, TwoDRowsJaggedAndAutoEqualTheCppDecomposition) {
  const std::int64_t nx = 24, ny = 18;
  const auto w = Lumpy(nx, ny, 1);
  Density g = MakeGrid(w, 2, {nx, ny});
  const auto cpp = isocost::grid_density(w, Shape(2, nx, ny, 1));
  int dims = 0;
  double total = 0;
  ASSERT_EQ(isocost_density_info(g.get(), &dims, &total), ISOCOST_OK);
  EXPECT_EQ(dims, 2);
  EXPECT_EQ(total, cpp.total());

  struct Case {
    std::vector<int> counts, axes;
    std::vector<double> speeds;
  };
  for (const Case& c : std::vector<Case>{{{4}, {1}, {}},
                                         {{5}, {0}, {1, 2, 1, 3, 1}},
                                         {{3, 4}, {0, 1}, {}},
                                         {{2, 3}, {1, 0}, {1, 1, 2, 2, 0.5, 4}}}) {
    isocost::ProcessGrid grid{c.counts, c.axes};
    const int P = grid.ranks();
    const auto s =
        c.speeds.empty() ? isocost::Speeds::uniform(P) : isocost::Speeds::from_values(c.speeds);
    std::vector<isocost_part> parts(static_cast<std::size_t>(P));
    isocost_decomposition info{};
    ASSERT_EQ(isocost_decompose(g.get(), static_cast<int>(c.counts.size()), c.counts.data(),
                                c.axes.data(), c.speeds.empty() ? nullptr : c.speeds.data(),
                                parts.data(), &info),
              ISOCOST_OK)
        << grid.name() << ": " << isocost_last_error();
    ExpectSame(parts, info, isocost::decompose(cpp, grid, s), s);
    ExpectTiling(parts, w, 2, nx, ny, 1, info.total_cost);
    // info may be NULL: the same parts.
    std::vector<isocost_part> again(parts.size());
    ASSERT_EQ(isocost_decompose(g.get(), static_cast<int>(c.counts.size()), c.counts.data(),
                                c.axes.data(), c.speeds.empty() ? nullptr : c.speeds.data(),
                                again.data(), nullptr),
              ISOCOST_OK);
    for (std::size_t i = 0; i < parts.size(); ++i) EXPECT_EQ(again[i].cost, parts[i].cost);
  }
  for (int P : {1, 6, 7, 12}) {
    std::vector<isocost_part> parts(static_cast<std::size_t>(P));
    isocost_decomposition info{};
    ASSERT_EQ(isocost_decompose_auto(g.get(), P, nullptr, parts.data(), &info), ISOCOST_OK)
        << isocost_last_error();
    const auto s = isocost::Speeds::uniform(P);
    ExpectSame(parts, info, isocost::choose_process_grid(cpp, s), s);
    ExpectTiling(parts, w, 2, nx, ny, 1, info.total_cost);
  }
}

TEST(CDecompose, ThreeDSectioningOnAGivenBoxEqualsTheCppDecomposition) {
  const std::int64_t nx = 9, ny = 8, nz = 7;
  const auto w = Lumpy(nx, ny, nz);
  const double lo[] = {0, 0, 0}, hi[] = {3, 2, 5};
  Density g = MakeGrid(w, 3, {nx, ny, nz}, lo, hi);
  const auto cpp =
      isocost::grid_density(w, Shape(3, nx, ny, nz), isocost::Box::of({0, 0, 0}, {3, 2, 5}));
  const std::vector<int> counts{2, 3, 2}, axes{0, 1, 2};
  const std::vector<double> speeds{1, 2, 1, 1, 3, 1, 2, 1, 1, 1, 2, 2};
  std::vector<isocost_part> parts(12);
  isocost_decomposition info{};
  ASSERT_EQ(
      isocost_decompose(g.get(), 3, counts.data(), axes.data(), speeds.data(), parts.data(), &info),
      ISOCOST_OK)
      << isocost_last_error();
  const auto s = isocost::Speeds::from_values(speeds);
  ExpectSame(parts, info, isocost::decompose(cpp, {counts, axes}, s), s);
  double sum = 0;
  for (const auto& p : parts) sum += p.cost;
  EXPECT_DOUBLE_EQ(sum, info.total_cost);

  std::vector<isocost_part> auto_parts(10);
  ASSERT_EQ(isocost_decompose_auto(g.get(), 10, nullptr, auto_parts.data(), &info), ISOCOST_OK);
  const auto u = isocost::Speeds::uniform(10);
  ExpectSame(auto_parts, info, isocost::choose_process_grid(cpp, u), u);
}

TEST(CDecompose, ThreeDInCellUnitsTilesTheGrid) {
  const std::int64_t nx = 13, ny = 11, nz = 7;
  const auto w = Lumpy(nx, ny, nz);
  Density g = MakeGrid(w, 3, {nx, ny, nz});
  for (int P : {8, 30}) {
    std::vector<isocost_part> parts(static_cast<std::size_t>(P));
    isocost_decomposition info{};
    ASSERT_EQ(isocost_decompose_auto(g.get(), P, nullptr, parts.data(), &info), ISOCOST_OK)
        << isocost_last_error();
    ExpectTiling(parts, w, 3, nx, ny, nz, info.total_cost);
    EXPECT_GE(info.imbalance, 0);
  }
}

TEST(CDecompose, EveryBadArgumentNamesItself) {
  const auto w = Lumpy(5, 40, 1);
  const std::vector<std::int64_t> cells{5, 40};
  const int bad = ISOCOST_ERROR_INVALID_ARGUMENT;
  isocost_density* out = nullptr;
  ExpectFailure(isocost_density_grid(nullptr, 2, cells.data(), nullptr, nullptr, &out), bad,
                {"isocost_density_grid: weights is NULL"});
  ExpectFailure(isocost_density_grid(w.data(), 2, nullptr, nullptr, nullptr, &out), bad,
                {"isocost_density_grid: cells is NULL"});
  ExpectFailure(isocost_density_grid(w.data(), 2, cells.data(), nullptr, nullptr, nullptr), bad,
                {"isocost_density_grid: out is NULL"});
  ExpectFailure(isocost_density_grid(w.data(), 4, cells.data(), nullptr, nullptr, &out), bad,
                {"dims: expected 1, 2 or 3, got 4"});
  ExpectFailure(isocost_density_grid(w.data(), 0, cells.data(), nullptr, nullptr, &out), bad,
                {"dims: expected 1, 2 or 3, got 0"});
  const std::vector<std::int64_t> zero{5, 0};
  ExpectFailure(isocost_density_grid(w.data(), 2, zero.data(), nullptr, nullptr, &out), bad,
                {"cells[1]: expected an integer >= 1, got 0"});
  const std::vector<std::int64_t> huge{std::numeric_limits<std::int64_t>::max() / 2, 4};
  ExpectFailure(isocost_density_grid(w.data(), 2, huge.data(), nullptr, nullptr, &out),
                ISOCOST_ERROR_NO_MEMORY, {"the cells do not fit in memory"});
  const double lo[] = {0, 0}, hi[] = {1, 0};
  ExpectFailure(isocost_density_grid(w.data(), 2, cells.data(), lo, nullptr, &out), bad,
                {"hi is NULL but the other corner is not; pass both or neither"});
  ExpectFailure(isocost_density_grid(w.data(), 2, cells.data(), lo, hi, &out), bad,
                {"isocost_density_grid: grid density box: y range needs lo < hi"});
  auto negative = w;
  negative[7] = -1;
  ExpectFailure(
      isocost_density_grid(negative.data(), 2, cells.data(), nullptr, nullptr, &out), bad,
      {"isocost_density_grid: ", "weight of cell (2, 1): expected a finite value >= 0, got -1"});
  const std::vector<double> zeros(200, 0.0);
  ExpectFailure(isocost_density_grid(zeros.data(), 2, cells.data(), nullptr, nullptr, &out), bad,
                {"zero"});
  EXPECT_EQ(out, nullptr);

  Density g = MakeGrid(w, 2, cells);
  ExpectFailure(isocost_density_info(nullptr, nullptr, nullptr), bad,
                {"isocost_density_info: density is NULL"});
  std::vector<isocost_part> parts(64);
  isocost_decomposition info{};
  info.ranks = -5;  // untouched by every failure
  const int c8[] = {8}, a0[] = {0}, c2[] = {2, 2}, a00[] = {0, 0}, a5[] = {5}, c0[] = {0};
  ExpectFailure(isocost_decompose(nullptr, 1, c8, a0, nullptr, parts.data(), &info), bad,
                {"isocost_decompose: density is NULL"});
  ExpectFailure(isocost_decompose(g.get(), 1, nullptr, a0, nullptr, parts.data(), &info), bad,
                {"counts is NULL"});
  ExpectFailure(isocost_decompose(g.get(), 1, c8, nullptr, nullptr, parts.data(), &info), bad,
                {"axes is NULL"});
  ExpectFailure(isocost_decompose(g.get(), 1, c8, a0, nullptr, nullptr, &info), bad,
                {"parts is NULL"});
  ExpectFailure(isocost_decompose(g.get(), 0, c8, a0, nullptr, parts.data(), &info), bad,
                {"levels: expected an integer >= 1, got 0"});
  ExpectFailure(isocost_decompose(g.get(), 3, c8, a0, nullptr, parts.data(), &info), bad,
                {"levels: expected at most the density's 2 dimensions, got 3"});
  ExpectFailure(isocost_decompose(g.get(), 2, c2, a00, nullptr, parts.data(), &info), bad,
                {"axis x is cut twice"});
  ExpectFailure(isocost_decompose(g.get(), 1, c8, a5, nullptr, parts.data(), &info), bad,
                {"axis 5 does not exist in 2-D"});
  ExpectFailure(isocost_decompose(g.get(), 1, c0, a0, nullptr, parts.data(), &info), bad,
                {"level 0 has 0 parts; expected >= 1"});
  // Too small a grid: 8 parts along x, which has 5 cells.
  ExpectFailure(isocost_decompose(g.get(), 1, c8, a0, nullptr, parts.data(), &info), bad,
                {"isocost_decompose: 8 parts of width >= 0 along x do not fit in 5 cells"});
  // Bad speeds.
  const double speeds[] = {1, 2, 0, 1, 1, 1, 1, 1};
  const int c4[] = {4}, a1[] = {1};
  ExpectFailure(
      isocost_decompose(g.get(), 1, c4, a1, speeds, parts.data(), &info), bad,
      {"isocost_decompose: speeds: speed of rank 2: expected a finite number > 0, got 0"});
  const double nan_speeds[] = {1, std::numeric_limits<double>::quiet_NaN(), 1, 1};
  ExpectFailure(isocost_decompose_auto(g.get(), 4, nan_speeds, parts.data(), &info), bad,
                {"isocost_decompose_auto: speeds: speed of rank 1: expected a finite number > 0"});
  ExpectFailure(isocost_decompose_auto(nullptr, 4, nullptr, parts.data(), &info), bad,
                {"isocost_decompose_auto: density is NULL"});
  ExpectFailure(isocost_decompose_auto(g.get(), 4, nullptr, nullptr, &info), bad,
                {"isocost_decompose_auto: parts is NULL"});
  ExpectFailure(isocost_decompose_auto(g.get(), 0, nullptr, parts.data(), &info), bad,
                {"ranks: expected an integer >= 1, got 0"});
  // More ranks than cells: no candidate grid can give each part a cell.
  std::vector<isocost_part> many(201);
  ExpectFailure(isocost_decompose_auto(g.get(), 201, nullptr, many.data(), &info), bad,
                {"isocost_decompose_auto: no process grid for 201 ranks"});
  EXPECT_EQ(info.ranks, -5);
  isocost_density_free(nullptr);
}

TEST(CMetrics, ImbalanceAndPhaseStatsEqualTheCppMetrics) {
  const std::vector<double> loads{10, 18, 12, 0};
  double lambda = -1;
  ASSERT_EQ(isocost_imbalance(loads.data(), 4, &lambda), ISOCOST_OK);
  EXPECT_EQ(lambda, isocost::imbalance(loads));
  EXPECT_DOUBLE_EQ(lambda, 18 / 10.0 - 1);  // max 18 over mean 40/4

  // 3 ranks × 2 phases, times[rank·2 + phase]; phase 1 is all zero.
  const std::vector<double> times{4, 0, 2, 0, 6, 0};
  isocost::PhaseLoads pl;
  pl.ranks = 3;
  pl.phases = {"0", "1"};
  pl.times = times;
  const isocost::PhaseStats cpp = isocost::phase_stats(pl);
  struct isocost_load_stats per[2], total;
  double sync_time = -1, sync_eff = -1;
  ASSERT_EQ(isocost_phase_stats(times.data(), 3, 2, per, &total, &sync_time, &sync_eff), ISOCOST_OK)
      << isocost_last_error();
  for (int f = 0; f < 2; ++f) {
    const auto& s = cpp.per_phase[static_cast<std::size_t>(f)];
    EXPECT_EQ(per[f].t_max, s.max);
    EXPECT_EQ(per[f].t_min, s.min);
    EXPECT_EQ(per[f].t_avg, s.mean);
    EXPECT_EQ(per[f].l_i, s.li);
    EXPECT_EQ(per[f].l_e, s.le);
    EXPECT_EQ(per[f].efficiency, s.efficiency);
  }
  EXPECT_EQ(total.t_max, 6);
  EXPECT_EQ(total.efficiency, cpp.total.efficiency);
  EXPECT_EQ(sync_time, 6);  // Σ_phase max: 6 + 0
  EXPECT_EQ(sync_eff, cpp.synchronised_efficiency);
  EXPECT_DOUBLE_EQ(sync_eff, 4.0 / 6);
  // The optional outputs may be NULL.
  ASSERT_EQ(isocost_phase_stats(times.data(), 3, 2, nullptr, &total, nullptr, nullptr), ISOCOST_OK);
}

TEST(CMetrics, EveryBadArgumentNamesItself) {
  const double loads[] = {1, -2, 3}, zeros[] = {0, 0};
  double out = -1;
  const int bad = ISOCOST_ERROR_INVALID_ARGUMENT;
  ExpectFailure(isocost_imbalance(nullptr, 3, &out), bad, {"isocost_imbalance: loads is NULL"});
  ExpectFailure(isocost_imbalance(loads, 3, nullptr), bad, {"isocost_imbalance: out is NULL"});
  ExpectFailure(isocost_imbalance(loads, 0, &out), bad, {"n: expected an integer >= 1, got 0"});
  ExpectFailure(
      isocost_imbalance(loads, 3, &out), bad,
      {"isocost_imbalance: loads: load of rank 1: expected a finite number >= 0, got -2"});
  ExpectFailure(isocost_imbalance(zeros, 2, &out), bad, {"all loads are zero"});
  EXPECT_EQ(out, -1);

  const double times[] = {1, 2, 3, 4};
  struct isocost_load_stats total {};
  total.t_max = -3;
  ExpectFailure(isocost_phase_stats(nullptr, 2, 2, nullptr, &total, nullptr, nullptr), bad,
                {"isocost_phase_stats: times is NULL"});
  ExpectFailure(isocost_phase_stats(times, 2, 2, nullptr, nullptr, nullptr, nullptr), bad,
                {"isocost_phase_stats: total is NULL"});
  ExpectFailure(isocost_phase_stats(times, 0, 2, nullptr, &total, nullptr, nullptr), bad,
                {"ranks: expected an integer >= 1, got 0"});
  ExpectFailure(isocost_phase_stats(times, 2, -1, nullptr, &total, nullptr, nullptr), bad,
                {"phases: expected an integer >= 1, got -1"});
  const double negative[] = {1, 2, -3, 4};
  ExpectFailure(
      isocost_phase_stats(negative, 2, 2, nullptr, &total, nullptr, nullptr), bad,
      {"isocost_phase_stats: phase '0': load of rank 1: expected a finite number >= 0, got -3"});
  const double all_zero[] = {0, 0, 0, 0};
  ExpectFailure(isocost_phase_stats(all_zero, 2, 2, nullptr, &total, nullptr, nullptr), bad,
                {"zero"});
  EXPECT_EQ(total.t_max, -3);
}

}  // namespace
