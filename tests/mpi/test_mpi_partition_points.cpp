// isocost/mpi/partition_points.hpp under mpiexec -n N (CTest: N = 1, 2, 3,
// 4, 5, 8). Every rank draws the same global points (ids 0 … n − 1) and keeps
// its share; the test then gathers every point's (key, rank, index, part,
// weight) and checks the partition against its definition: parts follow the
// order (key, rank, index), and every cut is the boundary whose cumulative
// weight is nearest its target (integer weights, so the sums are exact). The
// keys are checked against hilbert_key() of the documented cell formula.
#include "isocost/mpi/partition_points.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "isocost/mpi/exchange.hpp"
#include "isocost/sfc.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::Speeds;
using isocost::mpi::partition_points;
using isocost::mpi::PointsPartition;
using isocost::testing::error_of;
using isocost::testing::expect_has;
using isocost::testing::expect_in_step;
using isocost::testing::rank_of;
using isocost::testing::size_of;

struct Points {
  std::vector<double> xyz, w;
  std::vector<std::int64_t> id;
};

// n points in `dims` D: a Gaussian mixture of three clusters over a uniform
// background (the clustered pattern), integer weights 1-9. Point g
// goes to rank g % R (round robin) or to the rank of its block (blocks),
// and `empty` leaves rank 1 without points.
Points draw(int dims, std::int64_t n, bool blocks, bool empty = false) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> gauss(0, 0.03);
  std::uniform_real_distribution<double> u(0, 1);
  const int R = size_of(), r = rank_of();
  Points p;
  for (std::int64_t g = 0; g < n; ++g) {
    std::vector<double> x(static_cast<std::size_t>(dims));
    const int c = static_cast<int>(rng() % 4);
    for (auto& v : x) v = c == 3 ? u(rng) : 0.2 + 0.3 * c + gauss(rng);
    const double w = static_cast<double>(1 + rng() % 9);
    int owner = blocks ? static_cast<int>(g * R / n) : static_cast<int>(g % R);
    if (empty && R > 1 && owner == 1) owner = 0;
    if (owner != r) continue;
    p.xyz.insert(p.xyz.end(), x.begin(), x.end());
    p.w.push_back(w);
    p.id.push_back(g);
  }
  return p;
}

struct Row {
  std::uint64_t key;
  std::int64_t rank, index, id;
  double w;
  int part;
};

// Every point of every rank, in the total order (key, rank, index).
std::vector<Row> gather(const Points& p, const PointsPartition& out) {
  std::vector<double> mine;
  for (std::size_t i = 0; i < p.w.size(); ++i)
    mine.insert(
        mine.end(),
        {static_cast<double>(out.key[i] >> 32), static_cast<double>(out.key[i] & 0xFFFFFFFFu),
         static_cast<double>(rank_of()), static_cast<double>(i), static_cast<double>(p.id[i]),
         p.w[i], static_cast<double>(out.part[i])});
  const int R = size_of();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(R)), displ(static_cast<std::size_t>(R), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 1; q < R; ++q)
    displ[static_cast<std::size_t>(q)] =
        displ[static_cast<std::size_t>(q) - 1] + counts[static_cast<std::size_t>(q) - 1];
  std::vector<double> all(static_cast<std::size_t>(displ.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displ.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  std::vector<Row> rows;
  for (std::size_t j = 0; j + 6 < all.size(); j += 7)
    rows.push_back(
        {(static_cast<std::uint64_t>(all[j]) << 32) | static_cast<std::uint64_t>(all[j + 1]),
         static_cast<std::int64_t>(all[j + 2]), static_cast<std::int64_t>(all[j + 3]),
         static_cast<std::int64_t>(all[j + 4]), all[j + 5], static_cast<int>(all[j + 6])});
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.key, a.rank, a.index) < std::tie(b.key, b.rank, b.index);
  });
  return rows;
}

// The definition, checked on the gathered points.
void expect_nearest_cuts(const std::vector<Row>& rows, const PointsPartition& out,
                         const Speeds& s) {
  const int P = s.ranks();
  std::vector<double> cum{0};
  for (const Row& r : rows) cum.push_back(cum.back() + r.w);
  EXPECT_EQ(out.total, cum.back());
  for (std::size_t j = 1; j < rows.size(); ++j)
    ASSERT_LE(rows[j - 1].part, rows[j].part) << "parts out of curve order at " << j;
  for (int k = 1; k < P; ++k) {
    std::size_t c = 0;  // the first point of part >= k: the cut's boundary
    while (c < rows.size() && rows[c].part < k) ++c;
    const double target = cum.back() * s.fraction_before(k);
    std::size_t nearest = 0;
    for (std::size_t j = 1; j < cum.size(); ++j)
      if (std::abs(cum[j] - target) < std::abs(cum[nearest] - target)) nearest = j;
    EXPECT_EQ(c, nearest) << "cut " << k << " target " << target;
  }
  double worst = 0;
  for (int k = 0; k < P; ++k)
    worst = std::max(worst, out.part_weight[static_cast<std::size_t>(k)] / s.speed(k));
  EXPECT_EQ(out.max_time, worst);
  // Nearest boundaries: every part within one point of its target.
  for (int k = 0; k < P; ++k)
    EXPECT_LE(std::abs(out.part_weight[static_cast<std::size_t>(k)] -
                       cum.back() * s.speed(k) / s.total()),
              out.max_point + 1e-9)
        << "part " << k;
}

TEST(PartitionPoints, CutsAreTheNearestBoundariesAlongTheCurve) {
  const int R = size_of();
  for (const int dims : {1, 2, 3})
    for (const int P : {1, R, 7, 64})
      for (const bool blocks : {false, true}) {
        SCOPED_TRACE(std::to_string(dims) + "-D, P " + std::to_string(P) +
                     (blocks ? ", blocks" : ", round robin"));
        const Points p = draw(dims, 3000, blocks, blocks);
        const Speeds s = P == 7 ? Speeds::from_values({1, 2, 1, 3, 1, 1, 2}) : Speeds::uniform(P);
        const PointsPartition out = partition_points(MPI_COMM_WORLD, dims, p.xyz, p.w, s);
        EXPECT_EQ(out.points, 3000);
        ASSERT_NO_FATAL_FAILURE(expect_nearest_cuts(gather(p, out), out, s));
        // The keys: hilbert_key() of the documented cells.
        const isocost::HilbertGrid g{dims, out.bits};
        const double side = std::ldexp(1.0, out.bits);
        for (std::size_t i = 0; i < p.w.size(); ++i) {
          std::array<std::uint64_t, 3> cell{0, 0, 0};
          for (int a = 0; a < dims; ++a) {
            const auto A = static_cast<std::size_t>(a);
            const double c =
                std::floor((p.xyz[i * static_cast<std::size_t>(dims) + A] - out.lo[A]) /
                           (out.hi[A] - out.lo[A]) * side);
            cell[A] = static_cast<std::uint64_t>(std::min(c, side - 1));
          }
          ASSERT_EQ(out.key[i], isocost::hilbert_key(g, cell)) << "point " << i;
        }
        // 2^16 buckets in the first round, then >= 2^20 / 63 (14 bits): at
        // most 1 + 48 / 14 rounds for 64-bit keys.
        EXPECT_LE(out.rounds, 5);
      }
}

// 2·10^5 points fill most of the first round's 2^16 buckets, so that round
// reduces the dense histogram (MPI_Allreduce); the later rounds, a few points
// per range, gather the non-empty buckets instead. Both give nearest cuts.
TEST(PartitionPoints, ManyPointsAreCutAsFewAre) {
  const Points p = draw(2, 200000, false);
  const Speeds s = Speeds::from_values({1, 2, 1, 3, 1, 1, 2});
  const PointsPartition out = partition_points(MPI_COMM_WORLD, 2, p.xyz, p.w, s);
  EXPECT_EQ(out.points, 200000);
  ASSERT_NO_FATAL_FAILURE(expect_nearest_cuts(gather(p, out), out, s));
  EXPECT_LE(out.rounds, 5);
}

TEST(PartitionPoints, TheSamePointsGiveTheSamePartsOnAnyLayout) {
  // Distinct keys (checked): the order is the keys' alone, whoever holds them.
  const Speeds s = Speeds::uniform(16);
  std::vector<int> part_of[2];
  for (int layout = 0; layout < 2; ++layout) {
    const Points p = draw(2, 2000, layout == 1);
    const PointsPartition out = partition_points(MPI_COMM_WORLD, 2, p.xyz, p.w, s);
    const std::vector<Row> rows = gather(p, out);
    for (std::size_t j = 1; j < rows.size(); ++j) ASSERT_NE(rows[j - 1].key, rows[j].key);
    part_of[layout].assign(2000, -1);
    for (const Row& r : rows) part_of[layout][static_cast<std::size_t>(r.id)] = r.part;
  }
  EXPECT_EQ(part_of[0], part_of[1]);
}

TEST(PartitionPoints, ExchangeConservesIdsAndWeights) {
  const int R = size_of(), r = rank_of();
  Points p = draw(3, 5000, false);
  const PointsPartition out = partition_points(MPI_COMM_WORLD, 3, p.xyz, p.w, Speeds::uniform(R));
  std::vector<std::array<double, 3>> xyz(p.w.size());
  for (std::size_t i = 0; i < p.w.size(); ++i)
    xyz[i] = {p.xyz[3 * i], p.xyz[3 * i + 1], p.xyz[3 * i + 2]};
  std::vector<int> part = out.part;
  isocost::mpi::exchange(MPI_COMM_WORLD, std::span<const int>(out.part), {}, p.id, p.w, xyz, part);
  double mine = 0;
  for (std::size_t i = 0; i < p.w.size(); ++i) {
    EXPECT_EQ(part[i], r);
    mine += p.w[i];
  }
  EXPECT_EQ(mine, out.part_weight[static_cast<std::size_t>(r)]);
  isocost::testing::expect_ids_conserved(p.id, 5000);
  EXPECT_NE(out.brief_report().find("5000 points into"), std::string::npos) << out.brief_report();
}

TEST(PartitionPoints, BadInputFailsOnEveryRank) {
  const int last = size_of() - 1;
  const Speeds s = Speeds::uniform(4);
  Points p = draw(2, 100, false);
  if (rank_of() == last && !p.w.empty()) p.xyz[1] = std::numeric_limits<double>::infinity();
  std::string e = error_of([&] { partition_points(MPI_COMM_WORLD, 2, p.xyz, p.w, s); });
  expect_has(e, "partition_points");
  expect_has(e, "rank " + std::to_string(last) +
                    ": coordinate 1 of point 0: expected a finite number, got inf");
  expect_in_step();

  p = draw(2, 100, false);
  if (rank_of() == last && !p.w.empty()) p.w[0] = -2;
  e = error_of([&] { partition_points(MPI_COMM_WORLD, 2, p.xyz, p.w, s); });
  expect_has(e, "weight of point 0: expected a finite number >= 0, got -2");
  expect_in_step();

  p = draw(2, 100, false);
  e = error_of([&] { partition_points(MPI_COMM_WORLD, 3, p.xyz, p.w, s); });
  expect_has(e, "coordinates for");
  expect_in_step();
  if (size_of() > 1) {
    const Points q = draw(rank_of() == last ? 3 : 2, 100, false);
    e = error_of(
        [&] { partition_points(MPI_COMM_WORLD, rank_of() == last ? 3 : 2, q.xyz, q.w, s); });
    expect_has(e, "dims");
    expect_in_step();
  }
  e = error_of([&] { partition_points(MPI_COMM_WORLD, 4, {}, {}, s); });
  expect_has(e, "dims: expected 1, 2 or 3, got 4");
  expect_in_step();
  e = error_of([&] { partition_points(MPI_COMM_WORLD, 2, {}, {}, s); });
  expect_has(e, "no rank holds a point");
  expect_in_step();
  isocost::mpi::PointsPartitionOptions o;
  o.buckets = 1;
  p = draw(2, 100, false);
  e = error_of([&] { partition_points(MPI_COMM_WORLD, 2, p.xyz, p.w, s, o); });
  expect_has(e, "buckets: expected an integer in [2, 65536], got 1");
  expect_in_step();
  const std::vector<double> xy{0.5, 0.5}, zero{0.0};
  e = error_of([&] { partition_points(MPI_COMM_WORLD, 2, xy, zero, s); });
  expect_has(e, "all weights are zero");
  expect_in_step();
}

}  // namespace
