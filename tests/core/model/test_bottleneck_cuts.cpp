// Tests for bottleneck_cuts() (isocost/partition.hpp): the chains-on-chains
// optimum against brute force over every contiguous split, with and without
// minimum widths and speeds, and non-empty parts at scale; partition_optimal(),
// the optimum of a discrete model as a Partition, against hand-computed cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "brute_bottleneck.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/partition.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::testing::brute_bottleneck;
using isocost::testing::brute_latest_nonempty;
using isocost::testing::expect_error;
using isocost::testing::nonempty_feasible;

TEST(BottleneckCuts, NonEmptyPartsAtScale) {
  // 2·10^5 cells, spikes of 100 (1 %) among ones, into 16 384 parts: no part
  // can cost less than its heaviest cell, so the optimum is 100 — which the
  // unconstrained split reaches with many parts empty. With min_cells = 1
  // (the greedy probe, O(P log n)) every part holds a cell at the same 100.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> P{0};
  for (int i = 0; i < 200000; ++i) P.push_back(P.back() + (u(rng) < 0.01 ? 100 : 1));
  const std::vector<double> s(16384, 1.0);
  for (const std::int64_t w : {0, 1}) {
    const auto b = isocost::bottleneck_cuts(P, s, w);
    double worst = 0;
    std::int64_t empty = 0;
    for (std::size_t j = 0; j + 1 < b.size(); ++j) {
      worst = std::max(worst,
                       P[static_cast<std::size_t>(b[j + 1])] - P[static_cast<std::size_t>(b[j])]);
      empty += b[j + 1] == b[j] ? 1 : 0;
    }
    EXPECT_EQ(worst, 100.0) << "min_cells " << w;
    if (w == 1) {
      EXPECT_EQ(empty, 0);
    } else {
      EXPECT_GT(empty, 0);  // what min_cells = 1 is for
    }
  }
}

TEST(BottleneckCuts, EqualBruteForce) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.5, 2);
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10), m = 1 + static_cast<int>(rng() % 4);
    const int w_min = static_cast<int>(rng() % 3);
    std::vector<double> w(static_cast<std::size_t>(n)), s(static_cast<std::size_t>(m), 1.0);
    for (auto& v : w) v = static_cast<double>(rng() % 10);
    if (trial % 2)
      for (auto& v : s) v = u(rng);
    std::vector<double> P{0};
    for (double v : w) P.push_back(P.back() + v);
    if (m * w_min > n) {
      expect_error([&] { isocost::bottleneck_cuts(P, s, w_min); }, {"do not fit"});
      continue;
    }
    const auto b = isocost::bottleneck_cuts(P, s, w_min);
    ASSERT_EQ(b.size(), s.size() + 1);
    ASSERT_EQ(b.front(), 0);
    ASSERT_EQ(b.back(), n);
    double worst = 0;
    for (int j = 0; j < m; ++j) {
      ASSERT_GE(b[j + 1] - b[j], w_min) << "trial " << trial;
      worst = std::max(worst, (P[b[j + 1]] - P[b[j]]) / s[j]);
    }
    ASSERT_NEAR(worst, brute_bottleneck(w, s, w_min), 1e-12 * (1 + worst)) << "trial " << trial;
  }
}

// Non-empty parts at unequal capacities, where the capped greedy probe
// cannot decide and the reachable boundaries do: the optimum and, of the
// optimal splits, the latest, against brute force.
TEST(BottleneckCuts, NonEmptyUnequalCapacitiesLatestOptimum) {
  // The free optimum leaves part 0 empty at 1.01; non-empty, part 0 holds
  // the 100 alone.
  EXPECT_EQ(isocost::bottleneck_cuts(std::vector<double>{0, 100, 101, 102},
                                     std::vector<double>{1, 100, 1}, 1),
            (std::vector<std::int64_t>{0, 1, 2, 3}));
  std::mt19937_64 rng(11);
  const double speeds[] = {0.5, 1, 2, 4};
  int heavy_trials = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9), m = 1 + static_cast<int>(rng() % n);
    std::vector<double> w(static_cast<std::size_t>(n)), s(static_cast<std::size_t>(m));
    for (auto& v : w) v = rng() % 4 == 0 ? static_cast<double>(20 + rng() % 40) : rng() % 4;
    for (auto& v : s) v = speeds[rng() % 4];
    std::vector<double> P{0};
    for (double v : w) P.push_back(P.back() + v);
    const auto b = isocost::bottleneck_cuts(P, s, 1);
    ASSERT_EQ(b, brute_latest_nonempty(w, s)) << "trial " << trial;
    const auto free = isocost::bottleneck_cuts(P, s, 0);
    for (int j = 0; j < m; ++j)
      if (free[j + 1] == free[j]) {
        ++heavy_trials;
        break;
      }
  }
  EXPECT_GT(heavy_trials, 500);  // the trials that need the non-empty search
}

TEST(BottleneckCuts, NonEmptyUnequalCapacitiesAtScale) {
  // 2·10^4 cells, spikes of 100 (1 %) among ones, into 2 048 parts of
  // speeds 1, 3 and 0.25 in turn: the free optimum leaves parts empty. The
  // non-empty one must be feasible at its bottleneck and not below it, by an
  // independent table over every boundary.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> P{0};
  for (int i = 0; i < 20000; ++i) P.push_back(P.back() + (u(rng) < 0.01 ? 100 : 1));
  std::vector<double> s(2048);
  for (std::size_t j = 0; j < s.size(); ++j) s[j] = j % 3 == 0 ? 1 : (j % 3 == 1 ? 3 : 0.25);
  const auto free = isocost::bottleneck_cuts(P, s, 0);
  std::int64_t empty = 0;
  for (std::size_t j = 0; j < s.size(); ++j) empty += free[j + 1] == free[j] ? 1 : 0;
  ASSERT_GT(empty, 0);
  const auto b = isocost::bottleneck_cuts(P, s, 1);
  double worst = 0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    ASSERT_GT(b[j + 1], b[j]) << "part " << j;
    worst = std::max(
        worst, (P[static_cast<std::size_t>(b[j + 1])] - P[static_cast<std::size_t>(b[j])]) / s[j]);
  }
  EXPECT_TRUE(nonempty_feasible(P, s, worst));
  EXPECT_FALSE(nonempty_feasible(P, s, worst * (1 - 1e-9)));
}

// ---------------------------------------------------------------------------
// partition_optimal(): every field of the Partition, by hand.

TEST(PartitionOptimal, HandComputedCases) {
  using isocost::CutMethod;
  using isocost::CutTermination;
  using isocost::Speeds;
  // Weights 1 2 3 4 (TT = 10, prefix sums 0 1 3 6 10) on 2 equal ranks: the
  // cut after 2 cells leaves 3 | 7, after 3 cells 6 | 4, so the optimum is 3
  // with bottleneck 6. Target TT/2 = 5, residual 6 − 5 = 1; L_E = 100 −
  // (max − mean)/mean·100 = 100 − (6 − 5)/5·100 = 80 (Swartz eq. 3).
  const auto model = isocost::discrete_model({1, 2, 3, 4});
  isocost::PartitionOptions options;
  options.cut.method = CutMethod::secant;  // kept, not used: no root is found
  const isocost::Partition p = isocost::partition_optimal(model, Speeds::uniform(2), options);
  EXPECT_EQ(p.cuts, (std::vector<double>{0, 3, 4}));
  EXPECT_EQ(p.cost, (std::vector<double>{6, 4}));
  EXPECT_EQ(p.time, (std::vector<double>{6, 4}));
  EXPECT_EQ(p.total_cost, 10);
  EXPECT_EQ(p.speed_total, 2);
  EXPECT_EQ(p.max_abs_residual, 1);
  EXPECT_NEAR(p.predicted_le, 80, 1e-12);
  EXPECT_EQ(p.max_iterations, 0);
  EXPECT_EQ(p.fallbacks, 0u);
  EXPECT_TRUE(p.integer);
  EXPECT_TRUE(p.converged());
  EXPECT_EQ(p.options.cut.method, CutMethod::secant);
  ASSERT_EQ(p.summaries.size(), 3u);
  const double targets[] = {0, 5, 10}, residuals[] = {0, 1, 0};
  const CutTermination ends[] = {CutTermination::exact, CutTermination::optimum,
                                 CutTermination::exact};
  for (std::size_t i = 0; i < 3; ++i) {
    const isocost::CutSummary& c = p.summaries[i];
    EXPECT_EQ(c.x, p.cuts[i]) << i;
    EXPECT_EQ(c.target, targets[i]) << i;
    EXPECT_EQ(c.residual, residuals[i]) << i;
    EXPECT_EQ(c.termination, ends[i]) << i;
    EXPECT_EQ(c.used, CutMethod::binary_search) << i;
    EXPECT_EQ(c.iterations + c.evaluations + c.bisection_steps, 0) << i;
  }

  // Speeds 1, 3 (targets 0, 2.5, 10): a cut after 1 cell costs max(1/1,
  // 9/3) = 3, after 2 cells max(3/1, 7/3) = 3, after 3 cells 6; of the two
  // optimal splits the later one: cut 2, times 3 and 7/3, residual 3 − 2.5.
  // L_E: mean 8/3, so 100 − (3 − 8/3)/(8/3)·100 = 87.5. At lo = 10 (cells
  // numbered from 10) the cuts move with it.
  const isocost::Partition q = isocost::partition_optimal(isocost::discrete_model({1, 2, 3, 4}, 10),
                                                          Speeds::from_values({1, 3}));
  EXPECT_EQ(q.cuts, (std::vector<double>{10, 12, 14}));
  EXPECT_EQ(q.cost, (std::vector<double>{3, 7}));
  EXPECT_EQ(q.time[0], 3);
  EXPECT_EQ(q.time[1], 7.0 / 3);
  EXPECT_EQ(q.summaries[1].target, 2.5);
  EXPECT_EQ(q.summaries[1].residual, 0.5);
  EXPECT_EQ(q.summaries[1].termination, CutTermination::optimum);
  EXPECT_NEAR(q.predicted_le, 87.5, 1e-12);

  // 5 5 9 6 3 8 2 2 into 3 (prefix sums 0 5 10 19 25 28 36 38 40): the
  // nearest-target cuts 2, 5 leave 18 on the middle part; the optimum
  // 0|2|4|8 leaves 10, 15, 15, and no later split reaches 15 (cut 1 at 3
  // costs 19, cut 2 at 5 leaves 18).
  const auto w8 = isocost::discrete_model({5, 5, 9, 6, 3, 8, 2, 2});
  EXPECT_EQ(isocost::partition(w8, Speeds::uniform(3)).cuts, (std::vector<double>{0, 2, 5, 8}));
  const isocost::Partition r = isocost::partition_optimal(w8, Speeds::uniform(3));
  EXPECT_EQ(r.cuts, (std::vector<double>{0, 2, 4, 8}));
  EXPECT_EQ(r.cost, (std::vector<double>{10, 15, 15}));
  EXPECT_NEAR(r.summaries[1].residual, 10 - 40.0 / 3, 1e-12);
  EXPECT_NEAR(r.summaries[2].residual, 25 - 80.0 / 3, 1e-12);

  // Equal weights land on the targets: every cut exact, residual 0.
  const isocost::Partition e =
      isocost::partition_optimal(isocost::discrete_model({2, 2, 2, 2}), Speeds::uniform(2));
  EXPECT_EQ(e.cuts, (std::vector<double>{0, 2, 4}));
  for (const auto& c : e.summaries) EXPECT_EQ(c.termination, CutTermination::exact);
  EXPECT_EQ(e.max_abs_residual, 0);
}

TEST(PartitionOptimal, IsBottleneckCutsAndTheBruteForceOptimum) {
  // Small random weights and speeds, more ranks than cells included: the
  // cuts are bottleneck_cuts() with non-empty parts when P <= n, and the
  // heaviest part the brute-force optimum.
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9), m = 1 + static_cast<int>(rng() % 6);
    std::vector<double> w(static_cast<std::size_t>(n)), s(static_cast<std::size_t>(m));
    for (auto& v : w) v = static_cast<double>(1 + rng() % 9);
    for (auto& v : s) v = trial % 2 ? 0.5 + static_cast<double>(rng() % 4) : 1.0;
    const auto p =
        isocost::partition_optimal(isocost::discrete_model(w), isocost::Speeds::from_values(s));
    std::vector<double> P{0};
    for (double v : w) P.push_back(P.back() + v);
    const auto b = isocost::bottleneck_cuts(P, s, n >= m ? 1 : 0);
    ASSERT_EQ(p.cuts.size(), b.size());
    for (std::size_t i = 0; i < b.size(); ++i)
      ASSERT_EQ(p.cuts[i], static_cast<double>(b[i])) << "trial " << trial;
    const double worst = *std::max_element(p.time.begin(), p.time.end());
    ASSERT_NEAR(worst, brute_bottleneck(w, s, n >= m ? 1 : 0), 1e-12 * worst) << "trial " << trial;
  }
}

TEST(PartitionOptimal, BadInputIsAnError) {
  const auto speeds = isocost::Speeds::uniform(2);
  expect_error([&] { isocost::partition_optimal(isocost::power_model(1, 2, 0, 0, 9), speeds); },
               {"partition_optimal", "expected a discrete model", "got a power model"});
  isocost::PartitionOptions bad;
  bad.cut.max_iterations = 0;
  expect_error(
      [&] {
        isocost::partition_optimal(isocost::discrete_model({1, 2}), speeds, bad);
      },
      {"max_iterations"});
}

}  // namespace
