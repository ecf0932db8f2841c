// isocost/mpi/migrate.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 8).
// Random distributions are drawn from seeded generators, the same on every
// rank. Expected values (owners, moved volumes, where each task ends) are
// computed here independently of the library, by brute force over every
// element or cell. Every test is collective; comparisons come after the last
// collective of a case where a failed expectation could otherwise leave a rank
// behind (a deadlock would show up as the CTest timeout).
#include "isocost/mpi/migrate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/error.hpp"
#include "isocost/tasks.hpp"

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::expect_has;
using isocost::testing::gather_holdings;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using Store = isocost::testing::TaskStore;

using isocost::mpi::BlockDistribution;
using isocost::mpi::BoxDistribution;
using isocost::mpi::CellBox;
using isocost::mpi::MigrationStage;
using i64 = std::int64_t;

// Collective: the sum over ranks.
i64 sum_of(i64 v) {
  i64 s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

// ---------------------------------------------------------------------------
// Element types and values

double value_of(i64 i) { return static_cast<double>(i) * 1.5 + 0.25; }

// 12 bytes: exercises element sizes that are not multiples of 8.
struct Triple {
  std::int32_t a, b, c;
};
static_assert(sizeof(Triple) == 12);
Triple triple_of(i64 i) {
  return {static_cast<std::int32_t>(i), static_cast<std::int32_t>(i * 7 + 1),
          static_cast<std::int32_t>(i ^ 0x5a5a)};
}
bool operator==(const Triple& x, const Triple& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }

// ---------------------------------------------------------------------------
// 1-D block distributions

TEST(BlockDistribution, ValidatesOffsets) {
  std::string e;
  EXPECT_TRUE((BlockDistribution{{0, 3, 3, 10}}).is_valid(&e)) << e;
  EXPECT_FALSE((BlockDistribution{{0, 5, 3, 10}}).is_valid(&e));
  expect_has(e, "offsets[2] = 3 < offsets[1] = 5");
  EXPECT_FALSE((BlockDistribution{{1, 5}}).is_valid(&e));
  expect_has(e, "offsets[0] = 1, expected 0");
  EXPECT_FALSE((BlockDistribution{{0}}).is_valid(&e));
  expect_has(e, "expected P + 1 >= 2");
  EXPECT_THROW((BlockDistribution{{0, -1}}).validate(), isocost::Error);

  const auto u = BlockDistribution::uniform(10, 4);
  EXPECT_EQ(u.offsets, (std::vector<i64>{0, 3, 6, 8, 10}));
  EXPECT_EQ(u.parts(), 4);
  EXPECT_EQ(u.size(), 10);
  EXPECT_EQ(u.count(3), 2);
  const i64 counts[] = {2, 0, 5};
  EXPECT_EQ(BlockDistribution::from_counts(counts).offsets, (std::vector<i64>{0, 2, 2, 7}));
  const i64 bad[] = {2, -1};
  EXPECT_THROW(BlockDistribution::from_counts(bad), isocost::Error);
  EXPECT_THROW(BlockDistribution::uniform(-1, 2), isocost::Error);

  // owner(): empty ranks own nothing.
  const BlockDistribution d{{0, 2, 2, 7}};
  EXPECT_EQ(d.owner(0), 0);
  EXPECT_EQ(d.owner(1), 0);
  EXPECT_EQ(d.owner(2), 2);
  EXPECT_EQ(d.owner(6), 2);
  EXPECT_THROW(d.owner(7), isocost::Error);
  EXPECT_NE(d.hash(), u.hash());
  EXPECT_EQ(d.hash(), (BlockDistribution{{0, 2, 2, 7}}).hash());
}

// Random offsets for P ranks over N elements, with empty ranks.
BlockDistribution random_blocks(std::mt19937_64& rng, i64 N, int P) {
  std::vector<i64> o(static_cast<std::size_t>(P) + 1, 0);
  std::uniform_int_distribution<i64> d(0, N);
  const int style = static_cast<int>(rng() % 4);
  for (int r = 1; r < P; ++r) o[static_cast<std::size_t>(r)] = style == 0 ? N : d(rng);
  o[static_cast<std::size_t>(P)] = N;
  std::sort(o.begin(), o.end());
  return BlockDistribution{o};
}

// Owner of every index, by scanning the offsets (independent of owner()).
std::vector<int> owners(const BlockDistribution& d) {
  std::vector<int> w(static_cast<std::size_t>(d.offsets.back()), -1);
  for (std::size_t r = 0; r + 1 < d.offsets.size(); ++r)
    for (i64 i = d.offsets[r]; i < d.offsets[r + 1]; ++i)
      w[static_cast<std::size_t>(i)] = static_cast<int>(r);
  return w;
}

template <class T, class F>
void check_blocks(const BlockDistribution& from, const BlockDistribution& to, F value,
                  const isocost::mpi::RedistributeOptions& o, const std::string& label) {
  SCOPED_TRACE(label);
  const int rank = rank_of(), P = size_of();
  std::vector<T> local;
  for (i64 i = from.begin(rank); i < from.end(rank); ++i) local.push_back(value(i));
  auto [data, s] = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local, o);

  ASSERT_EQ(static_cast<i64>(data.size()), to.count(rank));
  for (i64 i = to.begin(rank); i < to.end(rank); ++i)
    ASSERT_TRUE(data[static_cast<std::size_t>(i - to.begin(rank))] == value(i))
        << "element " << i << " on rank " << rank;

  // The minimum volume: elements whose owner changes, by brute force.
  const auto wf = owners(from), wt = owners(to);
  i64 moved = 0, kept = 0, sent = 0, received = 0;
  std::set<int> to_peers, from_peers;
  for (std::size_t i = 0; i < wf.size(); ++i) {
    moved += wf[i] != wt[i];
    kept += wf[i] == rank && wt[i] == rank;
    if (wf[i] == rank && wt[i] != rank) {
      ++sent;
      to_peers.insert(wt[i]);
    }
    if (wt[i] == rank && wf[i] != rank) {
      ++received;
      from_peers.insert(wf[i]);
    }
  }
  EXPECT_EQ(s.global_elements_moved, moved);
  EXPECT_EQ(s.global_bytes_moved, moved * static_cast<i64>(sizeof(T)));
  EXPECT_EQ(s.global_elements, from.size());
  EXPECT_EQ(s.elements_kept, kept);
  EXPECT_EQ(s.elements_sent, sent);
  EXPECT_EQ(s.elements_received, received);
  EXPECT_EQ(s.bytes_sent, sent * static_cast<i64>(sizeof(T)));
  EXPECT_EQ(s.peers_sent_to, static_cast<int>(to_peers.size()));
  EXPECT_EQ(s.peers_received_from, static_cast<int>(from_peers.size()));
  EXPECT_EQ(s.element_size, sizeof(T));
  EXPECT_EQ(s.rank, rank);
  EXPECT_EQ(s.ranks, P);
  EXPECT_EQ(s.verified, o.verify);
  EXPECT_FALSE(s.brief_report().empty());
}

TEST(Redistribute1D, RandomDistributionsMoveExactlyTheElementsThatChangeOwner) {
  const int P = size_of();
  std::mt19937_64 rng(20240601 + static_cast<unsigned>(P));
  isocost::mpi::RedistributeOptions verify;
  verify.verify = true;
  for (int trial = 0; trial < 40; ++trial) {
    const i64 N = trial == 0 ? 0 : static_cast<i64>(rng() % 2000);
    const auto from = random_blocks(rng, N, P), to = random_blocks(rng, N, P);
    const std::string label = "trial " + std::to_string(trial) + ", N = " + std::to_string(N);
    check_blocks<double>(from, to, value_of, verify, label + " (double)");
    check_blocks<Triple>(from, to, triple_of, verify, label + " (12-byte struct)");
  }
  // Identical distributions: nothing moves, all kept.
  const auto u = BlockDistribution::uniform(1000, P);
  check_blocks<double>(u, u, value_of, verify, "identical");
}

TEST(Redistribute1D, DirectWithoutStagingAndStagedInLargeUnits) {
  const int P = size_of(), rank = rank_of();
  std::mt19937_64 rng(99);
  const i64 N = 5000;
  const auto from = random_blocks(rng, N, P), to = random_blocks(rng, N, P);
  std::vector<double> local;
  for (i64 i = from.begin(rank); i < from.end(rank); ++i) local.push_back(value_of(i));

  isocost::mpi::RedistributeOptions o;
  o.verify = true;
  auto a = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local, o);
  EXPECT_EQ(a.summary.unit_elements, 1);
  EXPECT_FALSE(a.summary.staged);  // straight from `local` into the result

  // The large-transfer path on small data: counts limited to P + 40 units.
  o.max_mpi_count = P + 40;
  auto b = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local, o);
  i64 n_max = 0;
  for (int r = 0; r < P; ++r) n_max = std::max({n_max, from.count(r), to.count(r)});
  EXPECT_GT(b.summary.unit_elements, 1);
  EXPECT_LE((n_max + b.summary.unit_elements - 1) / b.summary.unit_elements + P, o.max_mpi_count);
  EXPECT_EQ(b.summary.staged, b.summary.global_elements_moved > 0);
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.summary.global_elements_moved, b.summary.global_elements_moved);
  EXPECT_EQ(a.summary.checksum, b.summary.checksum);
  EXPECT_TRUE(b.summary.verified);

  // Odd element size in large units too.
  std::vector<Triple> t;
  for (i64 i = from.begin(rank); i < from.end(rank); ++i) t.push_back(triple_of(i));
  o.max_mpi_count = P + 7;
  auto c = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, t, o);
  for (i64 i = to.begin(rank); i < to.end(rank); ++i)
    EXPECT_TRUE(c.data[static_cast<std::size_t>(i - to.begin(rank))] == triple_of(i));
}

TEST(Redistribute1D, IntoReusesTheOutputAndRefusesAliasing) {
  const int P = size_of(), rank = rank_of();
  const auto from = BlockDistribution::uniform(3000, P);
  std::vector<i64> counts(static_cast<std::size_t>(P), 0);
  counts[0] = 3000;  // everything to rank 0
  const auto to = BlockDistribution::from_counts(counts);
  std::vector<double> local;
  for (i64 i = from.begin(rank); i < from.end(rank); ++i) local.push_back(value_of(i));
  std::vector<double> out;
  out.reserve(3000);
  const double* storage = out.data();
  auto s = isocost::mpi::redistribute_into(MPI_COMM_WORLD, from, to, local, out);
  EXPECT_EQ(out.data(), storage);  // capacity reused
  ASSERT_EQ(static_cast<i64>(out.size()), to.count(rank));
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], value_of(static_cast<i64>(i)));
  EXPECT_EQ(s.global_elements_moved, 3000 - from.count(0));

  // Back, with the output aliasing the input on rank 0 only (which holds it all).
  std::vector<double> back;
  std::vector<double>& target = rank == 0 ? out : back;
  const auto msg =
      error_of([&] { isocost::mpi::redistribute_into(MPI_COMM_WORLD, to, from, out, target); });
  expect_agreed_error(msg, "rank 0: the output vector shares storage with the local data");
}

// ---------------------------------------------------------------------------
// Boxes

TEST(BoxDistribution, ValidatesTilings) {
  BoxDistribution d;
  d.cells = {4, 3, 1};
  d.boxes = {{{0, 0, 0}, {2, 3, 1}},
             {{2, 0, 0}, {4, 2, 1}},
             {{2, 2, 0}, {4, 3, 1}},
             {{0, 0, 0}, {0, 0, 0}}};
  std::string e;
  EXPECT_TRUE(d.is_valid(&e)) << e;
  EXPECT_EQ(d.size(), 12);
  EXPECT_EQ(d.count(0), 6);
  EXPECT_EQ(d.count(3), 0);

  auto overlap = d;
  overlap.boxes[2].lo[1] = 1;  // overlaps rank 1's box in one row
  overlap.boxes[1].hi[1] = 3;
  EXPECT_FALSE(overlap.is_valid(&e));
  expect_has(e, "boxes[1]");
  expect_has(e, "boxes[2]");
  expect_has(e, "overlap in [2, 4) x [1, 3) x [0, 1)");

  auto gap = d;
  gap.boxes[2].hi[0] = 3;
  EXPECT_FALSE(gap.is_valid(&e));
  expect_has(e, "cover 11 of the grid's 12 cells");

  // Same volume, but one cell twice and one never: only the corners can tell.
  auto shifted = d;
  shifted.boxes[2] = {{1, 2, 0}, {3, 3, 1}};
  shifted.boxes[0] = {{0, 0, 0}, {2, 3, 1}};
  EXPECT_FALSE(shifted.is_valid(&e));
  expect_has(e, "overlap");

  auto outside = d;
  outside.boxes[1].hi[0] = 5;
  EXPECT_FALSE(outside.is_valid(&e));
  expect_has(e, "boxes[1] = [2, 5) x [0, 2) x [0, 1): along x expected 0 <= lo <= hi <= 4");

  auto inverted = d;
  inverted.boxes[3] = {{1, 0, 0}, {0, 0, 0}};
  EXPECT_FALSE(inverted.is_valid(&e));
  expect_has(e, "boxes[3]");

  auto flat = d;
  flat.cells[2] = 0;
  EXPECT_FALSE(flat.is_valid(&e));
  expect_has(e, "cells along z = 0, expected >= 1");

  // 3-D: 2x2x2 octants tile; dropping one leaves a gap of 8 cells.
  BoxDistribution c;
  c.cells = {4, 4, 4};
  for (int m = 0; m < 8; ++m) {
    CellBox b;
    for (std::size_t a = 0; a < 3; ++a) {
      b.lo[a] = ((m >> a) & 1) * 2;
      b.hi[a] = b.lo[a] + 2;
    }
    c.boxes.push_back(b);
  }
  EXPECT_TRUE(c.is_valid(&e)) << e;
  c.boxes[5] = {};
  EXPECT_FALSE(c.is_valid(&e));
  expect_has(e, "cover 56 of the grid's 64 cells");
  EXPECT_EQ(isocost::mpi::intersect({{0, 0, 0}, {2, 2, 2}}, {{1, 1, 1}, {3, 3, 3}}),
            (CellBox{{1, 1, 1}, {2, 2, 2}}));
  EXPECT_TRUE(isocost::mpi::intersect({{0, 0, 0}, {1, 1, 1}}, {{1, 0, 0}, {2, 1, 1}}).empty());
}

// Sorted cuts of [0, n) into k parts (empty parts possible).
std::vector<i64> random_cuts(std::mt19937_64& rng, i64 n, int k) {
  std::vector<i64> c{0, n};
  std::uniform_int_distribution<i64> d(0, n);
  for (int j = 1; j < k; ++j) c.push_back(d(rng));
  std::sort(c.begin(), c.end());
  return c;
}

// A random composition of m into k >= 1 positive parts.
std::vector<int> random_composition(std::mt19937_64& rng, int m, int k) {
  std::vector<int> parts(static_cast<std::size_t>(k), 1);
  for (int j = k; j < m; ++j) ++parts[rng() % static_cast<std::size_t>(k)];
  return parts;
}

// Jagged (2-D) or recursive x → y → z (3-D) random cuts; ranks shuffled.
BoxDistribution random_boxes(std::mt19937_64& rng, std::array<i64, 3> cells, int P, int dims) {
  BoxDistribution d;
  d.cells = cells;
  const int cx = 1 + static_cast<int>(rng() % static_cast<unsigned>(P));
  const auto xs = random_composition(rng, P, cx);
  const auto xc = random_cuts(rng, cells[0], cx);
  for (int a = 0; a < cx; ++a) {
    const int m = xs[static_cast<std::size_t>(a)];
    const i64 x0 = xc[static_cast<std::size_t>(a)], x1 = xc[static_cast<std::size_t>(a) + 1];
    if (dims == 2) {
      const auto yc = random_cuts(rng, cells[1], m);
      for (int b = 0; b < m; ++b)
        d.boxes.push_back({{x0, yc[static_cast<std::size_t>(b)], 0},
                           {x1, yc[static_cast<std::size_t>(b) + 1], 1}});
      continue;
    }
    const int cy = 1 + static_cast<int>(rng() % static_cast<unsigned>(m));
    const auto ys = random_composition(rng, m, cy);
    const auto yc = random_cuts(rng, cells[1], cy);
    for (int b = 0; b < cy; ++b) {
      const int mz = ys[static_cast<std::size_t>(b)];
      const auto zc = random_cuts(rng, cells[2], mz);
      for (int c = 0; c < mz; ++c)
        d.boxes.push_back(
            {{x0, yc[static_cast<std::size_t>(b)], zc[static_cast<std::size_t>(c)]},
             {x1, yc[static_cast<std::size_t>(b) + 1], zc[static_cast<std::size_t>(c) + 1]}});
    }
  }
  std::shuffle(d.boxes.begin(), d.boxes.end(), rng);
  return d;
}

// Owner of every cell (global index i + nx·(j + ny·k)), by brute force.
std::vector<int> cell_owners(const BoxDistribution& d) {
  std::vector<int> w(static_cast<std::size_t>(d.cells[0] * d.cells[1] * d.cells[2]), -1);
  for (std::size_t r = 0; r < d.boxes.size(); ++r) {
    const auto& b = d.boxes[r];
    for (i64 k = b.lo[2]; k < b.hi[2]; ++k)
      for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
        for (i64 i = b.lo[0]; i < b.hi[0]; ++i)
          w[static_cast<std::size_t>(i + d.cells[0] * (j + d.cells[1] * k))] = static_cast<int>(r);
  }
  return w;
}

// This rank's local array under `d`, x fastest, values f(global index).
template <class T, class F>
std::vector<T> box_values(const BoxDistribution& d, int rank, F value) {
  std::vector<T> v;
  const auto& b = d.boxes[static_cast<std::size_t>(rank)];
  for (i64 k = b.lo[2]; k < b.hi[2]; ++k)
    for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
      for (i64 i = b.lo[0]; i < b.hi[0]; ++i)
        v.push_back(value(i + d.cells[0] * (j + d.cells[1] * k)));
  return v;
}

template <class T, class F>
void check_boxes(const BoxDistribution& from, const BoxDistribution& to, F value,
                 const isocost::mpi::RedistributeOptions& o, const std::string& label) {
  SCOPED_TRACE(label);
  const int rank = rank_of();
  std::string e;
  ASSERT_TRUE(from.is_valid(&e)) << e;  // the generator's tilings are valid on every rank
  ASSERT_TRUE(to.is_valid(&e)) << e;
  const auto local = box_values<T>(from, rank, value);
  auto [data, s] = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local, o);
  const auto expected = box_values<T>(to, rank, value);
  ASSERT_EQ(data.size(), expected.size());
  for (std::size_t i = 0; i < data.size(); ++i)
    ASSERT_TRUE(data[i] == expected[i]) << "local cell " << i << " on rank " << rank;

  const auto wf = cell_owners(from), wt = cell_owners(to);
  i64 moved = 0, kept = 0, sent = 0, received = 0;
  for (std::size_t i = 0; i < wf.size(); ++i) {
    ASSERT_GE(wf[i], 0);
    ASSERT_GE(wt[i], 0);
    moved += wf[i] != wt[i];
    kept += wf[i] == rank && wt[i] == rank;
    sent += wf[i] == rank && wt[i] != rank;
    received += wt[i] == rank && wf[i] != rank;
  }
  EXPECT_EQ(s.global_elements_moved, moved);
  EXPECT_EQ(s.elements_kept, kept);
  EXPECT_EQ(s.elements_sent, sent);
  EXPECT_EQ(s.elements_received, received);
  EXPECT_EQ(s.global_elements, static_cast<i64>(wf.size()));
  EXPECT_EQ(s.verified, o.verify);
}

TEST(RedistributeBoxes, Random2DJaggedDistributions) {
  const int P = size_of();
  std::mt19937_64 rng(777 + static_cast<unsigned>(P));
  isocost::mpi::RedistributeOptions o;
  o.verify = true;
  for (int trial = 0; trial < 25; ++trial) {
    const std::array<i64, 3> cells{1 + static_cast<i64>(rng() % 40),
                                   1 + static_cast<i64>(rng() % 30), 1};
    const auto from = random_boxes(rng, cells, P, 2), to = random_boxes(rng, cells, P, 2);
    const std::string label = "2-D trial " + std::to_string(trial);
    check_boxes<double>(from, to, value_of, o, label);
    check_boxes<Triple>(from, to, triple_of, o, label + " (12-byte struct)");
  }
  // Large units on a 2-D grid.
  o.max_mpi_count = P + 5;
  const auto from = random_boxes(rng, {37, 23, 1}, P, 2), to = random_boxes(rng, {37, 23, 1}, P, 2);
  check_boxes<double>(from, to, value_of, o, "2-D, staged in large units");
}

TEST(RedistributeBoxes, Random3DDistributions) {
  const int P = size_of();
  std::mt19937_64 rng(4242 + static_cast<unsigned>(P));
  isocost::mpi::RedistributeOptions o;
  o.verify = true;
  for (int trial = 0; trial < 20; ++trial) {
    const std::array<i64, 3> cells{1 + static_cast<i64>(rng() % 13),
                                   1 + static_cast<i64>(rng() % 11),
                                   1 + static_cast<i64>(rng() % 9)};
    const auto from = random_boxes(rng, cells, P, 3), to = random_boxes(rng, cells, P, 3);
    check_boxes<double>(from, to, value_of, o, "3-D trial " + std::to_string(trial));
  }
  o.max_mpi_count = P + 3;
  const auto from = random_boxes(rng, {13, 11, 7}, P, 3), to = random_boxes(rng, {13, 11, 7}, P, 3);
  check_boxes<Triple>(from, to, triple_of, o, "3-D, staged in large units");
  // Identical: no Alltoallv, all kept.
  check_boxes<double>(from, from, value_of, o, "3-D identical");
}

// Slabs along z: every piece is whole planes, contiguous in both arrays, so
// nothing is staged; along x the pieces are short rows and are packed.
TEST(RedistributeBoxes, ContiguousPiecesGoDirectRowsAreStaged) {
  const int P = size_of(), rank = rank_of();
  const i64 n = 12;
  for (int axis : {2, 0}) {
    BoxDistribution from, to;
    from.cells = to.cells = {n, n, n};
    const auto f = BlockDistribution::uniform(n, P);
    auto t = f;
    if (P > 1) t.offsets[1] += 1;
    for (int r = 0; r < P; ++r) {
      CellBox a{{0, 0, 0}, {n, n, n}}, b = a;
      a.lo[static_cast<std::size_t>(axis)] = f.begin(r);
      a.hi[static_cast<std::size_t>(axis)] = f.end(r);
      b.lo[static_cast<std::size_t>(axis)] = t.begin(r);
      b.hi[static_cast<std::size_t>(axis)] = t.end(r);
      from.boxes.push_back(a);
      to.boxes.push_back(b);
    }
    const auto local = box_values<double>(from, rank, value_of);
    auto [data, s] = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local);
    EXPECT_EQ(data, box_values<double>(to, rank, value_of)) << "axis " << axis;
    const bool involved = s.elements_sent > 0 || s.elements_received > 0;
    EXPECT_EQ(s.staged, axis == 0 && involved) << "axis " << axis;
    EXPECT_EQ(s.global_elements_moved, P > 1 ? n * n : 0);
  }
}

TEST(RedistributeBoxes, FromADecompositionOfAWeightedGrid) {
  const int P = size_of();
  const i64 nx = 48, ny = 32;
  std::vector<double> w(static_cast<std::size_t>(nx * ny));
  for (i64 j = 0; j < ny; ++j)
    for (i64 i = 0; i < nx; ++i)
      w[static_cast<std::size_t>(i + nx * j)] = 1.0 + static_cast<double>((i * i + 3 * j) % 17);
  isocost::GridShape shape;
  shape.dims = 2;
  shape.cells = {nx, ny, 1};
  const auto rho = isocost::grid_density(w, shape);
  const auto dec = isocost::choose_grid(rho, isocost::Speeds::uniform(P));
  const auto to = BoxDistribution::from_decomposition(dec);
  std::string e;
  ASSERT_TRUE(to.is_valid(&e)) << e;
  EXPECT_EQ(to.cells, (std::array<i64, 3>{nx, ny, 1}));
  // From row slabs along y.
  BoxDistribution from;
  from.cells = to.cells;
  const auto rows = BlockDistribution::uniform(ny, P);
  for (int r = 0; r < P; ++r) from.boxes.push_back({{0, rows.begin(r), 0}, {nx, rows.end(r), 1}});
  isocost::mpi::RedistributeOptions o;
  o.verify = true;
  check_boxes<double>(from, to, value_of, o, "rows -> choose_grid");
  EXPECT_THROW(BoxDistribution::from_decomposition(isocost::Decomposition{}), isocost::Error);
}

// ---------------------------------------------------------------------------
// Bad input: the same Error on every rank, nothing moved

TEST(RedistributeErrors, BadInputOnOneRankThrowsTheSameErrorEverywhere) {
  const int P = size_of(), rank = rank_of(), last = P - 1;
  const auto from = BlockDistribution::uniform(100, P);
  auto to = BlockDistribution::uniform(100, P);
  if (P > 1) to.offsets[1] += 5;
  std::vector<double> local(static_cast<std::size_t>(from.count(rank)), 1.0);
  auto run = [&](const BlockDistribution& f, const BlockDistribution& t,
                 const std::vector<double>& l, isocost::mpi::RedistributeOptions o = {}) {
    return error_of([&] { isocost::mpi::redistribute(MPI_COMM_WORLD, f, t, l, o); });
  };

  // Non-monotone offsets on the last rank only.
  auto bad = to;
  if (rank == last) bad.offsets = {0};
  std::string msg = run(from, bad, local);
  expect_agreed_error(msg, "rank " + std::to_string(last) + ": to: 1 offsets, expected P + 1 >= 2");
  if (rank == last && P > 1) {
    bad = to;
    std::swap(bad.offsets[0], bad.offsets[1]);
  }
  if (P > 1) {
    msg = run(from, bad, local);
    expect_agreed_error(msg, "expected 0");
  }

  // Local size wrong on the last rank.
  auto wrong = local;
  if (rank == last) wrong.push_back(2.0);
  msg = run(from, to, wrong);
  expect_agreed_error(msg, "rank " + std::to_string(last) + ": local data has " +
                               std::to_string(from.count(last) + 1) + " elements, expected " +
                               std::to_string(from.count(last)));

  // Different (valid) distributions on different ranks.
  if (P > 1) {
    auto other = to;
    if (rank == last) other = BlockDistribution::uniform(100, P);
    msg = run(from, other, local);
    expect_agreed_error(msg,
                        "rank " + std::to_string(last) + ": to distribution not equal to rank 0's");
  }

  // Not covering the same domain; not one part per rank.
  msg = run(from, BlockDistribution::uniform(90, P), local);
  expect_agreed_error(msg, "from covers 100 elements and to covers 90, expected the same N");
  msg = run(from, BlockDistribution::uniform(100, P + 1), local);
  expect_agreed_error(msg,
                      "to has " + std::to_string(P + 1) + " parts, expected " + std::to_string(P));

  // Options: invalid, or different on one rank.
  isocost::mpi::RedistributeOptions o;
  o.max_mpi_count = 1;
  msg = run(from, to, local, o);
  expect_agreed_error(msg, "options.max_mpi_count = 1");
  if (P > 1) {
    isocost::mpi::RedistributeOptions v;
    v.verify = rank == last;
    msg = run(from, to, local, v);
    expect_agreed_error(msg, "RedistributeOptions/element size not equal to rank 0's");
  }

  // Boxes: an overlap on every rank, a gap on one rank, wrong local size.
  BoxDistribution bf;
  bf.cells = {10, 4, 1};
  for (int r = 0; r < P; ++r) {
    const auto cols = BlockDistribution::uniform(10, P);
    bf.boxes.push_back({{cols.begin(r), 0, 0}, {cols.end(r), 4, 1}});
  }
  const auto cells = box_values<double>(bf, rank, value_of);
  auto bo = bf;
  bo.boxes[0].hi[0] = std::min<i64>(bo.boxes[0].hi[0] + 1, 10);  // overlaps rank 1 (P > 1)
  if (P == 1) bo.boxes[0].hi[0] = 9;                             // a gap instead
  msg = error_of([&] { isocost::mpi::redistribute(MPI_COMM_WORLD, bf, bo, cells); });
  expect_agreed_error(msg, P > 1 ? "overlap" : "cover 36 of the grid's 40 cells");
  if (P > 1)
    expect_has(msg, (P == 2 ? std::string("ranks 0, 1") : "ranks 0-" + std::to_string(last)) +
                        ": to: boxes[0]");
  auto bg = bf;
  if (rank == last) bg.boxes[static_cast<std::size_t>(last)].hi[1] = 3;
  msg = error_of([&] { isocost::mpi::redistribute(MPI_COMM_WORLD, bg, bf, cells); });
  expect_agreed_error(msg, "rank " + std::to_string(last) + ": from: the boxes cover");
  auto short_cells = cells;
  if (rank == 0) short_cells.pop_back();
  msg = error_of([&] { isocost::mpi::redistribute(MPI_COMM_WORLD, bf, bf, short_cells); });
  expect_agreed_error(msg, "rank 0: local data has");
  auto big = bf;
  big.cells[1] = 5;
  big.boxes[0].hi[1] = 5;
  msg = error_of([&] { isocost::mpi::redistribute(MPI_COMM_WORLD, bf, big, cells); });
  expect_agreed_error(msg, P > 1 ? "to: " : "expected the same grid");
}

// ---------------------------------------------------------------------------
// Tasks with pack/unpack/free callbacks

std::string payload_of(i64 id) {
  const std::size_t n = id == 5 ? 100000 : static_cast<std::size_t>((id * 37) % 200);
  std::string s(n, '\0');
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>('a' + (id * 131 + static_cast<i64>(k)) % 26);
  return s;
}

void run_callback_migration(const isocost::mpi::MigrateOptions& options, const std::string& label) {
  SCOPED_TRACE(label);
  const int P = size_of(), rank = rank_of();
  const i64 M = 10 * P + 3;
  Store store;
  for (i64 id = 0; id < M; ++id)
    if (id % P == rank) store.items[id] = payload_of(id);

  // Random moves, the same on every rank; then failures injected for chosen ids.
  std::mt19937_64 rng(31 + static_cast<unsigned>(P));
  std::vector<isocost::TaskMove> moves;
  for (i64 id = 0; id < M; ++id) {
    const int from = static_cast<int>(id % P);
    if (P > 1 && rng() % 3 != 0) {
      int to = static_cast<int>(rng() % static_cast<unsigned>(P - 1));
      if (to >= from) ++to;
      moves.push_back({id, from, to, 1.0});
    } else if (rng() % 5 == 0) {
      moves.push_back({id, from, from, 1.0});  // a no-op
    }
  }
  std::map<i64, MigrationStage> injected;  // id -> stage, only moves with from != to
  std::vector<const isocost::TaskMove*> real;
  for (const auto& m : moves)
    if (m.from != m.to) real.push_back(&m);
  const MigrationStage stages[] = {MigrationStage::unpack, MigrationStage::unpack,
                                   MigrationStage::size, MigrationStage::pack};
  for (std::size_t k = 0; k < real.size() && k < 4; ++k) {
    const auto& m = *real[2 * k < real.size() ? 2 * k : k];
    if (injected.count(m.id)) continue;
    injected[m.id] = stages[k];
    if (k == 0 && m.to == rank) store.unpack_false.insert(m.id);
    if (k == 1 && m.to == rank) store.unpack_throws.insert(m.id);
    if (k == 2 && m.from == rank) store.size_throws.insert(m.id);
    if (k == 3 && m.from == rank) store.pack_throws.insert(m.id);
  }

  const auto held = store.ids();
  const auto s = isocost::mpi::migrate(MPI_COMM_WORLD, held, moves, store.callbacks(), options);
  const auto where = gather_holdings(store.ids());
  const auto done = isocost::mpi::completed_moves(moves, s.failed);
  i64 bytes_done = 0;
  for (const auto& m : done)
    if (m.from == rank) bytes_done += static_cast<i64>(payload_of(m.id).size());
  const i64 global_bytes_done = sum_of(bytes_done);  // the last collective of the case

  // Failures: exactly the injected ones, sorted by id, on every rank.
  std::vector<isocost::mpi::MigrationFailure> expected_failed;
  for (const auto& m : moves)
    if (injected.count(m.id)) expected_failed.push_back({m.id, m.from, m.to, injected[m.id]});
  std::sort(expected_failed.begin(), expected_failed.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  ASSERT_EQ(s.failed.size(), expected_failed.size());
  for (std::size_t i = 0; i < s.failed.size(); ++i) {
    EXPECT_EQ(s.failed[i].id, expected_failed[i].id);
    EXPECT_EQ(s.failed[i].from, expected_failed[i].from);
    EXPECT_EQ(s.failed[i].to, expected_failed[i].to);
    EXPECT_EQ(to_string(s.failed[i].stage), to_string(expected_failed[i].stage))
        << "id " << s.failed[i].id;
  }

  // Nothing lost, nothing duplicated; each element where the completed moves say.
  std::map<i64, int> final_owner;
  for (i64 id = 0; id < M; ++id) final_owner[id] = static_cast<int>(id % P);
  for (const auto& m : done) final_owner[m.id] = m.to;
  ASSERT_EQ(static_cast<i64>(where.size()), M);
  for (const auto& [id, ranks] : where) {
    ASSERT_EQ(ranks.size(), 1u) << "id " << id << " is held by " << ranks.size() << " ranks";
    EXPECT_EQ(ranks[0], final_owner[id]) << "id " << id;
  }
  for (const auto& [id, payload] : store.items) EXPECT_EQ(payload, payload_of(id)) << "id " << id;
  EXPECT_FALSE(store.duplicate_unpack);

  // Counts: every rank's share and the global totals.
  i64 out_moves = 0, in_done = 0, out_done = 0;
  for (const auto& m : moves) out_moves += m.from == rank && m.to != rank;
  for (const auto& m : done) {
    in_done += m.to == rank;
    out_done += m.from == rank;
  }
  EXPECT_EQ(s.elements_sent, out_done);
  EXPECT_EQ(s.elements_received, in_done);
  EXPECT_EQ(s.bytes_sent, bytes_done);
  EXPECT_EQ(store.free_calls, out_done);  // freed only after a confirmed unpack
  EXPECT_EQ(store.size_calls, out_moves);
  EXPECT_EQ(s.global_moved, static_cast<i64>(done.size()));
  EXPECT_EQ(s.global_moves, static_cast<i64>(real.size()));
  EXPECT_EQ(s.global_bytes_moved, global_bytes_done);
  EXPECT_EQ(s.verified, options.verify);
  EXPECT_TRUE(s.free_errors.empty());
  if (P > 1) {
    EXPECT_FALSE(s.failed.empty());
  }
  EXPECT_FALSE(s.brief_report().empty());
}

TEST(Migrate, VariableSizeElementsWithInjectedFailuresStayWithTheirOwner) {
  run_callback_migration({}, "default options");
  isocost::mpi::MigrateOptions o;
  o.verify = true;
  run_callback_migration(o, "verified");
  o.max_mpi_count = size_of() + 9;  // large units on small data
  run_callback_migration(o, "verified, large units");
}

TEST(Migrate, LargeUnitsAreUsedWhenCountsAreLimited) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  Store store;
  for (i64 id = 0; id < 200; ++id)
    if (id % P == rank) store.items[id] = payload_of(id);
  std::vector<isocost::TaskMove> moves;
  for (i64 id = 0; id < 200; ++id)
    moves.push_back({id, static_cast<int>(id % P), static_cast<int>((id + 1) % P), 0.0});
  isocost::mpi::MigrateOptions o;
  o.max_mpi_count = P + 2;
  o.verify = true;
  const auto s = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), moves, store.callbacks(), o);
  EXPECT_GT(s.unit_bytes, 16);
  EXPECT_TRUE(s.failed.empty());
  EXPECT_EQ(s.global_moved, 200);
  for (const auto& [id, p] : store.items) {
    EXPECT_EQ((id + 1) % P, rank);
    EXPECT_EQ(p, payload_of(id));
  }
  EXPECT_EQ(sum_of(static_cast<i64>(store.items.size())), 200);
}

// Watts §3.2.6: a task that fails to move is marked immobile and the
// balancing restarts; the re-plan never selects it, and after the second
// migration every task is where the plans say.
TEST(Migrate, FailedTasksAreMarkedImmobileAndTheReplanAvoidsThem) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  const auto graph = isocost::mesh_graph({P}, false);
  // Every task starts on rank 0: heavily unbalanced.
  std::vector<std::vector<isocost::Task>> tasks(static_cast<std::size_t>(P));
  for (i64 id = 0; id < 12 * P; ++id)
    tasks[0].push_back({id, 1.0 + static_cast<double>(id % 5), false});
  Store store;
  if (rank == 0)
    for (const auto& t : tasks[0]) store.items[t.id] = payload_of(t.id);

  auto plan = [&] {
    const auto d = isocost::diffuse(graph, isocost::node_loads(tasks));
    return isocost::select_tasks(graph, tasks, d.transfers).moves;
  };
  const auto first = plan();
  ASSERT_FALSE(first.empty());
  const i64 victim = first.front().id;  // its receiver runs out of memory
  if (first.front().to == rank) store.unpack_throws.insert(victim);
  const auto s1 = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), first, store.callbacks());
  ASSERT_EQ(s1.failed.size(), 1u);
  EXPECT_EQ(s1.failed[0].id, victim);
  EXPECT_EQ(s1.failed[0].from, 0);
  EXPECT_EQ(s1.failed[0].stage, MigrationStage::unpack);
  if (rank == 0) {
    EXPECT_TRUE(store.items.count(victim));  // still with its owner
  }

  tasks = isocost::apply_moves(tasks, isocost::mpi::completed_moves(first, s1.failed));
  std::size_t marked = 0;
  for (auto& list : tasks) marked += isocost::mpi::mark_immobile(list, s1.failed);
  EXPECT_EQ(marked, 1u);
  const auto second = plan();
  for (const auto& m : second) EXPECT_NE(m.id, victim) << "an immobile task was selected";
  store.unpack_throws.clear();
  const auto s2 = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), second, store.callbacks());
  EXPECT_TRUE(s2.failed.empty());
  tasks = isocost::apply_moves(tasks, isocost::mpi::completed_moves(second, s2.failed));

  // Holdings match the task lists, payloads intact.
  const auto where = gather_holdings(store.ids());
  ASSERT_EQ(static_cast<i64>(where.size()), 12 * P);
  for (int r = 0; r < P; ++r)
    for (const auto& t : tasks[static_cast<std::size_t>(r)]) {
      ASSERT_EQ(where.at(t.id).size(), 1u);
      EXPECT_EQ(where.at(t.id)[0], r) << "task " << t.id;
    }
  for (const auto& [id, p] : store.items) EXPECT_EQ(p, payload_of(id));
}

TEST(MigrateErrors, BadInputOnOneRankThrowsTheSameErrorAndCallsNoCallback) {
  const int P = size_of(), rank = rank_of(), last = P - 1;
  Store store;
  for (i64 id = 0; id < 4 * P; ++id)
    if (id % P == rank) store.items[id] = payload_of(id);
  std::vector<isocost::TaskMove> moves;
  for (i64 id = 0; id < 4 * P; ++id)
    moves.push_back({id, static_cast<int>(id % P), static_cast<int>((id + 1) % P), 0.0});
  auto run = [&](std::vector<i64> held, const std::vector<isocost::TaskMove>& mv,
                 isocost::mpi::MigrationCallbacks cb, isocost::mpi::MigrateOptions o = {}) {
    return error_of([&] { isocost::mpi::migrate(MPI_COMM_WORLD, held, mv, cb, o); });
  };
  const auto ids = store.ids();

  // A move naming an id its `from` rank (the last) does not hold.
  auto held = ids;
  if (rank == last) held.erase(held.begin());
  std::string msg = run(held, moves, store.callbacks());
  expect_agreed_error(msg, "rank " + std::to_string(last) + ": moves[" + std::to_string(last) +
                               "] moves id " + std::to_string(last) + " from rank " +
                               std::to_string(last) + ", which does not hold it");
  // A rank out of range (on every rank).
  auto out_of_range = moves;
  out_of_range[0].to = P;
  msg = run(ids, out_of_range, store.callbacks());
  expect_agreed_error(msg, "names rank " + std::to_string(P) + ", expected a rank in [0, " +
                               std::to_string(P) + ")");
  // An id moved twice.
  auto twice = moves;
  twice.push_back(moves[0]);
  msg = run(ids, twice, store.callbacks());
  expect_agreed_error(msg, "both move id 0");
  // Duplicate held ids on the last rank.
  held = ids;
  if (rank == last) held.push_back(held.front());
  msg = run(held, moves, store.callbacks());
  expect_agreed_error(
      msg, "rank " + std::to_string(last) + ": held lists id " + std::to_string(last) + " twice");
  // An empty callback on the last rank.
  auto cb = store.callbacks();
  if (rank == last) cb.free = nullptr;
  msg = run(ids, moves, cb);
  expect_agreed_error(msg, "empty callbacks: free");
  // Different moves on the last rank.
  if (P > 1) {
    auto other = moves;
    if (rank == last) std::swap(other[0], other[1]);
    msg = run(ids, other, store.callbacks());
    expect_agreed_error(
        msg, "rank " + std::to_string(last) + ": moves/MigrateOptions not equal to rank 0's");
  }
  isocost::mpi::MigrateOptions o;
  o.max_mpi_count = P;
  msg = run(ids, moves, store.callbacks(), o);
  expect_agreed_error(msg,
                      "options.max_mpi_count = " + std::to_string(P) +
                          (P == 1 ? ", expected an integer in [2, " : ", expected more than P"));

  // No callback ran, nothing moved.
  EXPECT_EQ(store.calls(), 0);
  EXPECT_EQ(store.ids(), ids);
}

}  // namespace
