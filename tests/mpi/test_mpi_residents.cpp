// maybe_rebalance(residents(…), cells…) under mpiexec -n N (CTest runs N = 1,
// 2, 3, 4, 8): particles living in the cells a balancer distributes drift
// into a cluster; each step one call moves the cells when it pays and every
// particle to the owner of its cell. Checked independently of the library
// after every call: every cell array holds exactly this rank's cells, every
// particle sits on the owner of its cell, and the particles' count, Σ id,
// Σ id² and a checksum of (id, x) are conserved. A rebalance must happen
// with more than one rank (the cluster makes the load uneven).
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::testing::rank_of;
using isocost::testing::size_of;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using isocost::testing::mix64;

// Collective: (count, Σ id, Σ id², Σ hash(id, y)); x drifts, and is checked
// against its replay from the id instead.
std::array<u64, 4> census(const std::vector<i64>& id, const std::vector<double>& y) {
  u64 mine[4] = {id.size(), 0, 0, 0};
  for (std::size_t k = 0; k < id.size(); ++k) {
    const auto v = static_cast<u64>(id[k]);
    mine[1] += v;
    mine[2] += v * v;
    mine[3] += mix64(mix64(v) ^ std::bit_cast<u64>(y[k]));
  }
  std::array<u64, 4> all{};
  MPI_Allreduce(mine, all.data(), 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// Either balancer's options: a check every 2 steps on the last step's loads,
// the global plan, no measured comm model or decision cost.
template <class Options>
Options quick() {
  Options o;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.monitor.window = 1;
  o.pipeline.trigger.every = 2;
  o.pipeline.steps_ahead = 100;
  o.pipeline.policy = isocost::mpi::BalancePolicy::global;
  return o;
}

// Particles drift towards x = 0.8·N: by step 6 most of them are in a few cells.
double drifted(double x, double target, int step) {
  return x + (target - x) * (step < 6 ? 0.3 : 0.0);
}

// x after steps 0 … last from its start.
double replayed(double x, double target, int last) {
  for (int s = 0; s <= last; ++s) x = drifted(x, target, s);
  return x;
}

TEST(Residents, BlockCellsAndTheirParticlesMoveInOneCall) {
  const int P = size_of(), rank = rank_of();
  const i64 N = 32 * P;
  for (const bool key_array : {true, false}) {
    SCOPED_TRACE(key_array ? "key array" : "key function");
    isocost::mpi::BlockBalancer b(MPI_COMM_WORLD, isocost::mpi::BlockDistribution::uniform(N, P),
                                  quick<isocost::mpi::BlockBalancerOptions>());
    // Cells: their global index. Particles: 8 per cell, ids global.
    std::vector<double> cell(static_cast<std::size_t>(b.local_count()));
    for (std::size_t c = 0; c < cell.size(); ++c)
      cell[c] = static_cast<double>(b.local_begin() + static_cast<i64>(c));
    std::vector<double> x, y;
    std::vector<i64> id, key;
    for (i64 c = b.local_begin(); c < b.local_begin() + b.local_count(); ++c)
      for (int k = 0; k < 8; ++k) {
        x.push_back(static_cast<double>(c) + (k + 0.5) / 8);
        y.push_back(-static_cast<double>(k));
        id.push_back(8 * c + k);
      }
    const auto before = census(id, y);
    int moved = 0;
    for (int step = 0; step < 12; ++step) {
      for (double& v : x) v = drifted(v, 0.8 * static_cast<double>(N), step);
      // The step's cost: one unit per particle held, a little per cell.
      b.record_step(1e-3 * static_cast<double>(x.size()) + 1e-5 * static_cast<double>(cell.size()));
      key.resize(x.size());
      for (std::size_t k = 0; k < x.size(); ++k) key[k] = static_cast<i64>(std::floor(x[k]));
      const auto e =
          key_array ? b.maybe_rebalance(isocost::mpi::residents(key, x, y, id), cell)
                    : b.maybe_rebalance(
                          isocost::mpi::residents(
                              [&x](std::size_t k) { return static_cast<i64>(std::floor(x[k])); }, x,
                              y, id),
                          cell);
      moved += e.migration ? 1 : 0;
      // A step that moves cells sends the particles in the same collective.
      EXPECT_EQ(b.last_exchange().with_rebalance, e.migration.has_value());
      ASSERT_EQ(static_cast<i64>(cell.size()), b.local_count());
      for (std::size_t c = 0; c < cell.size(); ++c)
        ASSERT_EQ(cell[c], static_cast<double>(b.local_begin() + static_cast<i64>(c)));
      ASSERT_EQ(y.size(), x.size());
      ASSERT_EQ(id.size(), x.size());
      for (std::size_t k = 0; k < x.size(); ++k) {  // each x still travels with its id
        const double x0 =
            static_cast<double>(id[k] / 8) + (static_cast<double>(id[k] % 8) + 0.5) / 8;
        ASSERT_EQ(x[k], replayed(x0, 0.8 * static_cast<double>(N), step));
      }
      for (const double v : x)
        ASSERT_EQ(b.distribution().owner(static_cast<i64>(std::floor(v))), rank);
      if (key_array) {
        ASSERT_EQ(key.size(), x.size());
        for (std::size_t k = 0; k < x.size(); ++k)
          ASSERT_EQ(key[k], static_cast<i64>(std::floor(x[k])));
      }
      EXPECT_EQ(b.last_exchange().global_elements, static_cast<i64>(before[0]));
    }
    const auto after = census(id, y);
    EXPECT_EQ(after, before);
    if (P > 1) {
      EXPECT_GT(moved, 0);
    }
  }
}

TEST(Residents, GridCellsAndTheirParticlesMoveInOneCall) {
  const int P = size_of(), rank = rank_of();
  isocost::GridShape shape;
  shape.dims = 2;
  shape.cells = {8 * P, 12, 1};
  const i64 nx = shape.cells[0], cells = shape.count();
  const auto start = isocost::decompose(
      isocost::grid_density(std::vector<double>(static_cast<std::size_t>(cells), 1.0), shape),
      {{P}, {0}}, isocost::Speeds::uniform(P));
  isocost::mpi::GridBalancer b(MPI_COMM_WORLD, shape, start,
                               quick<isocost::mpi::GridBalancerOptions>());
  auto box = [&] { return b.boxes().boxes[static_cast<std::size_t>(rank)]; };
  auto cell_index = [&] {
    std::vector<double> v;
    const auto bx = box();
    for (i64 j = bx.lo[1]; j < bx.hi[1]; ++j)
      for (i64 i = bx.lo[0]; i < bx.hi[0]; ++i) v.push_back(static_cast<double>(i + nx * j));
    return v;
  };
  std::vector<double> cell = cell_index(), x, y;
  std::vector<i64> id;
  for (const double c : cell)
    for (int k = 0; k < 4; ++k) {
      const auto ci = static_cast<i64>(c);
      x.push_back(static_cast<double>(ci % nx) + 0.25 * k + 0.1);
      y.push_back(static_cast<double>(ci / nx) + 0.5);
      id.push_back(4 * ci + k);
    }
  const auto before = census(id, y);
  auto key_of = [&](std::size_t k) {
    return static_cast<i64>(std::floor(x[k])) + nx * static_cast<i64>(std::floor(y[k]));
  };
  int moved = 0;
  for (int step = 0; step < 12; ++step) {
    for (double& v : x) v = drifted(v, 0.8 * static_cast<double>(nx), step);
    b.record_step(1e-3 * static_cast<double>(x.size()) + 1e-5 * static_cast<double>(cell.size()));
    const auto e = b.maybe_rebalance(isocost::mpi::residents(key_of, x, y, id), cell);
    moved += e.migration ? 1 : 0;
    EXPECT_EQ(b.last_exchange().with_rebalance, e.migration.has_value());
    ASSERT_EQ(cell, cell_index());
    const auto bx = box();
    for (std::size_t k = 0; k < x.size(); ++k) {
      const i64 ci = id[k] / 4;
      const double x0 = static_cast<double>(ci % nx) + 0.25 * static_cast<double>(id[k] % 4) + 0.1;
      ASSERT_EQ(x[k], replayed(x0, 0.8 * static_cast<double>(nx), step));
      ASSERT_EQ(y[k], static_cast<double>(ci / nx) + 0.5);
      const auto i = static_cast<i64>(std::floor(x[k])), j = static_cast<i64>(std::floor(y[k]));
      ASSERT_TRUE(i >= bx.lo[0] && i < bx.hi[0] && j >= bx.lo[1] && j < bx.hi[1])
          << "particle " << id[k] << " in cell (" << i << ", " << j << ") is not in this box";
    }
  }
  EXPECT_EQ(census(id, y), before);
  if (P > 1) {
    EXPECT_GT(moved, 0);
  }
}

}  // namespace
