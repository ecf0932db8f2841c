// Shared by the partition_weights tests: the weight patterns
// (integer-valued, so prefix sums are exact), four layouts of the cells
// over the ranks, some with empty ranks, and the comparison of to_partition()
// with the serial Partition.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mpi_test_support.hpp"

#include <gtest/gtest.h>

#include "isocost/mpi/partition_weights.hpp"
#include "isocost/partition.hpp"

namespace isocost::testing {

// The patterns, integer-valued.
inline std::vector<double> pattern(const std::string& name, std::int64_t n) {
  std::vector<double> w(static_cast<std::size_t>(n));
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    double& v = w[static_cast<std::size_t>(i)];
    if (name == "sieve") v = std::floor(1 + 40 * std::pow(x, 1.5));
    if (name == "bell") v = 1 + std::round(9 * std::exp(-std::pow((x - 0.4) / 0.05, 2)));
    if (name == "spikes") v = u(g) < 0.01 ? 100 : 1;
    if (name == "step") v = x < 0.7 ? 1 : 5;
    if (name == "zeros") v = i % 7 < 4 ? 0 : static_cast<double>(i % 5);
  }
  return w;
}

// This rank's slice [lo, hi) of n cells under one of four layouts.
inline std::pair<std::int64_t, std::int64_t> slice(int layout, std::int64_t n) {
  const int R = size_of(), r = rank_of();
  std::vector<std::int64_t> len(static_cast<std::size_t>(R), 0);
  if (layout == 0)  // equal
    for (int q = 0; q < R; ++q) len[static_cast<std::size_t>(q)] = n * (q + 1) / R - n * q / R;
  if (layout == 1) len.back() = n;  // all on the last rank
  if (layout == 2) {                // rank 1 and the last rank empty
    std::vector<int> holders;
    for (int q = 0; q < R; ++q)
      if ((q != 1 && q != R - 1) || R <= 2) holders.push_back(q);
    if (R == 2) holders = {0};
    for (std::size_t j = 0; j < holders.size(); ++j)
      len[static_cast<std::size_t>(holders[j])] =
          n * static_cast<std::int64_t>(j + 1) / static_cast<std::int64_t>(holders.size()) -
          n * static_cast<std::int64_t>(j) / static_cast<std::int64_t>(holders.size());
  }
  if (layout == 3) {  // growing with the rank: (q + 1) shares
    const std::int64_t shares = static_cast<std::int64_t>(R) * (R + 1) / 2;
    std::int64_t at = 0;
    for (int q = 0; q < R; ++q) {
      const std::int64_t next = n * (static_cast<std::int64_t>(q + 1) * (q + 2) / 2) / shares;
      len[static_cast<std::size_t>(q)] = next - at;
      at = next;
    }
  }
  std::int64_t lo = 0;
  for (int q = 0; q < r; ++q) lo += len[static_cast<std::size_t>(q)];
  return {lo, lo + len[static_cast<std::size_t>(r)]};
}

inline std::vector<double> mine(const std::vector<double>& all, int layout) {
  const auto [lo, hi] = slice(layout, static_cast<std::int64_t>(all.size()));
  return {all.begin() + lo, all.begin() + hi};
}

/// P speeds: all 1, or (uneven) 1, 2, 3, 1, 2, 3, ….
inline Speeds speeds_for(int P, bool uneven) {
  std::vector<double> sv;
  for (int k = 0; k < P; ++k) sv.push_back(1 + k % 3);
  return uneven ? Speeds::from_values(sv) : Speeds::uniform(P);
}

/// to_partition(got, s) against the serial Partition `want` (partition() or
/// partition_optimal() of the gathered weights), field for field but for how
/// the cuts were found (the serial search counts its iterations).
inline void expect_same_partition(const mpi::WeightsPartition& got, const Partition& want,
                                  const Speeds& s) {
  const Partition p = mpi::to_partition(got, s);
  ASSERT_EQ(p.cuts, want.cuts);
  EXPECT_EQ(p.cost, want.cost);
  EXPECT_EQ(p.time, want.time);
  EXPECT_EQ(p.total_cost, want.total_cost);
  EXPECT_EQ(p.speed_total, want.speed_total);
  EXPECT_EQ(p.max_abs_residual, want.max_abs_residual);
  EXPECT_EQ(p.predicted_le, want.predicted_le);
  EXPECT_TRUE(p.integer && p.converged());
  ASSERT_EQ(p.summaries.size(), want.summaries.size());
  for (std::size_t k = 0; k < p.summaries.size(); ++k) {
    EXPECT_EQ(p.summaries[k].target, want.summaries[k].target) << "cut " << k;
    EXPECT_EQ(p.summaries[k].residual, want.summaries[k].residual) << "cut " << k;
    EXPECT_EQ(p.summaries[k].termination, want.summaries[k].termination) << "cut " << k;
  }
}

}  // namespace isocost::testing
