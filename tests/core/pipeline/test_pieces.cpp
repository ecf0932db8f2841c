// Tests for isocost/pieces.hpp. Expected values by hand, on Watts Fig. 4.12's
// situation: chunks 0-3 hold particles (push 4, field 1 each), chunks 4-7
// none (push 0, field 1). Every single cut c of the 8 chunks into 2 blocks
// gives Σ_p max_r = 19, 14, 17, 20, ... for c = 1, 2, 3, 4: the best, c = 2,
// is 8 + 6 = 14 against the balanced 16/2 + 8/2 = 12, so one block per rank
// reaches 12/14. Mixed, the order is 0 4 1 5 2 6 3 7 (a rich chunk first: the
// tie goes to the lower kind), and cutting it in half gives both ranks push 8
// and field 4.
#include "isocost/pieces.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <random>

#include "support/expect_error.hpp"

namespace {

using isocost::PiecePlan;
using isocost::PiecesOptions;
using isocost::plan_pieces;
using isocost::Speeds;
using isocost::Termination;
using isocost::testing::expect_error;
using Ids = std::vector<std::int64_t>;

std::vector<double> fig_4_12(int rich, int poor) {
  std::vector<double> c;
  for (int g = 0; g < rich; ++g) c.insert(c.end(), {4, 1});
  for (int g = 0; g < poor; ++g) c.insert(c.end(), {0, 1});
  return c;
}

TEST(PlanPieces, MixesRichAndPoorChunksIntoEveryRank) {
  const PiecePlan p = plan_pieces(fig_4_12(4, 4), 2, Speeds::uniform(2));
  EXPECT_EQ(p.order, (Ids{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(p.offsets, (Ids{0, 4, 8}));
  EXPECT_EQ(p.owner, (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(p.part_costs, (std::vector<double>{8, 4, 8, 4}));
  EXPECT_DOUBLE_EQ(p.synchronised_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(p.block_synchronised_efficiency, 12.0 / 14.0);
  EXPECT_EQ(p.phase_efficiency, (std::vector<double>{1, 1}));
  EXPECT_EQ(p.max_pieces, 2);                        // {0, 1} and {4, 5}
  EXPECT_DOUBLE_EQ(p.max_prefix_deviation, 0.0625);  // one chunk's u: 0.25 − 0.1875
  EXPECT_TRUE(p.converged());
  EXPECT_NE(p.brief_report().find("synchronised efficiency 1 (one block per rank 0.857"),
            std::string::npos)
      << p.brief_report();
}

TEST(PlanPieces, WithoutMixingTheBestBlockCut) {
  PiecesOptions o;
  o.mix = false;
  const PiecePlan p = plan_pieces(fig_4_12(4, 4), 2, Speeds::uniform(2), o);
  EXPECT_EQ(p.order, (Ids{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(p.offsets, (Ids{0, 2, 8}));
  EXPECT_EQ(p.part_costs, (std::vector<double>{8, 2, 8, 6}));
  EXPECT_DOUBLE_EQ(p.synchronised_efficiency, 12.0 / 14.0);
  EXPECT_EQ(p.max_pieces, 1);
  EXPECT_FALSE(p.options.mix);
}

TEST(PlanPieces, OneBlockPerRankCannotBalanceBothPhases) {
  // 8 rich and 8 poor chunks: the best block cut (push alone, at 4) leaves
  // field 4 and 12 against a balanced 8, beyond two chunks (8 + 2·1): not
  // converged. Mixed, both phases balance exactly.
  PiecesOptions o;
  o.mix = false;
  const PiecePlan block = plan_pieces(fig_4_12(8, 8), 2, Speeds::uniform(2), o);
  EXPECT_EQ(block.offsets, (Ids{0, 4, 16}));
  EXPECT_DOUBLE_EQ(block.synchronised_efficiency, 24.0 / 28.0);
  EXPECT_DOUBLE_EQ(block.phase_efficiency[1], 8.0 / 12.0);
  EXPECT_EQ(block.termination, Termination::iteration_limit);
  const PiecePlan mixed = plan_pieces(fig_4_12(8, 8), 2, Speeds::uniform(2));
  EXPECT_DOUBLE_EQ(mixed.synchronised_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(mixed.block_synchronised_efficiency, 24.0 / 28.0);
  EXPECT_TRUE(mixed.converged());
}

TEST(PlanPieces, SpeedsTakeTheirShareOfEveryPhase) {
  // Speeds 1 and 3: rank 0 takes a quarter of the mixed order's total 24, the
  // chunks 0 and 4 (push 4, field 2); rank 1 the rest, 12 and 6 at speed 3.
  const PiecePlan p = plan_pieces(fig_4_12(4, 4), 2, Speeds::from_values({1, 3}));
  EXPECT_EQ(p.offsets, (Ids{0, 2, 8}));
  EXPECT_EQ(p.part_costs, (std::vector<double>{4, 2, 4, 2}));
  EXPECT_DOUBLE_EQ(p.synchronised_efficiency, 1.0);
}

TEST(PlanPieces, OnePhaseIsTheBlockCut) {
  // Costs 1 2 3 4 into 2: the cut nearest half of 10 is after 3 (6 | 4).
  const PiecePlan p = plan_pieces(std::vector<double>{1, 2, 3, 4}, 1, Speeds::uniform(2));
  EXPECT_EQ(p.order, (Ids{0, 1, 2, 3}));
  EXPECT_EQ(p.offsets, (Ids{0, 3, 4}));
  EXPECT_DOUBLE_EQ(p.synchronised_efficiency, 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(p.block_synchronised_efficiency, 5.0 / 6.0);
  // A phase that costs nothing changes nothing and counts as balanced.
  const PiecePlan q =
      plan_pieces(std::vector<double>{1, 0, 2, 0, 3, 0, 4, 0}, 2, Speeds::uniform(2));
  EXPECT_EQ(q.offsets, p.offsets);
  EXPECT_EQ(q.phase_efficiency, (std::vector<double>{5.0 / 6.0, 1.0}));
}

TEST(PlanPieces, RandomChunksArePartitionedAndNeverWorseThanBlocks) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t F = 1 + trial % 3, G = 64 + 37 * static_cast<std::size_t>(trial % 5);
    const int P = 2 + trial % 7;
    std::vector<double> c(G * F);
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t p = 0; p < F; ++p)  // phase 0 lives in the first half only
        c[g * F + p] = p == 0 && g >= G / 2 ? 0 : unit(rng) * (p == 0 ? 10 : 1);
    const PiecePlan plan = plan_pieces(c, F, Speeds::uniform(P));
    SCOPED_TRACE(plan.brief_report());
    // Each chunk once, owned by the rank whose range of the order holds it.
    Ids sorted = plan.order;
    std::sort(sorted.begin(), sorted.end());
    Ids all(G);
    std::iota(all.begin(), all.end(), std::int64_t{0});
    ASSERT_EQ(sorted, all);
    std::vector<double> total(F, 0.0), parts(F, 0.0);
    for (int r = 0; r < P; ++r)
      for (auto i = plan.offsets[static_cast<std::size_t>(r)];
           i < plan.offsets[static_cast<std::size_t>(r) + 1]; ++i)
        ASSERT_EQ(plan.owner[static_cast<std::size_t>(plan.order[static_cast<std::size_t>(i)])], r);
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t p = 0; p < F; ++p) total[p] += c[g * F + p];
    for (std::size_t i = 0; i < plan.part_costs.size(); ++i) parts[i % F] += plan.part_costs[i];
    for (std::size_t p = 0; p < F; ++p) EXPECT_NEAR(parts[p], total[p], 1e-9 * total[p]);
    EXPECT_GE(plan.synchronised_efficiency, plan.block_synchronised_efficiency);
    EXPECT_LE(plan.synchronised_efficiency, 1.0 + 1e-12);
    // Every phase within two of its heaviest chunks of balanced (the bound
    // of the greedy mixing plus the cut), checked here from the part costs.
    EXPECT_TRUE(plan.converged());
    for (std::size_t p = 0; p < F; ++p) {
      double worst = 0, heaviest = 0;
      for (int r = 0; r < P; ++r) worst = std::max(worst, plan.part_costs[r * F + p]);
      for (std::size_t g = 0; g < G; ++g) heaviest = std::max(heaviest, c[g * F + p]);
      EXPECT_LE(worst, total[p] / P + 2 * heaviest) << "phase " << p;
    }
  }
}

TEST(PlanPieces, BadInputIsNamed) {
  const Speeds two = Speeds::uniform(2);
  expect_error([&] { plan_pieces(std::vector<double>{1, 2}, 0, two); }, {"0 phases"});
  expect_error(
      [&] {
        plan_pieces(std::vector<double>{1, 2, 3}, 2, two);
      },
      {"3 costs for 2 phases; expected a positive multiple"});
  expect_error([&] { plan_pieces(std::vector<double>{}, 1, two); }, {"0 costs for 1 phases"});
  expect_error(
      [&] {
        plan_pieces(std::vector<double>{1, 2, -3, 1}, 2, two);
      },
      {"cost of chunk 1 in phase 0: expected a finite number >= 0, got -3"});
  expect_error(
      [&] {
        plan_pieces(std::vector<double>{1, std::numeric_limits<double>::quiet_NaN()}, 1, two);
      },
      {"cost of chunk 1 in phase 0: expected a finite number >= 0, got nan"});
  expect_error([&] { plan_pieces(std::vector<double>{0, 0, 0, 0}, 2, two); }, {"every cost is 0"});
}

}  // namespace
