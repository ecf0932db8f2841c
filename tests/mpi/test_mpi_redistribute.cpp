// isocost/mpi/redistribute.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 8).
// Random distributions are drawn from seeded generators, the same on every
// rank. Expected values (owners, moved volumes) are computed here
// independently of the library, by brute force over every element or cell.
// Every test is collective; comparisons come after the last collective of a
// case where a failed expectation could otherwise leave a rank behind (a
// deadlock would show up as the CTest timeout).
#include "isocost/mpi/redistribute.hpp"

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

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::expect_has;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using i64 = std::int64_t;

using isocost::mpi::BlockDistribution;
using isocost::mpi::BoxDistribution;
using isocost::mpi::CellBox;

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
  const auto dec = isocost::choose_process_grid(rho, isocost::Speeds::uniform(P));
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
  check_boxes<double>(from, to, value_of, o, "rows -> choose_process_grid");
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
  expect_agreed_error(
      msg, "rank " + std::to_string(last) + ": to: offsets: expected P + 1 >= 2 of them, got 1");
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
  expect_agreed_error(msg, "options.max_mpi_count: expected an integer in [2, 2147483647], got 1");
  if (P > 1) {
    isocost::mpi::RedistributeOptions v;
    v.verify = rank == last;
    msg = run(from, to, local, v);
    expect_agreed_error(msg, "rank " + std::to_string(last) +
                                 ": options differ from rank 0's: verify true (rank 0: false)");
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

}  // namespace
