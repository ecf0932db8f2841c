// The BlockBalancer's repartition under mpiexec -n N (CTest: N = 2, 3, 4, 8):
// convergence on static loads from per-rank loads alone (the history of
// earlier rounds), and the forecast for a moving load (`predict`). Loads are
// synthetic and exact (block_loop.hpp), so every number is deterministic.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "block_loop.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::Strategy;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::testing::LoopRun;
using isocost::testing::moving_bell;
using isocost::testing::quiet_options;
using isocost::testing::rank_of;
using isocost::testing::run_loop;
using isocost::testing::size_of;
using isocost::testing::step_loads;
using isocost::testing::Weight;

// The static shapes the issue names, on N elements of [0, 1), in seconds.
Weight static_shape(const std::string& name, std::int64_t N) {
  std::vector<double> w(static_cast<std::size_t>(N));
  std::mt19937 g(7);
  std::uniform_real_distribution<> u(0, 1);
  for (std::int64_t i = 0; i < N; ++i) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(N);
    double v = 1;
    if (name == "narrow peak") v = 1 + 50 * std::exp(-std::pow((x - 0.63) / 0.02, 2));
    if (name == "step") v = x < 0.7 ? 1 : 5;
    if (name == "spikes") v = u(g) < 0.01 ? 10 : 1;
    w[static_cast<std::size_t>(i)] = 1e-3 * v;  // large enough that every plan pays
  }
  return [w](std::int64_t i, int) { return w[static_cast<std::size_t>(i)]; };
}

// Rebalance at every step (window 1, a trigger that always fires, no cost):
// max/avg after each rebalance, as measured in the step that follows it.
TEST(BlockBalancerConvergence, StaticLoadsWithinFourRebalances) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 1 << 14;
  BlockBalancerOptions o = quiet_options();
  o.pipeline.trigger.every = 1;
  o.pipeline.trigger.drift_threshold = 1e-9;
  for (const char* name : {"narrow peak", "step", "spikes"}) {
    const Weight w = static_shape(name, N);
    const int steps = 9;
    const LoopRun r = run_loop(o, N, steps, w, true);
    // Every step's max/avg, from the distributions the balancer chose.
    std::vector<double> ratio;
    BlockDistribution d = BlockDistribution::uniform(N, P);
    std::string trace;
    for (const auto& e : r.calls) {
      const auto t = step_loads(d, w, 0);
      double max = 0, sum = 0;
      for (double v : t) max = std::max(max, v), sum += v;
      ratio.push_back(max / (sum / P));
      trace += std::to_string(ratio.back()) + " ";
      if (e.action != Strategy::none && e.migration) d = e.to;
    }
    SCOPED_TRACE(std::string(name) + ", P = " + std::to_string(P) + ": " + trace);
    if (rank_of() == 0) std::printf("[ static ] %s, P = %d: %s\n", name, P, trace.c_str());
    // ratio[k] is measured on the distribution after k rebalances. A narrow
    // peak on 2 ranks needs a fifth (the serial test says why).
    const int within = std::string(name) == "narrow peak" && P == 2 ? 5 : 4;
    int first = -1;
    for (std::size_t k = 0; k < ratio.size(); ++k)
      if (first < 0 && ratio[k] <= 1.02) first = static_cast<int>(k);
    ASSERT_GE(first, 0);
    EXPECT_LE(first, within);
    for (std::size_t k = 2; k < ratio.size(); ++k)
      EXPECT_LE(ratio[k], std::max(1.02, 1.02 * ratio[k - 1])) << "after rebalance " << k;
  }
}

// Issue #24: default options (a check every 10 steps on a window of 10,
// Pearce's choice, the comm model and the decision time measured) on static
// top-hat peaks holding 60 % of the cost, loads fed exactly with
// record_step(). Below the 10 % drift the profit trigger keeps planning
// while a rebalance pays; the history's edges find the peak. At 3 ranks and
// more: max/avg <= 1.02 within 5 rebalances, never above 1.03 after, and no
// plan after the third raises T_max by more than 2 % (the second and third
// may cut on the far side of a peak the earlier cuts only bracket). On 2
// ranks the one cut must land inside the peak, found by halving: within 8.
// tests/core/pipeline/test_rebalance_peaks.cpp runs the same decisions
// serially on 48 positions.
TEST(BlockBalancerConvergence, StaticPeaksWithDefaultOptions) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 16384;  // a cell of the peak: 0.6 % of a share at 8 ranks
  const int positions = 12, steps = 150;
  int histogram[10] = {};
  for (double width : {0.1, 0.05})
    for (int k = 0; k < positions; ++k) {
      // 1 ms a cell, the peak's cells more; prefix sums for the step times.
      const double cells = width * static_cast<double>(N);
      const double start = (static_cast<double>(N) - cells) * (k + 0.5) / positions;
      const double height = 0.6 * (static_cast<double>(N) - cells) / (cells * 0.4);
      std::vector<double> prefix(static_cast<std::size_t>(N) + 1, 0.0);
      for (std::int64_t i = 0; i < N; ++i) {
        const double a = std::max<double>(static_cast<double>(i), start);
        const double b = std::min<double>(static_cast<double>(i) + 1, start + cells);
        prefix[static_cast<std::size_t>(i) + 1] =
            prefix[static_cast<std::size_t>(i)] + 1e-3 * (1 + (b > a ? height * (b - a) : 0));
      }
      const double avg = prefix.back() / P;
      isocost::mpi::BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P));
      std::vector<double> ratio;  // max/avg on the equal split, then after each rebalance
      std::vector<double> t(static_cast<std::size_t>(P));
      for (int s = 0; s < steps; ++s) {
        const auto& d = b.distribution();
        for (int r = 0; r < P; ++r)
          t[static_cast<std::size_t>(r)] = prefix[static_cast<std::size_t>(d.end(r))] -
                                           prefix[static_cast<std::size_t>(d.begin(r))];
        if (ratio.empty()) ratio.push_back(*std::max_element(t.begin(), t.end()) / avg);
        b.record_step(t[static_cast<std::size_t>(rank_of())]);
        const auto plan = b.decide();
        if (!plan.moves()) continue;
        b.apply(plan);
        double max = 0;
        for (int r = 0; r < P; ++r)
          max = std::max(max, prefix[static_cast<std::size_t>(plan.to.end(r))] -
                                  prefix[static_cast<std::size_t>(plan.to.begin(r))]);
        ratio.push_back(max / avg);
      }
      std::string trace;
      int within = -1, last_worse = 0;
      bool relapsed = false;
      for (std::size_t j = 0; j < ratio.size(); ++j) {
        trace += std::to_string(ratio[j]) + " ";
        if (within < 0 && ratio[j] <= 1.02) within = static_cast<int>(j);
        if (within >= 0 && ratio[j] > 1.03) relapsed = true;
        if (j >= 2 && ratio[j] > 1.02 * ratio[j - 1]) last_worse = static_cast<int>(j);
      }
      SCOPED_TRACE("P = " + std::to_string(P) + ", width " + std::to_string(width) + ", start " +
                   std::to_string(start) + ": " + trace);
      ASSERT_GE(within, 0);
      ++histogram[std::min(within, 9)];
      EXPECT_LE(within, P == 2 ? 8 : 5);
      EXPECT_FALSE(relapsed);
      if (P > 2) {
        EXPECT_LE(last_worse, 3);
      }
    }
  if (rank_of() == 0) {
    std::printf("[ peaks ] P = %d, defaults: max/avg <= 1.02 after 0..9 rebalances:", P);
    for (int n : histogram) std::printf(" %d", n);
    std::printf("\n");
  }
}

// Eijkhout §4's moving bell, as in test_mpi_block_balancer, checked every 2
// steps: the forecast keeps up with the load where the plan from the last
// window lags it.
TEST(BlockBalancerConvergence, PredictionFollowsAMovingBell) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 512 * P;
  const int steps = 160;
  const Weight bell = moving_bell(N, steps, 0.1, 0.9, 0.05);
  BlockBalancerOptions o = quiet_options();
  o.pipeline.trigger.every = 2;
  o.pipeline.trigger.drift_threshold = 0.02;
  o.pipeline.monitor.window = 2;
  const LoopRun none = run_loop(o, N, steps, bell, false);
  const LoopRun lagging = run_loop(o, N, steps, bell, true);
  o.predict = 8;
  const LoopRun ahead = run_loop(o, N, steps, bell, true);
  int forecasts = 0, following = 0;
  for (const auto& e : ahead.checks) {
    forecasts += e.rebalance.forecast ? 1 : 0;
    // A check that plans below the trigger says so: it follows a forecast.
    if (e.following) {
      ++following;
      EXPECT_FALSE(e.check.fired);
      EXPECT_NE(e.brief_report().find("planned below the trigger"), std::string::npos);
    }
  }
  for (const auto& e : lagging.checks) EXPECT_FALSE(e.following);
  if (rank_of() == 0)
    std::printf("[ bell ] P = %d: mean efficiency %.3f none, %.3f balanced, %.3f predicted\n", P,
                none.mean_efficiency, lagging.mean_efficiency, ahead.mean_efficiency);
  EXPECT_GT(forecasts, 0);
  if (P > 1) {
    EXPECT_GT(following, 0);
  }
  // On 2 ranks the one cut sits inside the bell and does not move along a
  // line: the forecast is no help there (block_balancer.hpp says so).
  if (P >= 3) {
    EXPECT_GT(ahead.mean_efficiency, lagging.mean_efficiency + 0.03);
  }
  // The goal, at 4 and 8 ranks (0.944, 0.916), and at 3 (0.935):
  // only because the forecast plans at every check while it moves the data,
  // even below the trigger (without that 0.923, 0.904, 0.889 with equal
  // weights), and, on 3 ranks, because older plans weigh less (0.913 with
  // equal weights).
  if (P >= 3) {
    EXPECT_GE(ahead.mean_efficiency, 0.90);
  }
  if (P == 3 || P == 4) {
    EXPECT_GE(ahead.mean_efficiency, 0.93);
  }
}

}  // namespace
