// isocost/mpi/partition_points_jagged.hpp under mpiexec -n N (CTest: N = 1,
// 2, 3, 4, 5, 8). Every rank draws the same global points (ids 0 … n − 1)
// and keeps its share; the test gathers every point and recomputes the
// partition serially by brute force: per level and piece, the points sorted
// by (coordinate, rank, index), each cut the boundary nearest W·C_j/C
// (integer weights, so every sum is exact). The library's part of every
// point must equal the reference's.
#include "isocost/mpi/partition_points_jagged.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "isocost/mpi/exchange.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::ProcessGrid;
using isocost::Speeds;
using isocost::mpi::jagged_points_grid;
using isocost::mpi::JaggedPointsPartition;
using isocost::mpi::partition_points_jagged;
using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::rank_of;
using isocost::testing::size_of;

struct JaggedPoints {
  std::vector<double> xyz, w;
  std::vector<std::int64_t> id;
};

enum class Pattern { uniform, clustered, duplicated };
enum class Layout { round_robin, blocks, rank1_empty, all_on_last };

// n points in `dims` D with integer weights 1-9 (0 for every 7th point of
// the duplicated pattern). Clustered: three Gaussian clusters over a uniform
// background; duplicated: coordinates on a 3-value lattice (−0 is 0), so
// most points tie. Point g goes to its rank by `layout`.
JaggedPoints draw(int dims, std::int64_t n, Pattern pattern, Layout layout) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> gauss(0, 0.03);
  std::uniform_real_distribution<double> u(-1, 1);
  const int R = size_of(), r = rank_of();
  const double lattice[] = {-1.0, -0.0, 0.0, 1.5};  // −0 and +0 tie
  JaggedPoints p;
  for (std::int64_t g = 0; g < n; ++g) {
    std::vector<double> x(static_cast<std::size_t>(dims));
    const int c = static_cast<int>(rng() % 4);
    for (auto& v : x) {
      if (pattern == Pattern::uniform) v = u(rng);
      if (pattern == Pattern::clustered) v = c == 3 ? u(rng) : -0.5 + 0.4 * c + gauss(rng);
      if (pattern == Pattern::duplicated) v = lattice[rng() % 4];
    }
    double w = static_cast<double>(1 + rng() % 9);
    if (pattern == Pattern::duplicated && g % 7 == 0) w = 0;
    int owner = static_cast<int>(g % R);
    if (layout == Layout::blocks) owner = static_cast<int>(g * R / n);
    if (layout == Layout::rank1_empty && R > 1 && owner == 1) owner = 0;
    if (layout == Layout::all_on_last) owner = R - 1;
    if (owner != r) continue;
    p.xyz.insert(p.xyz.end(), x.begin(), x.end());
    p.w.push_back(w);
    p.id.push_back(g);
  }
  return p;
}

struct JaggedRow {
  std::vector<double> x;
  double w;
  std::int64_t rank, index, id;
  int part;
};

// Every point of every rank with the library's part.
std::vector<JaggedRow> gather(int dims, const JaggedPoints& p, const JaggedPointsPartition& out) {
  const auto d = static_cast<std::size_t>(dims);
  std::vector<double> mine;
  for (std::size_t i = 0; i < p.w.size(); ++i) {
    mine.insert(mine.end(), p.xyz.begin() + static_cast<long>(i * d),
                p.xyz.begin() + static_cast<long>((i + 1) * d));
    mine.insert(mine.end(), {p.w[i], static_cast<double>(rank_of()), static_cast<double>(i),
                             static_cast<double>(p.id[i]), static_cast<double>(out.part[i])});
  }
  const int R = size_of();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(R)), displ(static_cast<std::size_t>(R), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t q = 1; q < counts.size(); ++q) displ[q] = displ[q - 1] + counts[q - 1];
  std::vector<double> all(static_cast<std::size_t>(displ.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displ.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  std::vector<JaggedRow> rows;
  for (std::size_t j = 0; j < all.size(); j += d + 5)
    rows.push_back({std::vector<double>(all.begin() + static_cast<long>(j),
                                        all.begin() + static_cast<long>(j + d)),
                    all[j + d], static_cast<std::int64_t>(all[j + d + 1]),
                    static_cast<std::int64_t>(all[j + d + 2]),
                    static_cast<std::int64_t>(all[j + d + 3]), static_cast<int>(all[j + d + 4])});
  return rows;
}

// The brute-force partition of the gathered rows: each row's part.
std::vector<int> reference(const std::vector<JaggedRow>& rows, const ProcessGrid& g,
                           const Speeds& s) {
  std::vector<int> piece(rows.size(), 0);
  int pieces = 1;
  for (std::size_t l = 0; l < g.counts.size(); ++l) {
    const int m = g.counts[l];
    const auto a = static_cast<std::size_t>(g.axes[l]);
    int q = 1;  // ranks per slab
    for (std::size_t k = l + 1; k < g.counts.size(); ++k) q *= g.counts[k];
    std::vector<int> next(rows.size());
    for (int p = 0; p < pieces; ++p) {
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (piece[i] == p) mine.push_back(i);
      std::sort(mine.begin(), mine.end(), [&](std::size_t i, std::size_t j) {
        const double xi = rows[i].x[a], xj = rows[j].x[a];  // −0 == +0
        return std::tie(xi, rows[i].rank, rows[i].index) <
               std::tie(xj, rows[j].rank, rows[j].index);
      });
      std::vector<double> cum{0};
      for (const std::size_t i : mine) cum.push_back(cum.back() + rows[i].w);
      std::vector<double> speed(static_cast<std::size_t>(m), 0.0);
      for (int j = 0; j < m; ++j)
        for (int r = 0; r < q; ++r)
          speed[static_cast<std::size_t>(j)] += s.speed(p * m * q + j * q + r);
      const double all = std::accumulate(speed.begin(), speed.end(), 0.0);
      std::vector<std::size_t> cut{0};
      double before = 0;
      for (int j = 0; j + 1 < m; ++j) {
        before += speed[static_cast<std::size_t>(j)];
        const double target = cum.back() * before / all;
        std::size_t best = 0;
        for (std::size_t b = 1; b < cum.size(); ++b)
          if (std::abs(cum[b] - target) < std::abs(cum[best] - target)) best = b;
        cut.push_back(best);
      }
      cut.push_back(mine.size());
      for (int j = 0; j < m; ++j)
        for (std::size_t c = cut[static_cast<std::size_t>(j)];
             c < cut[static_cast<std::size_t>(j) + 1]; ++c)
          next[mine[c]] = p * m + j;
    }
    piece = next;
    pieces *= m;
  }
  return piece;
}

// The documented bound E_L (E_l = f_l·E_{l−1} + max_point) for part k.
double bound(const ProcessGrid& g, const Speeds& s, int k, double max_point) {
  double e = 0;
  int first = 0, span = g.ranks();
  for (std::size_t l = 0; l < g.counts.size(); ++l) {
    const int q = span / g.counts[l], j = (k - first) / q;
    double piece = 0, slab = 0;
    for (int r = first; r < first + span; ++r) piece += s.speed(r);
    for (int r = first + j * q; r < first + (j + 1) * q; ++r) slab += s.speed(r);
    e = slab / piece * e + max_point;
    first += j * q;
    span = q;
  }
  return e;
}

void expect_matches_reference(int dims, const JaggedPoints& p, const ProcessGrid& g,
                              const Speeds& s) {
  const JaggedPointsPartition out = partition_points_jagged(MPI_COMM_WORLD, dims, p.xyz, p.w, g, s);
  const std::vector<JaggedRow> rows = gather(dims, p, out);
  const std::vector<int> ref = reference(rows, g, s);
  const int P = s.ranks();
  const auto d = static_cast<std::size_t>(dims);
  std::vector<double> weight(static_cast<std::size_t>(P), 0.0);
  double total = 0, heaviest = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].part, ref[i]) << "point " << rows[i].id << " (rank " << rows[i].rank << ")";
    weight[static_cast<std::size_t>(ref[i])] += rows[i].w;
    total += rows[i].w;
    heaviest = std::max(heaviest, rows[i].w);
    // Inside its part's box.
    for (std::size_t a = 0; a < d; ++a) {
      EXPECT_LE(out.part_lo[static_cast<std::size_t>(ref[i]) * d + a], rows[i].x[a]);
      EXPECT_GE(out.part_hi[static_cast<std::size_t>(ref[i]) * d + a], rows[i].x[a]);
    }
  }
  // The bounding box, and part boxes that tile it: inside it, lo <= hi,
  // volumes summing to its volume.
  double volume = 1, sum_volume = 0;
  for (std::size_t a = 0; a < d; ++a) {
    double lo = rows[0].x[a], hi = rows[0].x[a];
    for (const JaggedRow& r : rows) lo = std::min(lo, r.x[a]), hi = std::max(hi, r.x[a]);
    EXPECT_EQ(out.lo[a], lo);
    EXPECT_EQ(out.hi[a], hi);
    volume *= hi - lo;
  }
  for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k) {
    double v = 1;
    for (std::size_t a = 0; a < d; ++a) {
      EXPECT_LE(out.lo[a], out.part_lo[k * d + a]);
      EXPECT_LE(out.part_lo[k * d + a], out.part_hi[k * d + a]);
      EXPECT_LE(out.part_hi[k * d + a], out.hi[a]);
      v *= out.part_hi[k * d + a] - out.part_lo[k * d + a];
    }
    sum_volume += v;
  }
  EXPECT_NEAR(sum_volume, volume, 1e-12 * volume);
  EXPECT_EQ(out.points, static_cast<std::int64_t>(rows.size()));
  EXPECT_EQ(out.total, total);
  EXPECT_EQ(out.max_point, heaviest);
  EXPECT_EQ(out.part_weight, weight);
  double worst = 0;
  for (int k = 0; k < P; ++k) {
    const double wk = weight[static_cast<std::size_t>(k)];
    worst = std::max(worst, wk / s.speed(k));
    EXPECT_LE(std::abs(wk - total * s.speed(k) / s.total()), bound(g, s, k, heaviest) + 1e-9)
        << "part " << k;
  }
  EXPECT_EQ(out.max_time, worst);
  EXPECT_TRUE(out.converged());
  // At most 2^10 ranges a round, so 2^16 buckets each: 64-bit keys take <= 4
  // rounds a level.
  EXPECT_LE(out.rounds, 4 * static_cast<int>(g.counts.size()));
}

TEST(PartitionPointsJagged, EqualsTheSerialReferenceOnEveryPattern) {
  const std::vector<std::pair<int, ProcessGrid>> grids = {
      {1, {{7}, {0}}},       {2, {{4, 2}, {0, 1}}},
      {2, {{3, 3}, {1, 0}}}, {3, {{2, 3, 2}, {2, 0, 1}}},
      {3, {{5}, {1}}},       {2, {}}};
  for (const auto& [dims, g] : grids)
    for (const Pattern pattern : {Pattern::uniform, Pattern::clustered, Pattern::duplicated})
      for (const Layout layout :
           {Layout::round_robin, Layout::blocks, Layout::rank1_empty, Layout::all_on_last})
        for (const bool uneven : {false, true}) {
          const int P = g.ranks();
          std::vector<double> v(static_cast<std::size_t>(P));
          for (int k = 0; k < P; ++k) v[static_cast<std::size_t>(k)] = 1 + k % 3;
          const Speeds s = uneven ? Speeds::from_values(v) : Speeds::uniform(P);
          SCOPED_TRACE(std::to_string(dims) + "-D grid " + g.name() + ", pattern " +
                       std::to_string(static_cast<int>(pattern)) + ", layout " +
                       std::to_string(static_cast<int>(layout)) + (uneven ? ", speeds" : ""));
          ASSERT_NO_FATAL_FAILURE(
              expect_matches_reference(dims, draw(dims, 1500, pattern, layout), g, s));
        }
}

TEST(PartitionPointsJagged, MorePartsThanPoints) {
  // 5 points into 24 parts: most parts empty, still the reference's.
  for (const Layout layout : {Layout::round_robin, Layout::all_on_last}) {
    const ProcessGrid g{{4, 3, 2}, {0, 1, 2}};
    ASSERT_NO_FATAL_FAILURE(expect_matches_reference(3, draw(3, 5, Pattern::clustered, layout), g,
                                                     Speeds::uniform(24)));
    const ProcessGrid g1{{9}, {0}};
    ASSERT_NO_FATAL_FAILURE(
        expect_matches_reference(1, draw(1, 3, Pattern::uniform, layout), g1, Speeds::uniform(9)));
  }
}

TEST(PartitionPointsJagged, AllPointsAtOneCoordinate) {
  // A zero-width key range: every cut falls between tied points, by (rank, index).
  JaggedPoints p;
  for (std::int64_t g = rank_of(); g < 60; g += size_of()) {
    p.xyz.insert(p.xyz.end(), {0.25, static_cast<double>(g % 5)});
    p.w.push_back(static_cast<double>(1 + g % 4));
    p.id.push_back(g);
  }
  ASSERT_NO_FATAL_FAILURE(
      expect_matches_reference(2, p, ProcessGrid{{7, 2}, {0, 1}}, Speeds::uniform(14)));
}

TEST(PartitionPointsJagged, TheSamePointsGiveTheSamePartsOnAnyLayout) {
  // Distinct coordinates (uniform doubles): the order is the coordinates' alone.
  const ProcessGrid g{{4, 4}, {1, 0}};
  const Speeds s = Speeds::uniform(16);
  std::vector<int> part_of[3];
  const Layout layouts[] = {Layout::round_robin, Layout::blocks, Layout::all_on_last};
  for (int l = 0; l < 3; ++l) {
    const JaggedPoints p = draw(2, 2000, Pattern::uniform, layouts[l]);
    const JaggedPointsPartition out = partition_points_jagged(MPI_COMM_WORLD, 2, p.xyz, p.w, g, s);
    part_of[l].assign(2000, -1);
    for (const JaggedRow& r : gather(2, p, out))
      part_of[l][static_cast<std::size_t>(r.id)] = r.part;
  }
  EXPECT_EQ(part_of[0], part_of[1]);
  EXPECT_EQ(part_of[0], part_of[2]);
  EXPECT_EQ(std::count(part_of[0].begin(), part_of[0].end(), -1), 0);
}

TEST(PartitionPointsJagged, ExchangeConservesIdsAndWeights) {
  const int R = size_of(), r = rank_of();
  JaggedPoints p = draw(3, 5000, Pattern::clustered, Layout::round_robin);
  const ProcessGrid g = jagged_points_grid(R, 3, std::vector<double>{2, 2, 2});
  const JaggedPointsPartition out =
      partition_points_jagged(MPI_COMM_WORLD, 3, p.xyz, p.w, g, Speeds::uniform(R));
  std::vector<std::array<double, 3>> xyz(p.w.size());
  for (std::size_t i = 0; i < p.w.size(); ++i)
    xyz[i] = {p.xyz[3 * i], p.xyz[3 * i + 1], p.xyz[3 * i + 2]};
  std::vector<int> part = out.part;
  isocost::mpi::exchange(MPI_COMM_WORLD, std::span<const int>(out.part), {}, p.id, p.w, xyz, part);
  double mine = 0;
  for (std::size_t i = 0; i < p.w.size(); ++i) {
    EXPECT_EQ(part[i], r);
    mine += p.w[i];
    for (std::size_t a = 0; a < 3; ++a) {  // arrived inside its box
      EXPECT_LE(out.part_lo[static_cast<std::size_t>(r) * 3 + a], xyz[i][a]);
      EXPECT_GE(out.part_hi[static_cast<std::size_t>(r) * 3 + a], xyz[i][a]);
    }
  }
  EXPECT_EQ(mine, out.part_weight[static_cast<std::size_t>(r)]);
  isocost::testing::expect_ids_conserved(p.id, 5000);
  EXPECT_NE(out.brief_report().find("5000 points into"), std::string::npos) << out.brief_report();
}

TEST(PartitionPointsJagged, DefaultGridSpreadsFactorsOverTheLongestAxes) {
  // 12 = 3·2·2 over extents 4, 1, 1: 3 → x (4/1), 2 → x (4/3 > 1), 2 → y (1 > 4/6).
  ProcessGrid g = jagged_points_grid(12, 3, std::vector<double>{4, 1, 1});
  EXPECT_EQ(g.counts, (std::vector<int>{6, 2}));
  EXPECT_EQ(g.axes, (std::vector<int>{0, 1}));
  // 8 over extents 1, 2, 0: y (2), then x (1 = 2/2, tie to x), then y (1 > 1/2); y first.
  g = jagged_points_grid(8, 3, std::vector<double>{1, 2, 0});
  EXPECT_EQ(g.counts, (std::vector<int>{4, 2}));
  EXPECT_EQ(g.axes, (std::vector<int>{1, 0}));
  g = jagged_points_grid(1, 2, std::vector<double>{1, 1});
  EXPECT_TRUE(g.counts.empty());
  g = jagged_points_grid(97, 2, std::vector<double>{0, 0});
  EXPECT_EQ(g.counts, (std::vector<int>{97}));
  EXPECT_EQ(g.axes, (std::vector<int>{0}));
  EXPECT_NE(error_of([] { jagged_points_grid(0, 2, std::vector<double>{1, 1}); }), "");
  EXPECT_NE(error_of([] { jagged_points_grid(4, 2, std::vector<double>{1, -1}); }), "");
  EXPECT_NE(error_of([] { jagged_points_grid(4, 3, std::vector<double>{1, 1}); }), "");
}

// Without a grid: the grid jagged_points_grid() gives for the points' own
// bounding box, and the parts of that grid.
TEST(PartitionPointsJagged, WithoutAGridUsesTheDefaultOfTheBoundingBox) {
  const JaggedPoints p = draw(3, 2000, Pattern::clustered, Layout::blocks);
  const Speeds s = Speeds::uniform(12);
  const JaggedPointsPartition chosen = partition_points_jagged(MPI_COMM_WORLD, 3, p.xyz, p.w, s);
  std::vector<double> extents(3);
  for (std::size_t a = 0; a < 3; ++a) extents[a] = chosen.hi[a] - chosen.lo[a];
  const ProcessGrid g = jagged_points_grid(12, 3, extents);
  EXPECT_EQ(chosen.grid.counts, g.counts);
  EXPECT_EQ(chosen.grid.axes, g.axes);
  const JaggedPointsPartition given = partition_points_jagged(MPI_COMM_WORLD, 3, p.xyz, p.w, g, s);
  EXPECT_EQ(chosen.part, given.part);
  EXPECT_EQ(chosen.part_weight, given.part_weight);
}

TEST(PartitionPointsJagged, BadInputFailsOnEveryRank) {
  const int last = size_of() - 1;
  const ProcessGrid g{{2, 2}, {0, 1}};
  const Speeds s = Speeds::uniform(4);
  const auto run = [&](int dims, const JaggedPoints& p, const ProcessGrid& grid, const Speeds& sp,
                       isocost::mpi::JaggedPointsOptions o = {}) {
    return error_of(
        [&] { partition_points_jagged(MPI_COMM_WORLD, dims, p.xyz, p.w, grid, sp, o); });
  };
  JaggedPoints p = draw(2, 100, Pattern::uniform, Layout::round_robin);
  if (rank_of() == last) p.xyz[1] = std::numeric_limits<double>::quiet_NaN();
  expect_agreed_error(run(2, p, g, s),
                      "rank " + std::to_string(last) +
                          ": coordinate 1 of point 0: expected a finite number, got nan");
  p = draw(2, 100, Pattern::uniform, Layout::round_robin);
  if (rank_of() == last) p.w[0] = std::numeric_limits<double>::infinity();
  expect_agreed_error(run(2, p, g, s), "weight of point 0: expected a finite number >= 0, got inf");
  p = draw(2, 100, Pattern::uniform, Layout::round_robin);
  if (rank_of() == last) p.w[0] = -1;
  expect_agreed_error(run(2, p, g, s), "weight of point 0: expected a finite number >= 0, got -1");
  p = draw(2, 100, Pattern::uniform, Layout::round_robin);
  if (rank_of() == last) p.w.pop_back();
  expect_agreed_error(run(2, p, g, s), "coordinates for");
  expect_agreed_error(run(2, JaggedPoints{}, g, s), "no rank holds a point");
  const JaggedPoints zero{{0.5, 0.5}, {0.0}, {0}};
  expect_agreed_error(run(2, zero, g, s), "all weights are zero");
  p = draw(2, 100, Pattern::uniform, Layout::round_robin);
  expect_agreed_error(run(2, p, g, Speeds::uniform(5)),
                      "expected 5 ranks, as many as the speeds, got 4 ranks");
  expect_agreed_error(run(2, p, ProcessGrid{{2, 2}, {0, 0}}, s), "cut twice");
  expect_agreed_error(run(2, p, ProcessGrid{{2, 2}, {0, 2}}, s), "does not exist");
  expect_agreed_error(run(4, JaggedPoints{}, g, s), "dims: expected 1, 2 or 3, got 4");
  expect_agreed_error(run(2, p, ProcessGrid{{10'000'001}, {0}}, Speeds::uniform(10'000'001)),
                      "parts: expected at most 10000000, got 10000001");
  isocost::mpi::JaggedPointsOptions o;
  o.buckets = 1;
  expect_agreed_error(run(2, p, g, s, o), "buckets: expected an integer in [2, 65536], got 1");
  if (size_of() > 1) {
    o.buckets = rank_of() == last ? 512 : 256;
    expect_agreed_error(run(2, p, g, s, o),
                        "options differ from rank 0's: buckets 512 (rank 0: 256)");
    expect_agreed_error(run(2, p, rank_of() == last ? ProcessGrid{{4}, {0}} : g, s),
                        "grid 4 along x (rank 0: 2x2 along x,y)");
    expect_agreed_error(run(2, p, g, rank_of() == last ? Speeds::from_values({1, 1, 1, 2}) : s),
                        "speeds");
  }
}

}  // namespace
