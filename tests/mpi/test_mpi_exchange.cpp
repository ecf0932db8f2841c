// isocost/mpi/exchange.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 5, 8):
// particles with random keys go to the ranks that own them, on 1-D blocks and
// on boxes of a grid. Conservation is checked independently of the library:
// the global count, the sum of the ids and of their squares (every id exactly
// once), and a checksum of every particle's id and payload, before and after.
#include "isocost/mpi/exchange.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::BlockDistribution;
using isocost::mpi::BoxDistribution;
using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using isocost::testing::mix64;

struct Payload {  // 24 bytes of state per particle
  double x, v;
  std::int32_t species, flags;
};

// Collective: (count, Σ id, Σ id², Σ checksum) over all ranks.
struct Totals {
  u64 count = 0, ids = 0, squares = 0, checksum = 0;
  bool operator==(const Totals&) const = default;
};
Totals totals(const std::vector<i64>& ids, const std::vector<double>& w,
              const std::vector<Payload>& p) {
  u64 mine[4] = {ids.size(), 0, 0, 0}, all[4] = {};
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const auto id = static_cast<u64>(ids[k]);
    mine[1] += id;
    mine[2] += id * id;
    u64 h = mix64(id);
    h = mix64(h ^ std::bit_cast<u64>(w[k]));
    h = mix64(h ^ std::bit_cast<u64>(p[k].x) ^ (std::bit_cast<u64>(p[k].v) << 1));
    h = mix64(h ^ static_cast<u64>(p[k].species) ^ (static_cast<u64>(p[k].flags) << 32));
    mine[3] += h;
  }
  MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return {all[0], all[1], all[2], all[3]};
}

// This rank's particles: a varying number, keys anywhere in [0, cells).
void make_particles(i64 cells, std::vector<i64>& keys, std::vector<i64>& ids,
                    std::vector<double>& w, std::vector<Payload>& p) {
  const int rank = rank_of();
  std::mt19937_64 rng(1000 + rank);
  const int n = 50 + 37 * rank;
  std::uniform_int_distribution<i64> key(0, cells - 1);
  for (int k = 0; k < n; ++k) {
    const i64 id = 1'000'000LL * rank + k;
    keys.push_back(key(rng));
    ids.push_back(id);
    w.push_back(0.25 * static_cast<double>(id));
    p.push_back({double(id) * 1.5, -double(k), rank, k});
  }
}

TEST(Exchange, ParticlesReachTheOwnerOfTheirBlockAndNothingIsLost) {
  const int P = size_of(), rank = rank_of();
  const i64 N = 37 * P + 3;
  // Uneven blocks, one of them empty when there are enough ranks.
  std::vector<i64> counts(static_cast<std::size_t>(P), 0);
  for (int r = 0; r < P; ++r) counts[static_cast<std::size_t>(r)] = (r == 1 && P > 2) ? 0 : N / P;
  counts.back() += N - [&] {
    i64 s = 0;
    for (i64 c : counts) s += c;
    return s;
  }();
  const auto d = BlockDistribution::from_counts(counts);
  std::vector<i64> keys, ids;
  std::vector<double> w;
  std::vector<Payload> p;
  make_particles(N, keys, ids, w, p);
  const Totals before = totals(ids, w, p);
  const auto s = isocost::mpi::exchange(MPI_COMM_WORLD, d, keys, ids, w, p);
  const Totals after = totals(ids, w, p);
  EXPECT_EQ(after, before);
  ASSERT_EQ(keys.size(), ids.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    EXPECT_EQ(d.owner(keys[k]), rank) << "key " << keys[k];
    // Every array still describes the same particle.
    EXPECT_EQ(w[k], 0.25 * static_cast<double>(ids[k]));
    EXPECT_EQ(p[k].x, double(ids[k]) * 1.5);
  }
  EXPECT_EQ(s.global_elements, static_cast<i64>(before.count));
  EXPECT_EQ(s.elements_kept + s.elements_received, static_cast<i64>(keys.size()));
  EXPECT_EQ(s.record_size, sizeof(i64) * 2 + sizeof(double) + sizeof(Payload));
  // A second exchange moves nothing: every particle is home.
  const auto again = isocost::mpi::exchange(MPI_COMM_WORLD, d, keys, ids, w, p);
  EXPECT_EQ(again.global_moved, 0);
  EXPECT_EQ(totals(ids, w, p), before);
}

// A 10 x 7 x 4 grid in equal boxes over P ranks (2 x P/2 when P is even).
BoxDistribution boxes_of_grid(int P) {
  const isocost::GridShape shape{3, {10, 7, 4}};
  const int px = P % 2 == 0 ? 2 : 1;
  const int py = P / px;
  return BoxDistribution::from_decomposition(isocost::decompose(
      isocost::grid_density(std::vector<double>(280, 1.0), shape),
      px > 1 ? isocost::ProcessGrid{{px, py}, {0, 1}} : isocost::ProcessGrid{{py}, {1}},
      isocost::Speeds::uniform(P)));
}

TEST(Exchange, ParticlesReachTheOwnerOfTheirCellOnBoxes) {
  const int P = size_of(), rank = rank_of();
  const auto boxes = boxes_of_grid(P);
  const isocost::mpi::CellOwners owners(boxes);
  std::vector<i64> keys, ids;
  std::vector<double> w;
  std::vector<Payload> p;
  make_particles(280, keys, ids, w, p);
  const Totals before = totals(ids, w, p);
  isocost::mpi::exchange(MPI_COMM_WORLD, boxes, keys, ids, w, p);
  EXPECT_EQ(totals(ids, w, p), before);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const i64 c = keys[k], i = c % 10, j = (c / 10) % 7, z = c / 70;
    const auto& b = boxes.boxes[static_cast<std::size_t>(rank)];
    EXPECT_TRUE(i >= b.lo[0] && i < b.hi[0] && j >= b.lo[1] && j < b.hi[1] && z >= b.lo[2] &&
                z < b.hi[2])
        << "cell " << c << " is not in this rank's box";
    EXPECT_EQ(owners.owner(c), rank);
  }
}

TEST(Exchange, ByDestinationWithVerificationAndOrder) {
  const int P = size_of(), rank = rank_of();
  // Element k of rank r goes to (r + k) mod P; kept ones stay first, in order.
  std::vector<int> dest;
  std::vector<i64> ids;
  for (int k = 0; k < 10; ++k) {
    dest.push_back((rank + k) % P);
    ids.push_back(100 * rank + k);
  }
  isocost::mpi::ExchangeOptions o;
  o.verify = true;
  const auto s = isocost::mpi::exchange(MPI_COMM_WORLD, dest, o, ids);
  EXPECT_TRUE(s.verified);
  // Every rank receives from every source r the k with (r + k) mod P == rank,
  // in source order then in the sender's order; the kept ones come first.
  std::vector<i64> expect;
  for (int k = 0; k < 10; ++k)
    if ((rank + k) % P == rank) expect.push_back(100 * rank + k);
  for (int r = 0; r < P; ++r)
    if (r != rank)
      for (int k = 0; k < 10; ++k)
        if ((r + k) % P == rank) expect.push_back(100 * r + k);
  EXPECT_EQ(ids, expect);
}

TEST(Exchange, BadInputIsTheSameErrorEverywhereAndMovesNothing) {
  const int P = size_of(), rank = rank_of(), last = P - 1;
  const auto d = BlockDistribution::uniform(10 * P, P);
  std::vector<i64> keys{0, 1, 2};
  std::vector<double> w{1, 2, 3};
  if (rank == last) keys[1] = 10 * P;  // out of range
  std::string msg = error_of([&] { isocost::mpi::exchange(MPI_COMM_WORLD, d, keys, w); });
  expect_agreed_error(msg, "rank " + std::to_string(last) +
                               ": element 1's key: expected an index in [0, " +
                               std::to_string(10 * P) + "), got " + std::to_string(10 * P));
  EXPECT_EQ(w, (std::vector<double>{1, 2, 3}));
  keys = {0, 1, 2};
  if (rank == last) w.push_back(4);  // arrays of different lengths
  msg = error_of([&] { isocost::mpi::exchange(MPI_COMM_WORLD, d, keys, w); });
  expect_agreed_error(msg, "rank " + std::to_string(last) + ": array 1 holds");
  // Element types that differ between ranks.
  std::vector<int> dest{0, 0};
  std::vector<double> a{1, 2};
  std::vector<float> b{1, 2};
  msg = rank == last ? error_of([&] { isocost::mpi::exchange(MPI_COMM_WORLD, dest, {}, b); })
                     : error_of([&] { isocost::mpi::exchange(MPI_COMM_WORLD, dest, {}, a); });
  if (P > 1) {
    expect_agreed_error(msg, "element sizes");
  } else {
    EXPECT_EQ(msg, "");
  }
}

// What rank `me` must hold after an exchange, worked out without the
// library from every rank's input (regenerated): its kept elements in order,
// then each other source's in rank order and in that source's order.
template <class Input, class Owner>
std::vector<i64> expected_ids(int me, int P, Input&& input, Owner&& owner) {
  std::vector<i64> out;
  for (int pass = 0; pass < 2; ++pass)
    for (int r = 0; r < P; ++r) {
      if ((pass == 0) != (r == me)) continue;
      std::vector<i64> keys, ids;
      input(r, keys, ids);
      for (std::size_t k = 0; k < ids.size(); ++k)
        if (owner(keys[k]) == me) out.push_back(ids[k]);
    }
  return out;
}

// Rank r's particles for the key-function tests: `pattern` chooses which leave
// (keys in other ranks' blocks) so that the compaction's edges are covered.
void patterned(const BlockDistribution& d, int r, int pattern, std::vector<i64>& keys,
               std::vector<i64>& ids) {
  const int P = d.parts();
  const i64 n = 200 + 13 * r;
  std::mt19937_64 rng(77 + static_cast<unsigned>(r));
  for (i64 k = 0; k < n; ++k) {
    bool leaves = false;
    switch (pattern) {
      case 0:
        leaves = false;
        break;  // nothing leaves
      case 1:
        leaves = true;
        break;  // everything leaves
      case 2:
        leaves = k == 0 || k == n - 1;
        break;  // the ends
      case 3:
        leaves = k % 2 == 1;
        break;  // every other one
      case 4:
        leaves = k >= n / 3 && k < n / 3 + 17;
        break;  // one run
      default:
        leaves = std::uniform_int_distribution<int>(0, 9)(rng) == 0;  // 10 %
    }
    int q = r;
    if (leaves && P > 1) q = (r + 1 + static_cast<int>(rng() % static_cast<unsigned>(P - 1))) % P;
    if (d.count(q) == 0) q = r;  // keep when the target block is empty
    if (d.count(q) == 0) q = 0;  // own block empty too: rank 0's (never empty)
    const i64 key = d.begin(q) + static_cast<i64>(rng() % static_cast<u64>(d.count(q)));
    keys.push_back(key);
    ids.push_back(1'000'000LL * r + k);
  }
}

TEST(Exchange, KeyFunctionKeepsOrderAtEveryCompactionEdge) {
  const int P = size_of(), rank = rank_of();
  std::vector<i64> counts(static_cast<std::size_t>(P), 40);
  if (P > 2) counts[1] = 0;  // an empty block
  const auto d = BlockDistribution::from_counts(counts);
  for (int pattern = 0; pattern < 6; ++pattern) {
    SCOPED_TRACE("pattern " + std::to_string(pattern));
    std::vector<i64> keys, ids;
    patterned(d, rank, pattern, keys, ids);
    // The key is carried as a double coordinate: nothing but x and id travel.
    std::vector<double> x(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) x[k] = static_cast<double>(keys[k]) + 0.25;
    isocost::mpi::ExchangeOptions o;
    o.verify = pattern % 2 == 0;
    const auto s = isocost::mpi::exchange(
        MPI_COMM_WORLD, d, o, [&x](std::size_t i) { return static_cast<i64>(std::floor(x[i])); }, x,
        ids);
    const auto expect = expected_ids(
        rank, P, [&](int r, auto& k, auto& i) { patterned(d, r, pattern, k, i); },
        [&](i64 key) { return d.owner(key); });
    EXPECT_EQ(ids, expect);
    ASSERT_EQ(x.size(), ids.size());
    for (std::size_t k = 0; k < x.size(); ++k)
      EXPECT_EQ(d.owner(static_cast<i64>(std::floor(x[k]))), rank);
    EXPECT_EQ(s.record_size, sizeof(double) + sizeof(i64));
    EXPECT_EQ(s.elements_kept + s.elements_received, static_cast<i64>(ids.size()));
    EXPECT_EQ(s.verified, o.verify);
    i64 all = static_cast<i64>(ids.size());
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(s.global_elements, all);
  }
}

TEST(Exchange, KeyFunctionOnBoxesMatchesTheKeyArray) {
  const int P = size_of();
  const auto boxes = boxes_of_grid(P);
  std::vector<i64> keys, ids, keys2, ids2;
  std::vector<double> w, w2;
  std::vector<Payload> p, p2;
  make_particles(280, keys, ids, w, p);
  make_particles(280, keys2, ids2, w2, p2);
  isocost::mpi::exchange(MPI_COMM_WORLD, boxes, keys, ids, w, p);
  const std::vector<i64> k2 = keys2;
  isocost::mpi::exchange(
      MPI_COMM_WORLD, boxes, [&](std::size_t i) { return k2[i]; }, keys2, ids2, w2, p2);
  EXPECT_EQ(ids2, ids);
  EXPECT_EQ(keys2, keys);
  EXPECT_EQ(w2, w);
}

TEST(Exchange, AKeyFunctionThatThrowsIsTheSameErrorEverywhere) {
  const int P = size_of(), rank = rank_of(), last = P - 1;
  const auto d = BlockDistribution::uniform(10 * P, P);
  std::vector<double> w{1, 2, 3};
  const std::string msg = error_of([&] {
    isocost::mpi::exchange(
        MPI_COMM_WORLD, d,
        [&](std::size_t i) -> i64 {
          if (rank == last && i == 2) throw std::runtime_error("no cell for this one");
          return 0;
        },
        w);
  });
  expect_agreed_error(
      msg, "rank " + std::to_string(last) + ": the key function threw: no cell for this one");
  EXPECT_EQ(w, (std::vector<double>{1, 2, 3}));
  // Key out of range through a function, and arrays of different lengths.
  std::vector<double> v{1, 2, 3};
  if (rank == last) v.push_back(4);
  const std::string differ = error_of([&] {
    isocost::mpi::exchange(
        MPI_COMM_WORLD, d, [&](std::size_t) -> i64 { return 0; }, w, v);
  });
  expect_agreed_error(differ, "rank " + std::to_string(last) + ": array 1 holds 4 elements");
  const std::string out = error_of([&] {
    isocost::mpi::exchange(
        MPI_COMM_WORLD, d, [&](std::size_t i) -> i64 { return rank == last && i == 1 ? -1 : 0; },
        w);
  });
  expect_agreed_error(out, "rank " + std::to_string(last) +
                               ": element 1's key: expected an index in [0, " +
                               std::to_string(10 * P) + "), got -1");
  EXPECT_EQ(w, (std::vector<double>{1, 2, 3}));
}

}  // namespace
