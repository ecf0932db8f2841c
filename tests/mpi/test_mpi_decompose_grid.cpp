// isocost/mpi/decompose_grid.hpp under mpiexec -n N (CTest: N = 1, 2, 3, 4,
// 5, 8). Every rank builds the same global integer weights, takes the cells
// of its box in one of three starting layouts (a jagged split of the ranks,
// everything on rank 0, slabs along the last axis), and the distributed
// decomposition must equal the serial decompose() of grid_density() of all
// the weights, part for part: cell ranges, boxes, costs, times, surfaces.
// Integer weights make every sum exact.
#include "isocost/mpi/decompose_grid.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mpi_test_support.hpp"

namespace {

using isocost::Decomposition;
using isocost::GridShape;
using isocost::ProcessGrid;
using isocost::Speeds;
using isocost::testing::error_of;
using isocost::testing::expect_has;
using isocost::testing::expect_in_step;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using Cells = std::array<std::int64_t, 3>;

// Integer weights: a bell, spikes and a step, x fastest.
std::vector<double> weights_of(const GridShape& s, const std::string& pattern) {
  std::vector<double> w(static_cast<std::size_t>(s.count()));
  std::mt19937_64 rng(9);
  for (std::int64_t c = 0; c < s.count(); ++c) {
    const std::int64_t i = c % s.cells[0], j = c / s.cells[0] % s.cells[1];
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(s.cells[0]);
    const double y = (static_cast<double>(j) + 0.5) / static_cast<double>(s.cells[1]);
    double& v = w[static_cast<std::size_t>(c)];
    if (pattern == "bell")
      v = 1 + std::round(20 * std::exp(-((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)) / 0.02));
    if (pattern == "spikes") v = rng() % 100 == 0 ? 100 : 1;
    if (pattern == "step") v = x + y > 1 ? 5 : 1;
  }
  return w;
}

// This rank's box in a starting layout, and its weights (x fastest).
std::pair<Cells, Cells> box_of(const GridShape& s, int layout) {
  const int R = size_of(), r = rank_of();
  Cells lo{0, 0, 0}, hi{s.cells[0], s.dims > 1 ? s.cells[1] : 1, s.dims > 2 ? s.cells[2] : 1};
  if (layout == 0) {  // the jagged split decompose() gives uniform weights
    std::vector<double> ones(static_cast<std::size_t>(s.count()), 1.0);
    const Decomposition d = isocost::decompose(isocost::grid_density(ones, s),
                                               ProcessGrid{{R}, {0}}, Speeds::uniform(R));
    for (int a = 0; a < s.dims; ++a) {
      lo[static_cast<std::size_t>(a)] = d.parts[static_cast<std::size_t>(r)].cell_lo[a];
      hi[static_cast<std::size_t>(a)] = d.parts[static_cast<std::size_t>(r)].cell_hi[a];
    }
  } else if (layout == 1) {  // all on rank 0
    if (r != 0) hi = lo;
  } else {  // slabs along the last axis, equal counts (some empty if R > n)
    const auto a = static_cast<std::size_t>(s.dims - 1);
    const std::int64_t n = s.cells[a];
    lo[a] = n * r / R;
    hi[a] = n * (r + 1) / R;
  }
  return {lo, hi};
}

std::vector<double> mine(const std::vector<double>& all, const GridShape& s, const Cells& lo,
                         const Cells& hi) {
  std::vector<double> w;
  const std::int64_t ny = s.dims > 1 ? s.cells[1] : 1;
  for (std::int64_t k = lo[2]; k < hi[2]; ++k)
    for (std::int64_t j = lo[1]; j < hi[1]; ++j)
      for (std::int64_t i = lo[0]; i < hi[0]; ++i)
        w.push_back(all[static_cast<std::size_t>(i + s.cells[0] * (j + ny * k))]);
  return w;
}

void expect_same(const Decomposition& got, const Decomposition& want) {
  ASSERT_EQ(got.parts.size(), want.parts.size());
  for (std::size_t p = 0; p < want.parts.size(); ++p) {
    SCOPED_TRACE("part " + std::to_string(p));
    const auto& g = got.parts[p];
    const auto& w = want.parts[p];
    EXPECT_EQ(g.rank, w.rank);
    EXPECT_EQ(g.cell_lo, w.cell_lo);
    EXPECT_EQ(g.cell_hi, w.cell_hi);
    EXPECT_EQ(g.box.lo, w.box.lo);
    EXPECT_EQ(g.box.hi, w.box.hi);
    EXPECT_EQ(g.cost, w.cost);
    EXPECT_EQ(g.time, w.time);
    EXPECT_EQ(g.surface, w.surface);
  }
  EXPECT_EQ(got.total_cost, want.total_cost);
  EXPECT_EQ(got.max_time, want.max_time);
  EXPECT_EQ(got.cut_surface, want.cut_surface);
  EXPECT_EQ(got.predicted_le, want.predicted_le);
}

TEST(DecomposeGrid, EqualsTheSerialDecompositionCutForCut) {
  struct Case {
    GridShape shape;
    ProcessGrid grid;
  };
  const std::vector<Case> cases{
      {{2, {37, 23, 1}}, {{6}, {1}}},            // rows
      {{2, {37, 23, 1}}, {{4, 3}, {0, 1}}},      // jagged 4x3
      {{2, {64, 48, 1}}, {{3, 5}, {1, 0}}},      // jagged, y first
      {{3, {9, 8, 7}}, {{2, 2, 2}, {2, 0, 1}}},  // 3-D recursive sections
      {{1, {50, 1, 1}}, {{7}, {0}}},             // 1-D
  };
  for (const Case& c : cases)
    for (const std::string pattern : {"bell", "spikes", "step"})
      for (int layout = 0; layout < 3; ++layout)
        for (const bool uneven : {false, true}) {
          SCOPED_TRACE(c.grid.name() + " " + pattern + " layout " + std::to_string(layout) +
                       (uneven ? " speeds" : ""));
          const std::vector<double> all = weights_of(c.shape, pattern);
          std::vector<double> sv;
          for (int r = 0; r < c.grid.ranks(); ++r) sv.push_back(1 + r % 3);
          const Speeds s = uneven ? Speeds::from_values(sv) : Speeds::uniform(c.grid.ranks());
          isocost::DecomposeOptions o;
          if (uneven) o.min_width = {2, 2, 1};
          const auto [lo, hi] = box_of(c.shape, layout);
          const Decomposition got = isocost::mpi::decompose_grid(
              MPI_COMM_WORLD, c.shape, lo, hi, mine(all, c.shape, lo, hi), c.grid, s, o);
          const Decomposition want =
              isocost::decompose(isocost::grid_density(all, c.shape), c.grid, s, o);
          ASSERT_NO_FATAL_FAILURE(expect_same(got, want));
        }
}

TEST(DecomposeGrid, BadInputFailsOnEveryRank) {
  const int R = size_of(), last = R - 1;
  const GridShape shape{2, {20, 10, 1}};
  const ProcessGrid pg{{2, 2}, {0, 1}};
  const Speeds s = Speeds::uniform(4);
  const std::vector<double> all = weights_of(shape, "step");
  // Named copies, not structured bindings: clang 14 cannot capture those.
  const auto box = box_of(shape, 2);
  const Cells lo = box.first, hi = box.second;
  std::vector<double> w = mine(all, shape, lo, hi);
  if (rank_of() == last && !w.empty()) w[0] = -1;
  std::string e =
      error_of([&] { isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo, hi, w, pg, s); });
  expect_has(e, "decompose_grid");
  expect_has(e, "weight of local cell 0: expected a finite number >= 0, got -1");
  expect_in_step();

  w = mine(all, shape, lo, hi);
  if (rank_of() == last) w.push_back(1);
  e = error_of([&] { isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo, hi, w, pg, s); });
  expect_has(e, "rank " + std::to_string(last));
  expect_has(e, "weights for a box of");
  expect_in_step();

  // Boxes that do not tile the grid: rank 0 also claims the last rank's cells
  // (or, alone, a box short of the grid).
  Cells lo2 = lo, hi2 = hi;
  if (rank_of() == 0) hi2[1] = R == 1 ? 9 : 10;
  if (rank_of() == 0) lo2[1] = 0;
  e = error_of([&] {
    isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo2, hi2, mine(all, shape, lo2, hi2), pg,
                                 s);
  });
  expect_has(e, "expected boxes that tile the grid");
  expect_in_step();

  // Boxes that hold as many cells as the grid but overlap: x-slabs, rank 0's
  // shifted one column onto rank 1's, leaving column 0 in no box.
  if (R > 1) {
    Cells lo3{0, 0, 0}, hi3{0, 10, 1};
    lo3[0] = 20 * rank_of() / R, hi3[0] = 20 * (rank_of() + 1) / R;
    if (rank_of() == 0) lo3[0] += 1, hi3[0] += 1;
    e = error_of([&] {
      isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo3, hi3, mine(all, shape, lo3, hi3), pg,
                                   s);
    });
    expect_has(e, "some cell is in two boxes and another in none");
    expect_in_step();
  }

  Cells out = hi;
  out[0] = 21;
  e = error_of([&] {
    isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo, rank_of() == last ? out : hi,
                                 mine(all, shape, lo, hi), pg, s);
  });
  expect_has(e, "box along x: expected a range inside [0, 20), got [0, 21)");
  expect_in_step();

  if (R > 1) {
    e = error_of([&] {
      isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo, hi, mine(all, shape, lo, hi),
                                   rank_of() == last ? ProcessGrid{{4}, {0}} : pg, s);
    });
    expect_has(e, "shape and process grid");
    expect_in_step();
  }
  isocost::DecomposeOptions wide;
  wide.min_width = {11, 1, 1};
  e = error_of([&] {
    isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo, hi, mine(all, shape, lo, hi), pg, s,
                                 wide);
  });
  expect_has(e, "2 parts of width >= 11 along x do not fit in 20 cells");
  expect_in_step();
}

// --grid auto from boxes: the serial choice of the gathered grid, the same
// candidate and the same parts, with speeds and with minimum widths that rule
// some candidates out; none fitting is one error everywhere.
TEST(DecomposeGrid, ChoosesTheSerialProcessGrid) {
  struct Case {
    GridShape shape;
    int P;
    std::vector<double> speeds;  // empty: uniform
    std::array<double, 3> min_width;
  };
  const std::vector<Case> cases{
      {{2, {37, 23, 1}}, 6, {}, {0, 0, 0}},
      {{2, {64, 48, 1}}, 12, {1, 2, 1, 1, 3, 1, 1, 1, 2, 1, 1, 1}, {0, 0, 0}},
      {{3, {9, 8, 7}}, 8, {}, {0, 0, 0}},
      {{2, {40, 12, 1}}, 8, {}, {0, 5, 0}},  // 8 rows of 5 cannot fit in 12
  };
  for (const Case& c : cases)
    for (const std::string pattern : {"bell", "spikes", "step"})
      for (int layout = 0; layout < 3; ++layout) {
        SCOPED_TRACE(pattern + " P=" + std::to_string(c.P) + " layout " + std::to_string(layout));
        const auto all = weights_of(c.shape, pattern);
        const Speeds s = c.speeds.empty() ? Speeds::uniform(c.P) : Speeds::from_values(c.speeds);
        isocost::DecomposeOptions o;
        o.min_width = c.min_width;
        const Decomposition want =
            isocost::choose_process_grid(isocost::grid_density(all, c.shape), s, o);
        const auto [lo, hi] = box_of(c.shape, layout);
        const Decomposition got = isocost::mpi::choose_process_grid(
            MPI_COMM_WORLD, c.shape, lo, hi, mine(all, c.shape, lo, hi), s, o);
        EXPECT_EQ(got.process_grid.counts, want.process_grid.counts);
        EXPECT_EQ(got.process_grid.axes, want.process_grid.axes);
        expect_same(got, want);
      }
  const GridShape shape{2, {10, 10, 1}};
  const auto all = weights_of(shape, "bell");
  const auto box = box_of(shape, 2);  // not bound: clang 14 cannot capture bindings
  const Cells lo = box.first, hi = box.second;
  isocost::DecomposeOptions wide;
  wide.min_width = {4, 4, 1};
  const std::string e = error_of([&] {
    isocost::mpi::choose_process_grid(MPI_COMM_WORLD, shape, lo, hi, mine(all, shape, lo, hi),
                                      Speeds::uniform(9), wide);
  });
  expect_has(e, "no process grid for 9 ranks honours the minimum widths");
  EXPECT_TRUE(isocost::testing::same_everywhere(e));
  expect_in_step();
}

}  // namespace
