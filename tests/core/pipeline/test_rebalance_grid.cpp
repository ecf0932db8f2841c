// Tests for isocost/rebalance_grid.hpp. Expected values are derived by hand in
// the comments; brute-force cell-by-cell owner comparisons check the moves.
#include "isocost/rebalance_grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <variant>
#include <vector>

#include "isocost/rebalance.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::Decomposition;
using isocost::GridGlobalRebalanceOptions;
using isocost::GridShape;
using isocost::ProcessGrid;
using isocost::Speeds;
using isocost::testing::expect_error;
using Range = std::array<std::int64_t, 2>;

// decompose() of a grid of equal cells: equal parts where the cells allow.
Decomposition uniform(const GridShape& shape, const ProcessGrid& grid) {
  return isocost::decompose(
      isocost::grid_density(std::vector<double>(static_cast<std::size_t>(shape.count()), 1.0),
                            shape),
      grid, Speeds::uniform(grid.ranks()));
}

std::size_t cell_index(const GridShape& s, std::int64_t i, std::int64_t j, std::int64_t k) {
  return static_cast<std::size_t>(i + s.cells[0] * (j + s.cells[1] * k));
}

// The owner of every cell, x fastest; every cell must be owned exactly once.
std::vector<int> owners(const GridShape& s, const Decomposition& d) {
  std::vector<int> o(static_cast<std::size_t>(s.count()), -1);
  for (const auto& p : d.parts) {
    std::array<std::int64_t, 3> lo{0, 0, 0}, hi{1, 1, 1};
    for (int a = 0; a < s.dims; ++a) {
      lo[a] = p.cell_lo[a];
      hi[a] = p.cell_hi[a];
    }
    for (auto k = lo[2]; k < hi[2]; ++k)
      for (auto j = lo[1]; j < hi[1]; ++j)
        for (auto i = lo[0]; i < hi[0]; ++i) {
          int& w = o[cell_index(s, i, j, k)];
          EXPECT_EQ(w, -1) << "cell " << i << "," << j << "," << k << " owned twice";
          w = p.rank;
        }
  }
  for (std::size_t c = 0; c < o.size(); ++c) EXPECT_GE(o[c], 0) << "cell " << c << " unowned";
  return o;
}

// Cells whose owner differs, and the most any rank gains, cell by cell.
std::pair<std::int64_t, std::int64_t> brute_moved(const GridShape& s, const Decomposition& from,
                                                  const Decomposition& to) {
  const auto a = owners(s, from), b = owners(s, to);
  std::vector<std::int64_t> received(to.parts.size(), 0);
  std::int64_t moved = 0;
  for (std::size_t c = 0; c < a.size(); ++c)
    if (a[c] != b[c]) {
      ++moved;
      ++received[static_cast<std::size_t>(b[c])];
    }
  return {moved, *std::max_element(received.begin(), received.end())};
}

// The piecewise-constant estimate, built cell by cell: every cell of part r
// costs loads[r]·speed[r] / cells(r).
std::vector<double> estimate(const GridShape& s, const Decomposition& d,
                             const std::vector<double>& loads,
                             const std::vector<double>& speeds = {}) {
  const auto o = owners(s, d);
  std::vector<double> count(d.parts.size(), 0.0), w(o.size());
  for (int r : o) count[static_cast<std::size_t>(r)] += 1;
  for (std::size_t c = 0; c < o.size(); ++c) {
    const auto r = static_cast<std::size_t>(o[c]);
    w[c] = loads[r] * (speeds.empty() ? 1.0 : speeds[r]) / count[r];
  }
  return w;
}

Range range(const isocost::Part& p, int axis) { return {p.cell_lo[axis], p.cell_hi[axis]}; }

// Rows along y, hand-built: rank r owns y lines [y[r], y[r+1]) across all nx.
Decomposition rows(std::int64_t nx, const std::vector<std::int64_t>& y) {
  Decomposition d;
  d.process_grid = {{static_cast<int>(y.size()) - 1}, {1}};
  for (std::size_t r = 0; r + 1 < y.size(); ++r) {
    isocost::Part p;
    p.rank = static_cast<int>(r);
    p.cell_hi[0] = nx;
    p.cell_lo[1] = y[r];
    p.cell_hi[1] = y[r + 1];
    d.parts.push_back(p);
  }
  return d;
}

// 4 × 8 cells (x × y), 4 rows of 2 y lines (8 cells) each, loads 1, 1, 1, 5.
// Estimate: 1/8 per cell in rows 0–2, 5/8 in row 3, so the y lines cost
// 0.5 ×6, then 2.5, 2.5 (total 8). Lines 6 and 7 alone cost 2.5 > 8/4, so the
// bottleneck is 2.5: each gets a part, and lines 0–5 (cost 3) two parts of at
// most 2.5. Of the optimal splits bottleneck_cuts() takes the latest
// boundaries, back to front: 7, then 6, then the latest b with [b, 6) <= 2.5
// and [0, b) <= 2.5, i.e. b = 5. New rows [0,5) [5,6) [6,7) [7,8), predicted
// 2.5, 0.5, 2.5, 2.5 (imbalance 2.5/2 − 1 = 0.25; measured 5/2 − 1 = 1.5).
// Rank 0 gains lines 2–4 (12 cells), rank 1 line 5 (4), rank 2 line 6 (4),
// rank 3 nothing: 20 cells move, at most 12 into one rank.
TEST(RebalanceGridGlobal, RowsClosedForm) {
  const GridShape shape{2, {4, 8, 1}};
  const auto now = uniform(shape, {{4}, {1}});
  ASSERT_EQ(range(now.parts[3], 1), (Range{6, 8}));
  const std::vector<double> loads{1, 1, 1, 5};
  const auto g = isocost::rebalance_grid_global(shape, now, loads, Speeds::uniform(now.ranks()));
  EXPECT_EQ(g.method(), isocost::PlanMethod::global);
  EXPECT_TRUE(std::holds_alternative<isocost::GridGlobalRebalanceOptions>(g.options));
  EXPECT_EQ(isocost::GridRebalance{}.method(), isocost::PlanMethod::none);
  ASSERT_EQ(g.decomposition.ranks(), 4);
  const std::vector<Range> expect{{0, 5}, {5, 6}, {6, 7}, {7, 8}};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(range(g.decomposition.parts[r], 1), expect[r]) << r;
    EXPECT_EQ(range(g.decomposition.parts[r], 0), (Range{0, 4})) << r;
    EXPECT_EQ(g.decomposition.parts[r].rank, r);
  }
  const std::vector<double> t{2.5, 0.5, 2.5, 2.5};
  ASSERT_EQ(g.predicted_time.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(g.predicted_time[r], t[r], 1e-12) << r;
  EXPECT_NEAR(g.predicted_imbalance, 0.25, 1e-12);
  EXPECT_NEAR(g.measured_imbalance, 1.5, 1e-15);
  EXPECT_EQ(g.elements_moved, 20);
  EXPECT_EQ(g.max_elements_received, 12);
  EXPECT_EQ(brute_moved(shape, now, g.decomposition),
            (std::pair<std::int64_t, std::int64_t>{20, 12}));
  EXPECT_TRUE(g.converged());
  EXPECT_NE(g.brief_report().find("20 cells change owner"), std::string::npos) << g.brief_report();
}

// 6 × 6 cells, a 2x2 jagged grid of 3 × 3 blocks, loads 1, 2, 3, 6 (ranks
// (column, row), row fastest). Estimate per cell 1/9, 2/9, 3/9, 6/9; x lines
// cost 1 (x < 3) and 3 (x >= 3): total 12, so x [0,4) and [4,6) cost 6 each.
// Inside either column the y lines cost 2/3 (y < 3) and 4/3 (y >= 3), with
// total 6: a cut at 3 gives 2 | 4, at 4 gives 10/3 | 8/3, so 4. Predicted
// 10/3, 8/3, 10/3, 8/3 (imbalance 1/9; measured 6/3 − 1 = 1).
TEST(RebalanceGridGlobal, JaggedEqualsDecomposeOfTheEstimate) {
  const GridShape shape{2, {6, 6, 1}};
  const ProcessGrid jagged{{2, 2}, {0, 1}};
  const auto now = uniform(shape, jagged);
  ASSERT_EQ(range(now.parts[1], 1), (Range{3, 6}));
  const std::vector<double> loads{1, 2, 3, 6};
  const auto g = isocost::rebalance_grid_global(shape, now, loads, Speeds::uniform(now.ranks()));
  const auto ref = isocost::decompose(isocost::grid_density(estimate(shape, now, loads), shape),
                                      jagged, Speeds::uniform(4));
  ASSERT_EQ(g.decomposition.ranks(), 4);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(g.decomposition.parts[r].cell_lo, ref.parts[r].cell_lo) << r;
    EXPECT_EQ(g.decomposition.parts[r].cell_hi, ref.parts[r].cell_hi) << r;
  }
  EXPECT_EQ(range(g.decomposition.parts[0], 0), (Range{0, 4}));
  EXPECT_EQ(range(g.decomposition.parts[3], 0), (Range{4, 6}));
  EXPECT_EQ(range(g.decomposition.parts[0], 1), (Range{0, 4}));
  EXPECT_EQ(range(g.decomposition.parts[2], 1), (Range{0, 4}));
  const std::vector<double> t{10.0 / 3, 8.0 / 3, 10.0 / 3, 8.0 / 3};
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(g.predicted_time[r], t[r], 1e-12) << r;
  EXPECT_NEAR(g.predicted_imbalance, 1.0 / 9, 1e-12);
  EXPECT_NEAR(g.measured_imbalance, 1, 1e-15);
  const auto brute = brute_moved(shape, now, g.decomposition);
  EXPECT_GT(brute.first, 0);
  EXPECT_EQ(g.elements_moved, brute.first);
  EXPECT_EQ(g.max_elements_received, brute.second);
  EXPECT_EQ(isocost::grid_cells_moved(now, g.decomposition), brute);
}

// 4 × 4 × 4 cells, x → y → z sectioning 2x2x2 of 2 × 2 × 2 blocks; rank 7
// (the far corner) measured 8, the others 1. The plan is decompose() of the
// estimate; the heaviest predicted part is below the measured 8.
TEST(RebalanceGridGlobal, ThreeDEqualsDecomposeOfTheEstimate) {
  const GridShape shape{3, {4, 4, 4}};
  const ProcessGrid grid{{2, 2, 2}, {0, 1, 2}};
  const auto now = uniform(shape, grid);
  const std::vector<double> loads{1, 1, 1, 1, 1, 1, 1, 8};
  const auto g = isocost::rebalance_grid_global(shape, now, loads, Speeds::uniform(now.ranks()));
  const auto ref = isocost::decompose(isocost::grid_density(estimate(shape, now, loads), shape),
                                      grid, Speeds::uniform(8));
  ASSERT_EQ(g.decomposition.ranks(), 8);
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(g.decomposition.parts[r].cell_lo, ref.parts[r].cell_lo) << r;
    EXPECT_EQ(g.decomposition.parts[r].cell_hi, ref.parts[r].cell_hi) << r;
    EXPECT_NEAR(g.predicted_time[r], ref.parts[r].time, 1e-12) << r;
  }
  EXPECT_LT(*std::max_element(g.predicted_time.begin(), g.predicted_time.end()), 8);
  EXPECT_LT(g.predicted_imbalance, g.measured_imbalance);
  // Total estimated cost is conserved: 7 + 8.
  EXPECT_NEAR(std::accumulate(g.predicted_time.begin(), g.predicted_time.end(), 0.0), 15, 1e-12);
  const auto brute = brute_moved(shape, now, g.decomposition);
  EXPECT_GT(brute.first, 0);
  EXPECT_EQ(g.elements_moved, brute.first);
  EXPECT_EQ(g.max_elements_received, brute.second);
}

// Equal loads on equal parts: the estimate is uniform and the current parts
// are already perfectly balanced, so nothing moves.
TEST(RebalanceGridGlobal, BalancedLoadsKeepTheDecomposition) {
  for (const auto& [shape, grid] :
       std::vector<std::pair<GridShape, ProcessGrid>>{{{2, {6, 6, 1}}, {{2, 2}, {0, 1}}},
                                                      {{2, {4, 8, 1}}, {{4}, {1}}},
                                                      {{3, {4, 4, 4}}, {{2, 2, 2}, {0, 1, 2}}}}) {
    const auto now = uniform(shape, grid);
    const std::vector<double> loads(static_cast<std::size_t>(grid.ranks()), 2.5);
    const auto g = isocost::rebalance_grid_global(shape, now, loads, Speeds::uniform(now.ranks()));
    EXPECT_EQ(g.elements_moved, 0) << grid.name();
    EXPECT_EQ(g.max_elements_received, 0);
    for (int r = 0; r < grid.ranks(); ++r) {
      EXPECT_EQ(g.decomposition.parts[r].cell_lo, now.parts[r].cell_lo);
      EXPECT_EQ(g.decomposition.parts[r].cell_hi, now.parts[r].cell_hi);
      EXPECT_NEAR(g.predicted_time[r], 2.5, 1e-12);
    }
    EXPECT_NEAR(g.predicted_imbalance, 0, 1e-12);
    EXPECT_NEAR(g.measured_imbalance, 0, 1e-15);
  }
}

// A plan no better than the current one is not taken. 1 × 4 cells, rows of
// 1, 2, 1 lines with loads 1, 2, 1: every line costs 1, the heaviest part 2.
// decompose() would take 2, 1, 1 (the latest boundaries, also heaviest 2).
TEST(RebalanceGridGlobal, AnEquallyGoodPlanKeepsTheCurrentOne) {
  const GridShape shape{2, {1, 4, 1}};
  const auto now = rows(1, {0, 1, 3, 4});
  const std::vector<double> loads{1, 2, 1};
  const auto ref = isocost::decompose(isocost::grid_density(estimate(shape, now, loads), shape),
                                      now.process_grid, Speeds::uniform(3));
  ASSERT_EQ(range(ref.parts[0], 1), (Range{0, 2}));  // a different, equally good plan
  const auto g = isocost::rebalance_grid_global(shape, now, loads, Speeds::uniform(now.ranks()));
  EXPECT_EQ(g.elements_moved, 0);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(range(g.decomposition.parts[r], 1), range(now.parts[r], 1));
    EXPECT_NEAR(g.predicted_time[r], loads[r], 1e-15);
    // The hand-built parts get boxes in cell units.
    EXPECT_EQ(g.decomposition.parts[r].box.lo[1], static_cast<double>(now.parts[r].cell_lo[1]));
    EXPECT_EQ(g.decomposition.parts[r].box.hi[0], 1.0);
  }
  EXPECT_NEAR(g.decomposition.max_time, 2, 1e-15);
}

// An empty part contributes nothing to the estimate. 1 × 4 cells, rows
// [0,2) [2,2) [2,4), loads 1, 7, 3: lines cost 0.5, 0.5, 1.5, 1.5. Three parts:
// the heaviest is at least 1.5 (one line); latest boundaries 3, then 2: rows
// [0,2) [2,3) [3,4), times 1, 1.5, 1.5 (the current estimate: 1, 0, 3). Rank 1
// gains line 2, one cell; measured imbalance 7/(11/3) − 1 = 10/11.
TEST(RebalanceGridGlobal, EmptyPartsContributeNothing) {
  const GridShape shape{2, {1, 4, 1}};
  const auto now = rows(1, {0, 2, 2, 4});
  const auto g = isocost::rebalance_grid_global(shape, now, std::vector<double>{1, 7, 3},
                                                Speeds::uniform(now.ranks()));
  EXPECT_EQ(range(g.decomposition.parts[0], 1), (Range{0, 2}));
  EXPECT_EQ(range(g.decomposition.parts[1], 1), (Range{2, 3}));
  EXPECT_EQ(range(g.decomposition.parts[2], 1), (Range{3, 4}));
  EXPECT_NEAR(g.predicted_time[0], 1, 1e-12);
  EXPECT_NEAR(g.predicted_time[1], 1.5, 1e-12);
  EXPECT_NEAR(g.predicted_time[2], 1.5, 1e-12);
  EXPECT_NEAR(g.measured_imbalance, 10.0 / 11, 1e-15);
  EXPECT_EQ(g.elements_moved, 1);
  EXPECT_EQ(g.max_elements_received, 1);
  // Only the empty part measured anything: no shape to go by, the 5 s are
  // spread evenly (5/4 per cell), and 2, 0, 2 cells (2.5, 0, 2.5 s) is no
  // worse than any split of 4 lines in 3.
  const auto u = isocost::rebalance_grid_global(shape, now, std::vector<double>{0, 5, 0},
                                                Speeds::uniform(now.ranks()));
  EXPECT_EQ(u.elements_moved, 0);
  EXPECT_NEAR(u.predicted_time[0], 2.5, 1e-15);
  EXPECT_NEAR(u.predicted_time[1], 0, 1e-15);
  EXPECT_NEAR(u.predicted_time[2], 2.5, 1e-15);
}

// Speeds 1 and 2 on 2 × 60 cells, rows of 30 lines, loads 2 and 1 seconds:
// speed-1 costs 2·1 and 1·2, so every cell costs 2/60 and every line 1/15
// (total 4). Rank 0 (speed 1) gets a third: 4/3 = 20 lines; rank 1 the other
// 40 lines, cost 8/3 — twice rank 0's — and both take 4/3 s. Rank 0 gives
// lines 20–29 (20 cells) to rank 1.
TEST(RebalanceGridGlobal, SpeedsConvertTimesToCost) {
  const GridShape shape{2, {2, 60, 1}};
  const auto now = rows(2, {0, 30, 60});
  const Speeds speeds = Speeds::from_values({1, 2});
  const auto g = isocost::rebalance_grid_global(shape, now, std::vector<double>{2, 1}, speeds);
  EXPECT_EQ(range(g.decomposition.parts[0], 1), (Range{0, 20}));
  EXPECT_EQ(range(g.decomposition.parts[1], 1), (Range{20, 60}));
  EXPECT_NEAR(g.decomposition.parts[0].cost, 4.0 / 3, 1e-12);
  EXPECT_NEAR(g.decomposition.parts[1].cost, 8.0 / 3, 1e-12);
  EXPECT_NEAR(g.predicted_time[0], 4.0 / 3, 1e-12);
  EXPECT_NEAR(g.predicted_time[1], 4.0 / 3, 1e-12);
  EXPECT_NEAR(g.predicted_imbalance, 0, 1e-12);
  EXPECT_EQ(g.elements_moved, 20);
  EXPECT_EQ(g.max_elements_received, 20);
  // Already balanced: 20 and 40 lines at 1 s each is the same work per cell.
  const auto kept = isocost::rebalance_grid_global(shape, rows(2, {0, 20, 60}),
                                                   std::vector<double>{1, 1}, speeds);
  EXPECT_EQ(kept.elements_moved, 0);
}

// The new parts' boxes are in the coordinates of the current parts' box.
TEST(RebalanceGridGlobal, BoxesFollowTheCurrentParts) {
  const GridShape shape{2, {4, 8, 1}};
  const auto now = isocost::decompose(
      isocost::grid_density(std::vector<double>(32, 1.0), shape, isocost::Box::of({0, 0}, {1, 2})),
      {{4}, {1}}, Speeds::uniform(4));
  const auto g = isocost::rebalance_grid_global(shape, now, std::vector<double>{1, 1, 1, 5},
                                                Speeds::uniform(now.ranks()));
  // Rows [0,5) [5,6) [6,7) [7,8) as in RowsClosedForm, each line 0.25 high.
  EXPECT_DOUBLE_EQ(g.decomposition.parts[1].box.lo[1], 1.25);
  EXPECT_DOUBLE_EQ(g.decomposition.parts[1].box.hi[1], 1.5);
  EXPECT_DOUBLE_EQ(g.decomposition.parts[1].box.hi[0], 1.0);
}

// Diffusion on rows: 4 × 16 cells, rows of 4 lines, a hot spot in row 3.
TEST(RebalanceGridDiffusive, RowsKeepOrderAndReduceImbalance) {
  const GridShape shape{2, {4, 16, 1}};
  const auto now = uniform(shape, {{4}, {1}});
  const std::vector<double> loads{1, 1, 1, 5};
  const auto d = isocost::rebalance_grid_diffusive(shape, now, loads);
  EXPECT_EQ(d.method(), isocost::PlanMethod::diffusion);
  ASSERT_EQ(d.decomposition.ranks(), 4);
  std::int64_t y = 0;
  for (int r = 0; r < 4; ++r) {
    const auto& p = d.decomposition.parts[r];
    EXPECT_EQ(p.rank, r);
    EXPECT_EQ(p.cell_lo[1], y) << r;  // order kept, no gaps
    EXPECT_GT(p.cell_hi[1], p.cell_lo[1]) << r;
    EXPECT_EQ(range(p, 0), (Range{0, 4}));
    y = p.cell_hi[1];
  }
  EXPECT_EQ(y, 16);
  // The hot rank shrinks, and the predicted imbalance is below the measured 1.5.
  EXPECT_LT(d.decomposition.parts[3].cell_hi[1] - d.decomposition.parts[3].cell_lo[1], 4);
  EXPECT_NEAR(d.measured_imbalance, 1.5, 1e-15);
  EXPECT_LT(d.predicted_imbalance, d.measured_imbalance);
  const auto brute = brute_moved(shape, now, d.decomposition);
  EXPECT_GT(brute.first, 0);
  EXPECT_EQ(d.elements_moved, brute.first);
  EXPECT_EQ(d.max_elements_received, brute.second);
  EXPECT_TRUE(d.converged());
  // Rows of whole lines are the 1-D problem on the y lines: the same cuts and
  // the same load-corrected predictions as rebalance_diffusive() on offsets
  // 0, 4, 8, 12, 16 (its cells moved are lines, 4 cells each).
  const std::vector<std::int64_t> lines{0, 4, 8, 12, 16};
  const auto b = isocost::rebalance_diffusive(lines, loads);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(range(d.decomposition.parts[r], 1), (Range{b.offsets[r], b.offsets[r + 1]})) << r;
    EXPECT_NEAR(d.predicted_time[r], b.predicted_time[r], 1e-12) << r;
  }
  EXPECT_EQ(d.elements_moved, 4 * b.elements_moved);
  // The estimate conserves the measured total, 8.
  EXPECT_NEAR(std::accumulate(d.predicted_time.begin(), d.predicted_time.end(), 0.0), 8, 1e-12);
}

// Diffusion on a jagged 2x2 grid of 8 × 8 cells with a hot rank 3.
TEST(RebalanceGridDiffusive, JaggedKeepsOrderAndReducesImbalance) {
  const GridShape shape{2, {8, 8, 1}};
  const auto now = uniform(shape, {{2, 2}, {0, 1}});
  const std::vector<double> loads{1, 1, 1, 5};
  const auto d = isocost::rebalance_grid_diffusive(shape, now, loads);
  ASSERT_EQ(d.decomposition.ranks(), 4);
  const auto& p = d.decomposition.parts;
  for (int c = 0; c < 2; ++c) {
    // Both ranks of a column span it; the first starts at y 0, the second
    // follows it and ends at 8.
    EXPECT_EQ(range(p[2 * c], 0), range(p[2 * c + 1], 0));
    EXPECT_EQ(p[2 * c].cell_lo[1], 0);
    EXPECT_EQ(p[2 * c].cell_hi[1], p[2 * c + 1].cell_lo[1]);
    EXPECT_EQ(p[2 * c + 1].cell_hi[1], 8);
  }
  EXPECT_EQ(p[0].cell_lo[0], 0);
  EXPECT_EQ(p[0].cell_hi[0], p[2].cell_lo[0]);
  EXPECT_EQ(p[2].cell_hi[0], 8);
  EXPECT_LT((p[3].cell_hi[0] - p[3].cell_lo[0]) * (p[3].cell_hi[1] - p[3].cell_lo[1]), 16);
  EXPECT_LT(d.predicted_imbalance, d.measured_imbalance);
  const auto brute = brute_moved(shape, now, d.decomposition);
  EXPECT_GT(brute.first, 0);
  EXPECT_EQ(d.elements_moved, brute.first);
  EXPECT_EQ(d.max_elements_received, brute.second);
  // Predicted times are the piecewise-constant estimate (1/16 s per cell of
  // ranks 0–2, 5/16 of rank 3) over the new parts, checked cell by cell; their
  // total is the measured total, 8.
  const auto w = estimate(shape, now, loads);
  for (int r = 0; r < 4; ++r) {
    double t = 0;
    for (auto j = p[r].cell_lo[1]; j < p[r].cell_hi[1]; ++j)
      for (auto i = p[r].cell_lo[0]; i < p[r].cell_hi[0]; ++i) t += w[cell_index(shape, i, j, 0)];
    EXPECT_NEAR(d.predicted_time[r], t, 1e-12) << r;
    EXPECT_NEAR(p[r].time, t, 1e-12) << r;
  }
  EXPECT_NEAR(std::accumulate(d.predicted_time.begin(), d.predicted_time.end(), 0.0), 8, 1e-12);
}

// A 2-level jagged grid of a 3-D grid (columns in x, then y; z uncut).
TEST(RebalanceGridDiffusive, JaggedOfAThreeDGrid) {
  const GridShape shape{3, {6, 6, 3}};
  const auto now = uniform(shape, {{2, 2}, {0, 1}});
  const std::vector<double> loads{1, 1, 4, 1};
  const auto d = isocost::rebalance_grid_diffusive(shape, now, loads);
  const auto brute = brute_moved(shape, now, d.decomposition);  // checks the tiling
  EXPECT_GT(brute.first, 0);
  EXPECT_EQ(d.elements_moved, brute.first);
  EXPECT_EQ(d.max_elements_received, brute.second);
  for (const auto& p : d.decomposition.parts) EXPECT_EQ(range(p, 2), (Range{0, 3}));
  EXPECT_LT(d.predicted_imbalance, d.measured_imbalance);
}

// One rank owns everything: nothing to move either way.
TEST(RebalanceGrid, OneRankKeepsTheWholeGrid) {
  const GridShape shape{2, {3, 5, 1}};
  const auto now = uniform(shape, {{1}, {0}});
  const std::vector<double> load{4};
  for (const auto& g :
       {isocost::rebalance_grid_global(shape, now, load, Speeds::uniform(now.ranks())),
        isocost::rebalance_grid_diffusive(shape, now, load)}) {
    EXPECT_EQ(g.elements_moved, 0) << to_string(g.method());
    EXPECT_EQ(range(g.decomposition.parts[0], 0), (Range{0, 3}));
    EXPECT_EQ(range(g.decomposition.parts[0], 1), (Range{0, 5}));
    EXPECT_NEAR(g.predicted_time[0], 4, 1e-12) << to_string(g.method());
    EXPECT_EQ(g.predicted_imbalance, 0);
  }
}

TEST(GridCellsMoved, CountsCellsThatChangeOwner) {
  // 1 × 10 rows: [0,4) [4,10) → [0,7) [7,10): rank 0 gains 3 cells, rank 1 none.
  const auto m = isocost::grid_cells_moved(rows(1, {0, 4, 10}), rows(1, {0, 7, 10}));
  EXPECT_EQ(m, (std::pair<std::int64_t, std::int64_t>{3, 3}));
  // A z range of [0, 1) on one side and [0, 0) on the other is the same 2-D grid.
  auto flat = rows(1, {0, 4, 10});
  for (auto& p : flat.parts) p.cell_hi[2] = 1;
  EXPECT_EQ(isocost::grid_cells_moved(flat, rows(1, {0, 4, 10})).first, 0);
  expect_error(
      [] {
        isocost::grid_cells_moved(rows(1, {0, 4, 10}), rows(1, {0, 2, 4, 10}));
      },
      {"2 parts before, 3 after"});
  expect_error(
      [] {
        isocost::grid_cells_moved(rows(1, {0, 4, 10}), rows(1, {0, 4, 9}));
      },
      {"1x10x1", "1x9x1"});
  expect_error(
      [] {
        isocost::grid_cells_moved(rows(1, {0, 4, 10}), rows(1, {0, 5, 4, 10}));
      },
      {"3 after"});
  expect_error(
      [] {
        isocost::grid_cells_moved(rows(1, {0, 4, 10}), rows(1, {0, 6, 4}));
      },
      {"cells of part 1 after along y: expected [lo, hi) with 0 <= lo <= hi, got [6, 4)"});
  expect_error(
      [] {
        isocost::grid_cells_moved(rows(1, {0, 6, 10}), rows(2, {0, 6, 10}));
      },
      {"2x10x1"});
}

// Per-cell costs the code knows: the plan is decompose() of exactly those
// costs; costs equal to the piecewise-constant estimate give global's plan.
TEST(RebalanceGridWeights, CutsTheGivenCellCosts) {
  const GridShape shape{2, {12, 10, 1}};
  const auto now = uniform(shape, {{2, 2}, {0, 1}});
  std::vector<double> costs(120, 1.0);
  for (int j = 6; j < 10; ++j)
    for (int i = 8; i < 12; ++i) costs[static_cast<std::size_t>(i + 12 * j)] = 9;  // hot spot
  const Speeds speeds = Speeds::uniform(4);
  const auto w = isocost::rebalance_grid_weights(shape, now, costs, speeds);
  const auto direct =
      isocost::decompose(isocost::grid_density(costs, shape), now.process_grid, speeds);
  ASSERT_EQ(w.decomposition.parts.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(w.decomposition.parts[r].cell_lo, direct.parts[r].cell_lo) << r;
    EXPECT_EQ(w.decomposition.parts[r].cell_hi, direct.parts[r].cell_hi) << r;
    EXPECT_NEAR(w.predicted_time[r], direct.parts[r].time, 1e-12) << r;
  }
  EXPECT_EQ(w.method(), isocost::PlanMethod::weights);
  EXPECT_GT(w.measured_imbalance, w.predicted_imbalance);
  // Costs that are the estimate from per-rank loads: the global plan.
  const std::vector<double> loads{1, 2, 3, 4};
  std::vector<double> estimate(120);
  for (std::size_t r = 0; r < 4; ++r) {
    const auto& p = now.parts[r];
    const double cells = double((p.cell_hi[0] - p.cell_lo[0]) * (p.cell_hi[1] - p.cell_lo[1]));
    for (auto j = p.cell_lo[1]; j < p.cell_hi[1]; ++j)
      for (auto i = p.cell_lo[0]; i < p.cell_hi[0]; ++i)
        estimate[static_cast<std::size_t>(i + 12 * j)] = loads[r] / cells;
  }
  const auto g = isocost::rebalance_grid_global(shape, now, loads, speeds);
  const auto e = isocost::rebalance_grid_weights(shape, now, estimate, speeds);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(e.decomposition.parts[r].cell_lo, g.decomposition.parts[r].cell_lo) << r;
    EXPECT_EQ(e.decomposition.parts[r].cell_hi, g.decomposition.parts[r].cell_hi) << r;
  }
  // Balanced costs: nothing better, nothing moves.
  const auto kept =
      isocost::rebalance_grid_weights(shape, now, std::vector<double>(120, 1.0), speeds);
  EXPECT_EQ(kept.elements_moved, 0);
  expect_error(
      [&] { isocost::rebalance_grid_weights(shape, now, std::vector<double>(119, 1.0), speeds); },
      {"119 cell costs for a grid of 120 cells"});
  costs[5] = -1;
  expect_error([&] { isocost::rebalance_grid_weights(shape, now, costs, speeds); },
               {"load of cell 5: expected a finite number >= 0, got -1"});
}

// New parts cut elsewhere (as mpi::decompose_grid() does, in cell units):
// the same plan as rebalance_grid_weights() on the same costs, in the current
// decomposition's box units, and the same rule for keeping the current parts.
TEST(RebalanceGridWith, EqualsTheWeightsPlanInTheCurrentBoxUnits) {
  const GridShape shape{2, {12, 10, 1}};
  isocost::Box box;
  box.dims = 2;
  box.lo = {1, -2, 0};
  box.hi = {4, 0, 0};
  const auto now =
      isocost::decompose(isocost::grid_density(std::vector<double>(120, 1.0), shape, box),
                         {{2, 2}, {0, 1}}, Speeds::uniform(4));
  std::vector<double> costs(120, 1.0);
  for (int j = 6; j < 10; ++j)
    for (int i = 8; i < 12; ++i) costs[static_cast<std::size_t>(i + 12 * j)] = 9;
  const Speeds speeds = Speeds::from_values({1.0, 2.0, 1.0, 1.0});
  const auto w = isocost::rebalance_grid_weights(shape, now, costs, speeds);
  std::vector<double> times(4, 0.0);
  for (std::size_t r = 0; r < 4; ++r) {
    const auto& p = now.parts[r];
    for (auto j = p.cell_lo[1]; j < p.cell_hi[1]; ++j)
      for (auto i = p.cell_lo[0]; i < p.cell_hi[0]; ++i)
        times[r] += costs[static_cast<std::size_t>(i + 12 * j)];
    times[r] /= speeds.speed(static_cast<int>(r));
  }
  const auto next =
      isocost::decompose(isocost::grid_density(costs, shape), now.process_grid, speeds);
  EXPECT_EQ(next.parts[1].box.hi[0], double(next.parts[1].cell_hi[0]));  // cell units
  const auto v = isocost::rebalance_grid_with(shape, now, next, times, speeds);
  ASSERT_EQ(v.decomposition.parts.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    const auto& a = v.decomposition.parts[r];
    const auto& b = w.decomposition.parts[r];
    EXPECT_EQ(a.cell_lo, b.cell_lo) << r;
    EXPECT_EQ(a.cell_hi, b.cell_hi) << r;
    for (int k = 0; k < 2; ++k) {
      EXPECT_NEAR(a.box.lo[k], b.box.lo[k], 1e-12) << r;
      EXPECT_NEAR(a.box.hi[k], b.box.hi[k], 1e-12) << r;
    }
    EXPECT_NEAR(a.surface, b.surface, 1e-12) << r;
    EXPECT_NEAR(v.predicted_time[r], w.predicted_time[r], 1e-12) << r;
  }
  EXPECT_NEAR(v.decomposition.cut_surface, w.decomposition.cut_surface, 1e-12);
  EXPECT_EQ(v.elements_moved, w.elements_moved);
  EXPECT_GT(v.elements_moved, 0);
  EXPECT_EQ(v.max_elements_received, w.max_elements_received);
  EXPECT_NEAR(v.measured_imbalance, w.measured_imbalance, 1e-12);
  EXPECT_EQ(v.method(), isocost::PlanMethod::weights);
  // Balanced costs: nothing better, the current parts stay.
  const std::vector<double> flat(120, 1.0);
  const auto uniform_speeds = Speeds::uniform(4);
  const std::vector<double> flat_times(4, 30.0);  // 6 x 5 cells of cost 1 each
  const auto kept = isocost::rebalance_grid_with(
      shape, now,
      isocost::decompose(isocost::grid_density(flat, shape), now.process_grid, uniform_speeds),
      flat_times, uniform_speeds);
  EXPECT_EQ(kept.elements_moved, 0);
  EXPECT_EQ(kept.predicted_time, flat_times);
  expect_error(
      [&] {
        isocost::rebalance_grid_with(shape, now, next, std::vector<double>{1.0, 2.0}, speeds);
      },
      {"2 current times for 4 parts"});
}

// Without costs the plan is shift_jagged() on uniform cells and the
// prediction sums each old part's per-cell load over the cells it shares with
// a new part, with no per-cell array; it must equal the plan on given equal
// costs (a summed-area table over every cell): rows, a jagged grid of a 2-D
// and of a 3-D grid, from equal parts and from the first plan's unequal ones.
TEST(RebalanceGridDiffusive, UniformCellCostsAreTheDefault) {
  struct Case {
    GridShape shape;
    isocost::ProcessGrid grid;
  };
  for (const Case& c :
       {Case{{2, {16, 16, 1}}, {{2, 2}, {0, 1}}}, Case{{2, {16, 12, 1}}, {{4}, {1}}},
        Case{{3, {6, 8, 3}}, {{2, 2}, {0, 1}}}}) {
    const GridShape& shape = c.shape;
    auto now = uniform(shape, c.grid);
    const std::vector<double> loads{4, 1, 1, 1.5};
    for (int step = 0; step < 2; ++step) {
      SCOPED_TRACE(c.grid.name() + ", step " + std::to_string(step));
      const auto plain = isocost::rebalance_grid_diffusive(shape, now, loads);
      const auto costs = isocost::rebalance_grid_diffusive(
          shape, now, loads, {}, std::vector<double>(static_cast<std::size_t>(shape.count()), 3.0));
      for (std::size_t r = 0; r < 4; ++r) {
        EXPECT_EQ(costs.decomposition.parts[r].cell_lo, plain.decomposition.parts[r].cell_lo) << r;
        EXPECT_EQ(costs.decomposition.parts[r].cell_hi, plain.decomposition.parts[r].cell_hi) << r;
        EXPECT_NEAR(costs.predicted_time[r], plain.predicted_time[r], 1e-12) << r;
      }
      EXPECT_EQ(plain.elements_moved, costs.elements_moved);
      EXPECT_GT(plain.elements_moved, 0);
      now = plain.decomposition;
    }
  }
}

TEST(RebalanceGrid, BadInput) {
  const GridShape shape{2, {4, 8, 1}};
  const auto now = uniform(shape, {{4}, {1}});
  const std::vector<double> ok{1, 1, 1, 5};
  for (bool diffusive : {false, true}) {
    auto call = [&](const GridShape& s, const Decomposition& d, std::vector<double> loads,
                    const Speeds& speeds = Speeds::uniform(4)) {
      if (diffusive) return isocost::rebalance_grid_diffusive(s, d, loads);
      return isocost::rebalance_grid_global(s, d, loads, speeds);
    };
    expect_error([&] { call(shape, now, {1, 1, 1}); }, {"3 loads for 4 parts"});
    expect_error(
        [&] {
          call(shape, now, {1, -1, 1, 1});
        },
        {"load of part 1: expected a finite number >= 0, got -1"});
    expect_error(
        [&] {
          call(shape, now, {1, 1, NAN, 1});
        },
        {"load of part 2: expected a finite number >= 0, got nan"});
    expect_error([&] { call(shape, now, {0, 0, 0, 0}); }, {"all loads are zero"});
    if (!diffusive) {
      expect_error([&] { call(shape, now, ok, Speeds::uniform(2)); }, {"2 speeds for 4 parts"});
      GridGlobalRebalanceOptions o;
      o.decompose.min_width[1] = -1;
      expect_error([&] { isocost::rebalance_grid_global(shape, now, ok, Speeds::uniform(4), o); },
                   {"decompose.min_width[1]: expected a finite number >= 0, got -1"});
    } else {
      isocost::GridDiffusiveRebalanceOptions o;
      o.shift.min_width = -1;
      expect_error([&] { isocost::rebalance_grid_diffusive(shape, now, ok, o); },
                   {"shift.min_width: expected a finite number >= 0, got -1"});
    }
    // Not a tiling of the grid: overlap, gap, outside, another shape.
    auto bad = now;
    bad.parts[2].cell_lo[1] = 3;
    expect_error([&] { call(shape, bad, ok); }, {"parts 1 and 2 both hold cell (0, 3)"});
    bad = now;
    bad.parts[2].cell_hi[1] = 5;
    expect_error([&] { call(shape, bad, ok); }, {"cell (0, 5) belongs to no part"});
    bad = now;
    bad.parts[3].cell_hi[1] = 9;
    expect_error([&] { call(shape, bad, ok); },
                 {"cells of part 3 along y: expected a range inside [0, 8), got [6, 9)"});
    expect_error(
        [&] {
          call(GridShape{2, {4, 9, 1}}, now, ok);
        },
        {"cell (0, 8) belongs to no part"});
    expect_error([&] { call(GridShape{1, {32, 1, 1}}, now, ok); }, {"axis 1", "1-D"});
    bad = now;
    bad.parts.pop_back();
    expect_error([&] { call(shape, bad, ok); }, {"3 parts", "4 ranks"});
    bad = now;
    std::swap(bad.parts[0], bad.parts[1]);
    expect_error([&] { call(shape, bad, ok); }, {"part 0 has rank 1"});
  }
  // Diffusion shifts at most two levels.
  const GridShape cube{3, {4, 4, 4}};
  expect_error(
      [&] {
        isocost::rebalance_grid_diffusive(cube, uniform(cube, {{2, 2, 2}, {0, 1, 2}}),
                                          std::vector<double>(8, 1.0));
      },
      {"3-level grid"});
}

}  // namespace
