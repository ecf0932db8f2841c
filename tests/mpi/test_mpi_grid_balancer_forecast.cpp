// The GridBalancer's forecast (`predict`) under mpiexec -n N (CTest: N = 2,
// 3, 4, 8): examples/moving_peak's load with exact, synthetic loads, so every
// number is deterministic. Each cell carries its global index; at the end
// each rank's box must hold exactly its cells, x fastest.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::BalancePolicy;
using isocost::mpi::GridBalancer;
using isocost::mpi::GridBalancerOptions;
using isocost::testing::rank_of;
using isocost::testing::size_of;

constexpr std::int64_t nx = 480, ny = 240;
constexpr int steps = 200;

// moving_peak's cost of a cell in column i at `step`: 1 + round(9·exp(−z²))
// units, z = (x − step/steps)/0.05, in ms (large enough that every plan pays).
double column_cost(std::int64_t i, int step) {
  const double x = (static_cast<double>(i) + 0.5) / nx;
  const double z = (x - static_cast<double>(step) / steps) / 0.05;
  return 1e-3 * (1 + static_cast<int>(9 * std::exp(-z * z) + 0.5));
}

// Mean efficiency T_avg/T_max over the run: checked every 2 steps on the
// px x 1 or px x 2 process grid moving_peak uses, global plans from the
// loads, `predict` as given; `balance` false: the cells stay put.
double run_peak(bool balance, int predict) {
  const int P = size_of(), rank = rank_of();
  const int px = P >= 4 ? 4 : P, py = P / px;
  const isocost::GridShape shape{2, {nx, ny, 1}};
  const auto even = isocost::grid_density(std::vector<double>(nx * ny, 1.0), shape);
  const auto start = isocost::decompose(even, {{px, py}, {0, 1}}, isocost::Speeds::uniform(P));
  GridBalancerOptions o;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.steps_ahead = 100;
  o.pipeline.monitor.window = 2;
  o.pipeline.trigger.every = 2;
  o.pipeline.trigger.drift_threshold = 0.1;
  o.pipeline.policy = BalancePolicy::global;
  o.predict = predict;
  GridBalancer b(MPI_COMM_WORLD, shape, start, o);
  auto fill = [&](const isocost::mpi::CellBox& box) {
    std::vector<double> v;
    for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
      for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i) v.push_back(double(i + nx * j));
    return v;
  };
  std::vector<double> data = fill(b.boxes().boxes[static_cast<std::size_t>(rank)]);
  double mean = 0;
  std::vector<double> column(nx);
  for (int s = 0; s < steps; ++s) {
    for (std::int64_t i = 0; i < nx; ++i) column[static_cast<std::size_t>(i)] = column_cost(i, s);
    std::vector<double> t(static_cast<std::size_t>(P), 0.0);
    for (int r = 0; r < P; ++r) {
      const auto& box = b.boxes().boxes[static_cast<std::size_t>(r)];
      double c = 0;
      for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i) c += column[static_cast<std::size_t>(i)];
      t[static_cast<std::size_t>(r)] = c * static_cast<double>(box.hi[1] - box.lo[1]);
    }
    mean += std::accumulate(t.begin(), t.end(), 0.0) / P / *std::max_element(t.begin(), t.end());
    b.record_step(t[static_cast<std::size_t>(rank)]);
    if (balance) b.maybe_rebalance(data);
  }
  EXPECT_EQ(data, fill(b.boxes().boxes[static_cast<std::size_t>(rank)]))
      << "cells lost or misplaced";
  return mean / steps;
}

TEST(GridBalancerForecast, FollowsTheMovingPeak) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const double none = run_peak(false, 0), lagging = run_peak(true, 0), ahead = run_peak(true, 8);
  if (rank_of() == 0)
    std::printf("[ peak ] P = %d: mean efficiency %.3f none, %.3f balanced, %.3f predicted\n", P,
                none, lagging, ahead);
  // On 2 ranks (2x1) the one cut sits inside the peak, as on the moving bell
  // (test_mpi_block_balancer_convergence.cpp): 0.898 balanced, 0.873 ahead.
  // From 3 ranks: 0.826 -> 0.935 (3x1), 0.790 -> 0.931 (4x1 and 4x2).
  // A serial replica of this loop gives 0.872 with equal weights over six
  // plans and no plan below the trigger, 0.907 planning at every check.
  if (P >= 3) {
    EXPECT_GT(ahead, lagging + 0.05);
    EXPECT_GE(ahead, 0.92);  // the goal is 0.90 on 4x1 and 4x2
  }
}

}  // namespace
