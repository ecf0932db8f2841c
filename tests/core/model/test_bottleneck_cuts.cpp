// Tests for bottleneck_cuts() (isocost/partition.hpp): the chains-on-chains
// optimum against brute force over every contiguous split, with and without
// minimum widths and speeds, and non-empty parts at scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "brute_bottleneck.hpp"
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

}  // namespace
