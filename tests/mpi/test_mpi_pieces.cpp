// isocost/mpi/pieces.hpp under mpiexec -n N (CTest: N = 1 … 4). The chunk
// costs are split between ranks in integer parts, so their sums are exact and
// the collective plan must equal the serial plan_pieces() of the whole costs
// field for field; the plan's owners then drive exchange(), and every element
// must arrive at the owner of its chunk, none lost.
#include "isocost/mpi/pieces.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "isocost/mpi/exchange.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::PiecePlan;
using isocost::Speeds;
using isocost::testing::error_of;
using isocost::testing::expect_has;
using isocost::testing::expect_in_step;
using isocost::testing::rank_of;
using isocost::testing::size_of;

constexpr std::int64_t kChunks = 96;

// Chunk g's whole costs: push ∝ particles in the first third only, ten times
// denser in chunks 8-15; field ∝ cells everywhere (Watts §4.2's PIC).
std::vector<double> whole_costs() {
  std::vector<double> c;
  for (std::int64_t g = 0; g < kChunks; ++g)
    c.insert(c.end(), {g < kChunks / 3 ? (g >= 8 && g < 16 ? 40.0 : 4.0) : 0.0, 2.0});
  return c;
}

// This rank's part: every chunk g with g % P == rank, and one unit of each
// cost of chunk g + 1 (another rank's, when P > 1) taken from it.
void my_part(std::vector<std::int64_t>& ids, std::vector<double>& costs) {
  const int rank = rank_of(), P = size_of();
  const std::vector<double> whole = whole_costs();
  std::vector<double> mine(whole.size(), 0.0);
  for (std::int64_t g = 0; g < kChunks; ++g)
    if (g % P == rank)
      for (std::size_t p = 0; p < 2; ++p) {
        const auto at = static_cast<std::size_t>(g) * 2 + p;
        const auto next = static_cast<std::size_t>((g + 1) % kChunks) * 2 + p;
        const double moved = whole[next] >= 1 && P > 1 ? 1 : 0;
        mine[at] += whole[at];
        mine[next] += moved;
      }
  // ...and the owner of g + 1 gives that unit up.
  for (std::int64_t g = 0; g < kChunks; ++g)
    if ((g + 1) % kChunks % P == rank && P > 1)
      for (std::size_t p = 0; p < 2; ++p) {
        const auto at = static_cast<std::size_t>((g + 1) % kChunks) * 2 + p;
        if (whole[at] >= 1) mine[at] -= 1;
      }
  for (std::int64_t g = 0; g < kChunks; ++g)
    if (mine[static_cast<std::size_t>(g) * 2] != 0 ||
        mine[static_cast<std::size_t>(g) * 2 + 1] != 0) {
      ids.push_back(g);
      costs.insert(costs.end(), {mine[static_cast<std::size_t>(g) * 2],
                                 mine[static_cast<std::size_t>(g) * 2 + 1]});
    }
}

TEST(MpiPlanPieces, EqualsTheSerialPlanOfTheSummedCosts) {
  std::vector<std::int64_t> ids;
  std::vector<double> costs;
  my_part(ids, costs);
  const Speeds speeds = Speeds::uniform(size_of());
  const PiecePlan got = isocost::mpi::plan_pieces(MPI_COMM_WORLD, kChunks, ids, costs, 2, speeds);
  const PiecePlan want = isocost::plan_pieces(whole_costs(), 2, speeds);
  EXPECT_EQ(got.order, want.order);
  EXPECT_EQ(got.offsets, want.offsets);
  EXPECT_EQ(got.owner, want.owner);
  EXPECT_EQ(got.part_costs, want.part_costs);
  EXPECT_EQ(got.synchronised_efficiency, want.synchronised_efficiency);
  if (size_of() > 1) {
    // 32 particle chunks, 8 of them ten times as dense: one block a rank
    // cannot balance push and field at once; pieces can.
    EXPECT_LT(got.block_synchronised_efficiency, 0.8);
    EXPECT_GT(got.synchronised_efficiency, 0.9);
  }
}

TEST(MpiPlanPieces, OwnersDriveTheExchange) {
  // Elements: 4 per chunk, spread round-robin; each carries its chunk.
  const int rank = rank_of(), P = size_of();
  std::vector<std::int64_t> ids;
  std::vector<double> costs;
  my_part(ids, costs);
  const PiecePlan plan =
      isocost::mpi::plan_pieces(MPI_COMM_WORLD, kChunks, ids, costs, 2, Speeds::uniform(P));
  std::vector<std::int64_t> chunk;
  for (std::int64_t e = rank; e < 4 * kChunks; e += P) chunk.push_back(e / 4);
  std::vector<int> to(chunk.size());
  for (std::size_t i = 0; i < chunk.size(); ++i)
    to[i] = plan.owner[static_cast<std::size_t>(chunk[i])];
  isocost::mpi::exchange(MPI_COMM_WORLD, std::span<const int>(to), {}, chunk);
  long long held = static_cast<long long>(chunk.size()), total = 0;
  for (const std::int64_t g : chunk) EXPECT_EQ(plan.owner[static_cast<std::size_t>(g)], rank);
  MPI_Allreduce(&held, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 4 * kChunks);
}

TEST(MpiPlanPieces, BadInputOnOneRankFailsOnEveryRank) {
  const int last = size_of() - 1;
  const Speeds speeds = Speeds::uniform(size_of());
  std::vector<std::int64_t> ids{rank_of() == last ? kChunks : 0};
  std::vector<double> costs{1, 1};
  std::string e =
      error_of([&] { isocost::mpi::plan_pieces(MPI_COMM_WORLD, kChunks, ids, costs, 2, speeds); });
  expect_has(e, "plan_pieces");
  expect_has(e, "rank " + std::to_string(last));
  expect_has(e, "chunk id at 0: expected 0 to 95, got 96");
  expect_in_step();

  ids = {0};
  costs = {1, rank_of() == last ? -2.0 : 1.0};
  e = error_of([&] { isocost::mpi::plan_pieces(MPI_COMM_WORLD, kChunks, ids, costs, 2, speeds); });
  expect_has(e, "cost of chunk 0 in phase 1: expected a finite number >= 0, got -2");
  expect_in_step();

  costs = {1, 1};
  e = error_of([&] {
    isocost::mpi::plan_pieces(MPI_COMM_WORLD, rank_of() == last ? kChunks + 1 : kChunks, ids, costs,
                              2, speeds);
  });
  if (size_of() > 1) expect_has(e, "chunks");
  expect_in_step();

  e = error_of([&] {
    isocost::mpi::plan_pieces(MPI_COMM_WORLD, kChunks, ids, costs, 2,
                              Speeds::uniform(size_of() + 1));
  });
  expect_has(e, "speeds: expected " + std::to_string(size_of()) +
                    " ranks (the communicator's size), got " + std::to_string(size_of() + 1) +
                    " ranks");
  expect_in_step();

  // Every cost 0: the serial plan's own error, alike on every rank.
  costs = {0, 0};
  e = error_of([&] { isocost::mpi::plan_pieces(MPI_COMM_WORLD, kChunks, ids, costs, 2, speeds); });
  expect_has(e, "every cost is 0");
  expect_in_step();
}

}  // namespace
