// Tests for isocost/shift.hpp, 1-D: closed forms and exact load moves of
// boundary shifts (caps, conflicts, order and errors: test_shift_cuts_limits.cpp), by root finding
// on the load-unit cumulative function L (the cost model rescaled on each old range r by ratio_r =
// cost_r / load_r). Expected values are closed forms derived here:
//   - t(x) = x: L is piecewise linear through (x_r, Λ_r), Λ_r the cumulative
//     measured loads, so a boundary lands where that polyline has dropped by
//     the transfer;
//   - t(x) = x²: on range r, L* = Λ_r + (x² − x_r²)/ratio_r, so
//     x_new = √(x_r² + (L* − Λ_r)·ratio_r);
//   - pooled conflicts (t = x, ratio 1): the pool meets at the mean of its
//     members' targets, spread by the minimum widths.
#include "isocost/shift.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "core/diffusion/shift_test_support.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::CostModel;
using isocost::imbalance;
using isocost::ShiftOptions;
using isocost::testing::expect_error;

using isocost::testing::after_transfers;
using isocost::testing::chain_transfers;
using isocost::testing::costs;
using isocost::testing::expect_relative;
using isocost::testing::kInf;
using isocost::testing::v;

// ---------------------------------------------------------------------------
// Closed forms

TEST(ShiftCuts, LinearModelMovesTheBoundaryByTheTransfer) {
  const auto t = isocost::power_model(1, 1, 0, 0, 10);  // t(x) = x
  // Loads equal to the model's costs: ratio 1, transfer 1 moves 6 → 5.
  auto r = isocost::shift_cuts(t, v({0, 6, 10}), v({1}), v({6, 4}));
  EXPECT_DOUBLE_EQ(r.ratio[0], 1);
  EXPECT_DOUBLE_EQ(r.cuts[1], 5);
  EXPECT_EQ(r.cuts[0], 0);
  EXPECT_EQ(r.cuts[2], 10);
  EXPECT_DOUBLE_EQ(r.requested[0], 1);
  EXPECT_DOUBLE_EQ(r.applied[0], 1);
  EXPECT_DOUBLE_EQ(r.cost_moved[0], 1);
  EXPECT_FALSE(r.capped[0]);
  EXPECT_FALSE(r.conflict[0]);
  EXPECT_DOUBLE_EQ(r.cost[0], 5);
  EXPECT_DOUBLE_EQ(r.cost[1], 5);
  EXPECT_DOUBLE_EQ(r.predicted_load[0], 5);
  EXPECT_DOUBLE_EQ(r.predicted_load[1], 5);

  // Cuts at 5 but rank 0 measured 6 and rank 1 4 (rank 0 is slower than the
  // model says): the transfer of 1 load unit is 5/6 of rank 0's model cost.
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({1}), v({6, 4}));
  EXPECT_DOUBLE_EQ(r.ratio[0], 5.0 / 6);
  EXPECT_DOUBLE_EQ(r.ratio[1], 5.0 / 4);
  EXPECT_NEAR(r.cuts[1], 5 - 5.0 / 6, 1e-13);
  EXPECT_NEAR(r.applied[0], 1, 1e-13);
  EXPECT_NEAR(r.cost_moved[0], 5.0 / 6, 1e-13);
  EXPECT_NEAR(r.predicted_load[0], 5, 1e-13);
  EXPECT_NEAR(r.predicted_load[1], 5, 1e-13);
  // Rank 1 sends instead (negative transfer): the ground is rank 1's, at its
  // ratio, 5/6 with loads (4, 6).
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({-2}), v({4, 6}));
  EXPECT_NEAR(r.cuts[1], 5 + 2 * 5.0 / 6, 1e-13);
  EXPECT_NEAR(r.applied[0], -2, 1e-13);
  EXPECT_NEAR(r.cost_moved[0], -2 * 5.0 / 6, 1e-13);
  EXPECT_NEAR(r.predicted_load[0], 6, 1e-13);

  // Seconds instead of model units: the same loads ×3, the same transfer ×3.
  r = isocost::shift_cuts(t, v({0, 6, 10}), v({3}), v({18, 12}));
  EXPECT_DOUBLE_EQ(r.cuts[1], 5);
  EXPECT_DOUBLE_EQ(r.applied[0], 3);

  // The whole chain from diffuse(): least squares balances 2 ranks exactly.
  isocost::DiffusionOptions lsq;
  lsq.scheme = isocost::DiffusionScheme::least_squares;
  const auto T = chain_transfers(v({6, 4}), lsq);
  EXPECT_NEAR(T[0], 1, 1e-14);
  EXPECT_NEAR(isocost::shift_cuts(t, v({0, 6, 10}), T, v({6, 4})).cuts[1], 5, 1e-13);
}

TEST(ShiftCuts, QuadraticModelHasTheSquareRootClosedForm) {
  const auto t = isocost::power_model(1, 2, 0, 0, 10);  // t(x) = x²
  // Ranks cost 25 and 75 in the model, both measured 50: r_0 = 1/2, r_1 = 3/2.
  const auto cuts = v({0, 5, 10});
  ShiftOptions exact;
  exact.cut.cost_tolerance = 0;  // solve to the x tolerance: machine precision
  auto r = isocost::shift_cuts(t, cuts, v({4}), v({50, 50}), exact);
  EXPECT_NEAR(r.cuts[1], std::sqrt(25.0 - 4 * 0.5), 1e-14);
  EXPECT_EQ(r.requested[0], 4);
  EXPECT_NEAR(r.applied[0], 4, 1e-12);
  EXPECT_NEAR(r.cost_moved[0], 2, 1e-12);
  r = isocost::shift_cuts(t, cuts, v({-6}), v({50, 50}), exact);
  EXPECT_NEAR(r.cuts[1], std::sqrt(25.0 + 6 * 1.5), 1e-14);
  EXPECT_NEAR(r.cost_moved[0], -9, 1e-12);
  EXPECT_NEAR(r.predicted_load[0], 56, 1e-12);
  EXPECT_NEAR(r.predicted_load[1], 44, 1e-12);
  // A chain of four, every boundary at once; range 2 is entered from both
  // sides without the boundaries meeting.
  const auto c4 = v({0, 2, 4, 7, 10});
  const auto loads = v({4, 12, 33, 51});  // the model's costs 4, 12, 33, 51: ratio 1
  r = isocost::shift_cuts(t, c4, v({-1, -2, 3}), loads, exact);
  EXPECT_NEAR(r.cuts[1], std::sqrt(4.0 + 1), 1e-14);
  EXPECT_NEAR(r.cuts[2], std::sqrt(16.0 + 2), 1e-14);
  EXPECT_NEAR(r.cuts[3], std::sqrt(49.0 - 3), 1e-14);
  EXPECT_EQ(r.capped_count(), 0);
  EXPECT_EQ(r.conflict_count(), 0);
  expect_relative(r.predicted_load, v({5, 13, 28, 54}), 1e-13);
}

TEST(ShiftCuts, LinearModelFlowsThroughSeveralRanges) {
  const auto t = isocost::power_model(1, 1, 0, 0, 10);  // t(x) = x
  // Old ranges [0, 4], [4, 6], [6, 10], measured 8, 1, 2: ratios 1/2, 2, 2,
  // and L rises 0 → 8 → 9 → 11 at the cuts.
  const auto cuts = v({0, 4, 6, 10});
  const auto loads = v({8, 1, 2});
  // Rank 0 sends 4 to rank 1, which passes 3 (more than its own 1) to rank 2.
  // Boundary 1: L* = 8 − 4 = 4, in range 0: x = 4·(1/2) = 2. Boundary 2:
  // L* = 9 − 3 = 6, past range 1 (L 8..9) into range 0: x = 6·(1/2) = 3.
  auto r = isocost::shift_cuts(t, cuts, v({4, 3}), loads);
  EXPECT_NEAR(r.cuts[1], 2, 1e-14);
  EXPECT_NEAR(r.cuts[2], 3, 1e-14);
  EXPECT_EQ(r.capped_count() + r.conflict_count(), 0);
  expect_relative(r.applied, v({4, 3}), 1e-14);
  expect_relative(r.cost_moved, v({2, 3}), 1e-14);         // boundary 2: 2 of range 1, 1 of range 0
  expect_relative(r.predicted_load, v({4, 2, 5}), 1e-14);  // 8 − 4, 1 + 4 − 3, 2 + 3
  // (The sender's ratio alone would have converted rank 1's 3 into 3·2 = 6 of
  // model cost and put boundary 2 at 6 − 6 = 0, the end: the ratio of the
  // ground crossed matters.)
  // The other way: rank 1 sends 1.5 to rank 0 and receives 1 from rank 2.
  // Boundary 1: L* = 9.5, past range 1 into range 2: x = 6 + 0.5·2 = 7.
  // Boundary 2: L* = 10, x = 6 + 1·2 = 8.
  r = isocost::shift_cuts(t, cuts, v({-1.5, -1}), loads);
  EXPECT_NEAR(r.cuts[1], 7, 1e-14);
  EXPECT_NEAR(r.cuts[2], 8, 1e-14);
  EXPECT_EQ(r.capped_count() + r.conflict_count(), 0);
  expect_relative(r.applied, v({-1.5, -1}), 1e-14);
  expect_relative(r.cost_moved, v({-3, -2}), 1e-14);
  expect_relative(r.predicted_load, v({9.5, 0.5, 1}), 1e-14);
}

TEST(ShiftCuts, QuadraticModelFlowsThroughSeveralRanges) {
  const auto t = isocost::power_model(1, 2, 0, 0, 10);  // t(x) = x²
  // Ranges [0, 4], [4, 6], [6, 10] cost 16, 20, 64; measured 8, 10, 16:
  // ratios 2, 2, 4; Λ = 0, 8, 18, 34.
  const auto cuts = v({0, 4, 6, 10});
  const auto loads = v({8, 10, 16});
  ShiftOptions exact;
  exact.cut.cost_tolerance = 0;
  // Rank 0 sends 3, rank 1 passes 12 (more than its 10). Boundary 1:
  // L* = 5, x² = 5·2 = 10. Boundary 2: L* = 6, in range 0: x² = 6·2 = 12.
  auto r = isocost::shift_cuts(t, cuts, v({3, 12}), loads, exact);
  EXPECT_NEAR(r.cuts[1], std::sqrt(10.0), 1e-14);
  EXPECT_NEAR(r.cuts[2], std::sqrt(12.0), 1e-14);
  EXPECT_EQ(r.capped_count() + r.conflict_count(), 0);
  expect_relative(r.cost_moved, v({6, 24}), 1e-13);
  expect_relative(r.predicted_load, v({5, 1, 28}), 1e-13);
  // Rightwards: rank 1 sends 14 to rank 0 and gets 5 from rank 2. Boundary 1:
  // L* = 22, in range 2 (Λ 18..34): x² = 36 + (22 − 18)·4 = 52. Boundary 2:
  // L* = 23: x² = 36 + 5·4 = 56.
  r = isocost::shift_cuts(t, cuts, v({-14, -5}), loads, exact);
  EXPECT_NEAR(r.cuts[1], std::sqrt(52.0), 1e-14);
  EXPECT_NEAR(r.cuts[2], std::sqrt(56.0), 1e-14);
  EXPECT_EQ(r.capped_count() + r.conflict_count(), 0);
  expect_relative(r.applied, v({-14, -5}), 1e-13);
  expect_relative(r.predicted_load, v({22, 1, 11}), 1e-13);
}

TEST(ShiftCuts, DiffusionThroughARankLandsOnTheDiffusedLoads) {
  // Loads 3, 1, 1, 1, 1 on equal ranges: rank 1 receives about 1.53 from
  // rank 0 and passes about 1.09 on, more than its own load, so boundary 2
  // must cross range 1 into range 0.
  const auto cuts = v({0, 2, 4, 6, 8, 10});
  const auto loads = v({3, 1, 1, 1, 1});
  // The truth the measured loads describe with t = x: uniform work in each
  // range, i.e. the polyline through (x_r, cumulative load).
  const auto truth_linear =
      isocost::tabulated_model(cuts, v({0, 3, 4, 5, 6, 7}), isocost::Interpolation::linear);
  // With t = x²: work in range r proportional to x², scaled to its load.
  const auto truth_quadratic = isocost::analytic_model(
      [&](double x) {
        const int r = std::min(4, static_cast<int>(x / 2));
        const double lam = r == 0 ? 0 : 2.0 + r;  // 0, 3, 4, 5, 6
        const double c = (2.0 * r + 2) * (2.0 * r + 2) - 4.0 * r * r;
        return lam + (x * x - 4.0 * r * r) * loads[r] / c;
      },
      nullptr, 0, 10);
  const isocost::DiffusionScheme schemes[] = {isocost::DiffusionScheme::crank_nicolson,
                                              isocost::DiffusionScheme::implicit,
                                              isocost::DiffusionScheme::least_squares};
  for (auto scheme : schemes) {
    isocost::DiffusionOptions o;
    o.scheme = scheme;
    SCOPED_TRACE(std::string(isocost::to_string(scheme)));
    const auto d = isocost::diffuse(isocost::mesh_graph({5}, false), loads, o);
    const auto T = chain_transfers(loads, o);
    EXPECT_GT(T[1], 1);  // more than rank 1 holds
    expect_relative(after_transfers(loads, T), d.loads, 1e-14);
    ShiftOptions exact;
    exact.cut.cost_tolerance = 0;
    for (const auto& [model, truth] :
         {std::pair{isocost::power_model(1, 1, 0, 0, 10), truth_linear},
          std::pair{isocost::power_model(1, 2, 0, 0, 10), truth_quadratic}}) {
      SCOPED_TRACE(model.describe());
      const auto r = isocost::shift_cuts(model, cuts, T, loads, exact);
      EXPECT_EQ(r.capped_count(), 0);
      EXPECT_EQ(r.conflict_count(), 0);
      EXPECT_LT(r.cuts[2], cuts[1]);  // crossed range 1
      expect_relative(r.predicted_load, d.loads, 1e-12);
      expect_relative(r.applied, T, 1e-12);
      // What the truth says of the new ranges: the diffused loads.
      expect_relative(costs(truth, r.cuts), d.loads, 1e-12);
      EXPECT_NEAR(imbalance(r.predicted_load), d.final_imbalance, 1e-12);
      EXPECT_NEAR(std::accumulate(r.cost.begin(), r.cost.end(), 0.0), model.total(),
                  1e-12 * model.total());
    }
  }
  // With Crank–Nicolson (the default) the imbalance falls from 1.14 to within α.
  const auto d = isocost::diffuse(isocost::mesh_graph({5}, false), loads);
  EXPECT_NEAR(d.initial_imbalance, 3 / 1.4 - 1, 1e-14);
  const auto r = isocost::shift_cuts(isocost::power_model(1, 1, 0, 0, 10), cuts,
                                     chain_transfers(loads), loads);
  EXPECT_LE(imbalance(r.predicted_load), 0.05 + 1e-12);
}

TEST(ShiftCuts, ZeroTransferLeavesTheBoundaryBitForBit) {
  const auto t = isocost::sieve_model({}, 6, 1e6);
  const auto cuts = v({6, 1234.5, 98765.4321, 1e6});
  const auto r = isocost::shift_cuts(t, cuts, v({0, 0}), v({1, 2, 3}));
  EXPECT_EQ(r.cuts, cuts);
  EXPECT_EQ(r.applied, v({0, 0}));
  EXPECT_EQ(r.cost_moved, v({0, 0}));
  EXPECT_EQ(r.iterations, std::vector<int>({0, 0}));
  // The predicted loads are the measured ones, up to cost/(cost/load).
  expect_relative(r.predicted_load, v({1, 2, 3}), 1e-15);
}

// ---------------------------------------------------------------------------
// "Boundary shifts move exactly the transferred load" (issue 5, Tests)

TEST(ShiftCuts, BoundaryShiftsMoveExactlyTheTransferredLoad) {
  std::mt19937 rng(20240605);
  std::uniform_real_distribution<double> u(0, 1);
  int crossed = 0;
  for (int trial = 0; trial < 60; ++trial) {
    CostModel t = isocost::power_model(1, 1, 0, 0, 1);
    switch (trial % 4) {
      case 0:
        t = isocost::sieve_model({.A = 1, .p = 1 + u(rng), .c = 1.08366, .q = 1}, 10, 1e7);
        break;
      case 1:
        t = isocost::power_model(0.5 + u(rng), 0.3 + 3 * u(rng), 0, 0, 100);
        break;
      case 2:  // a positive-coefficient cubic: increasing on [0, 5]
        t = isocost::polynomial_model({0, u(rng), u(rng), u(rng)}, 0, 5);
        break;
      default:
        t = isocost::exponential_model(1, 0.5 + 2 * u(rng), 0, 3);
        break;
    }
    const int P = 2 + trial % 7;
    std::vector<double> speeds(static_cast<std::size_t>(P));
    for (auto& s : speeds) s = 0.5 + u(rng);
    const auto part = isocost::partition(t, isocost::Speeds::from_values(speeds));
    std::vector<double> loads(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i) loads[i] = part.cost[i] * (0.5 + u(rng));  // seconds
    // Transfers of up to 1.5 × the sender's load, so that boundaries often
    // cross ranges, drawn again until every rank keeps a positive load (no
    // conflict) and nothing reaches an end (no cap).
    std::vector<double> T(static_cast<std::size_t>(P) - 1);
    for (int attempt = 0;; ++attempt) {
      for (int b = 0; b + 1 < P; ++b) {
        const int sender = u(rng) < 0.5 ? b : b + 1;
        T[b] = (sender == b ? 1 : -1) * 1.5 * loads[sender] * u(rng);
      }
      const auto after = after_transfers(loads, T);
      if (*std::min_element(after.begin(), after.end()) > 0.01 * loads[0]) break;
      ASSERT_LT(attempt, 1000);
    }
    // The expected targets, by hand: Λ_r the cumulative loads, ratio_r =
    // cost_r / load_r; L* = Λ_k − T in range r: t* = t(x_r) + (L* − Λ_r)·ratio_r.
    std::vector<double> lam{0};
    for (int i = 0; i < P; ++i) lam.push_back(lam.back() + loads[i]);
    const auto r = isocost::shift_cuts(t, part.cuts, T, loads);
    SCOPED_TRACE(t.describe() + ", P = " + std::to_string(P));
    EXPECT_TRUE(r.converged());
    EXPECT_EQ(r.capped_count(), 0);
    EXPECT_EQ(r.conflict_count(), 0);
    for (int k = 1; k < P; ++k) {
      const double target = lam[k] - T[k - 1];
      int range = 0;
      while (range + 1 < P && lam[range + 1] < target) ++range;
      crossed += range != k && range != k - 1;
      const double ratio = part.cost[range] / loads[range];
      const double t_star = t.cost(part.cuts[range]) + (target - lam[range]) * ratio;
      EXPECT_LE(std::abs(t.cost(r.cuts[k]) - t_star), 1e-12 * t.total()) << "boundary " << k;
      EXPECT_EQ(r.cost_moved[k - 1], t.cost(part.cuts[k]) - t.cost(r.cuts[k]));
      EXPECT_NEAR(r.applied[k - 1], T[k - 1], 1e-12 * t.total() / ratio + 1e-13 * lam[P]);
    }
    // The new loads are the old ones minus what left plus what came in.
    const auto want = after_transfers(loads, T);
    for (int i = 0; i < P; ++i) EXPECT_NEAR(r.predicted_load[i], want[i], 1e-9 * lam[P]);
    EXPECT_NEAR(std::accumulate(r.cost.begin(), r.cost.end(), 0.0), t.total(), 1e-12 * t.total());
  }
  EXPECT_GT(crossed, 10);  // the draws do exercise several ranges
}

TEST(ShiftCuts, DiscreteModelsKeepIntegerCuts) {
  // Weights 1..10: prefix sums 0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55.
  std::vector<double> w(10);
  std::iota(w.begin(), w.end(), 1.0);
  const auto t = isocost::discrete_model(w);
  // Cut at 7 (cost 28 | 27); rank 0 gives 7.5 (ratio 1): the target 20.5 lies
  // between the prefix sums 15 (at 5) and 21 (at 6), nearer 21: cut 6.
  auto r = isocost::shift_cuts(t, v({0, 7, 10}), v({7.5}), v({28, 27}));
  EXPECT_EQ(r.cuts[1], 6);
  EXPECT_EQ(r.applied[0], 7);
  EXPECT_EQ(r.cost_moved[0], 7);
  EXPECT_EQ(r.predicted_load, v({21, 34}));
  // Through a range: cuts 0, 3, 6, 10 cost 6, 15, 34; loads 12, 15, 34 give
  // ratios 1/2, 1, 1 and Λ = 0, 12, 27, 61. Rank 0 sends 9: L* = 3, t* = 1.5,
  // nearest prefix sum 1 (|0.5| against 3's 1.5): cut 1. Rank 1 passes 20:
  // L* = 7 in range 0, t* = 3.5: prefix sum 3 at cut 2.
  r = isocost::shift_cuts(t, v({0, 3, 6, 10}), v({9, 20}), v({12, 15, 34}));
  EXPECT_EQ(r.cuts, v({0, 1, 2, 10}));
  EXPECT_EQ(r.applied, v({12 - 2, 27 - 6}));  // L(1) = 1/(1/2), L(2) = 3/(1/2)
  EXPECT_EQ(r.cost_moved, v({5, 18}));
  EXPECT_EQ(r.predicted_load, v({2, 4, 55}));
  EXPECT_EQ(r.cost, v({1, 2, 52}));
  expect_error(
      [&] {
        isocost::shift_cuts(t, v({0, 6.5, 10}), v({1}), v({1, 1}));
      },
      {"cut 1", "6.5", "integer"});
  // max_move caps in whole cells: 0.3·7 = 2.1 → 2 cells at most.
  ShiftOptions o;
  o.max_move = 0.3;
  const auto c = isocost::shift_cuts(t, v({0, 7, 10}), v({27}), v({28, 27}), o);
  EXPECT_EQ(c.cuts[1], 5);
  EXPECT_TRUE(c.capped[0]);
  // max_move = 1.5 from cut 7 into [0, 7): at most ⌊10.5⌋ = 10 cells, so up to the end.
  o.max_move = 1.5;
  EXPECT_EQ(isocost::shift_cuts(t, v({0, 7, 10}), v({27}), v({28, 27}), o).cuts[1], 1);
}

}  // namespace
