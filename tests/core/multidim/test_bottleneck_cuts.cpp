// Tests for bottleneck_cuts() (isocost/decompose.hpp): the chains-on-chains
// optimum against brute force over every contiguous split, with and without
// minimum widths and speeds, and non-empty parts at scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "brute_bottleneck.hpp"
#include "isocost/decompose.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::testing::brute_bottleneck;
using isocost::testing::expect_error;

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

}  // namespace
