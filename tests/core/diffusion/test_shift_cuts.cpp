// Tests for isocost/shift.hpp, 1-D: boundary shifts by root finding on the
// load-unit cumulative function L (the cost model rescaled on each old range
// r by ratio_r = cost_r / load_r). Expected values are closed forms derived
// here:
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

std::vector<double> v(std::initializer_list<double> x) { return std::vector<double>(x); }

// Per-rank model costs of a 1-D partition.
std::vector<double> costs(const CostModel& t, const std::vector<double>& cuts) {
  std::vector<double> c;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) c.push_back(t.cost(cuts[i], cuts[i + 1]));
  return c;
}

// The transfers of the chain of P ranks, edge b = (b, b + 1).
std::vector<double> chain_transfers(const std::vector<double>& loads,
                                    const isocost::DiffusionOptions& o = {}) {
  const auto g = isocost::mesh_graph({static_cast<int>(loads.size())}, false);
  const auto d = isocost::diffuse(g, loads, o);
  std::vector<double> t(loads.size() - 1);
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    EXPECT_EQ(g.edges[e].j, g.edges[e].i + 1);
    t[g.edges[e].i] = d.transfers[e];
  }
  return t;
}

// The rank loads diffusion leaves: load_i − out + in.
std::vector<double> after_transfers(const std::vector<double>& loads,
                                    const std::vector<double>& T) {
  auto u = loads;
  for (std::size_t b = 0; b < T.size(); ++b) {
    u[b] -= T[b];
    u[b + 1] += T[b];
  }
  return u;
}

void expect_relative(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::abs(want[i])) << "index " << i;
}

const double kInf = std::numeric_limits<double>::infinity();

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

// ---------------------------------------------------------------------------
// The max_move cap and ordering

TEST(ShiftCuts, MaxMoveCapsHowFarABoundaryMoves) {
  const auto t = isocost::power_model(1, 1, 0, 0, 10);
  ShiftOptions o;
  o.max_move = 0.2;  // at most 0.2 × 5 = 1 into rank 0's range [0, 5)
  auto r = isocost::shift_cuts(t, v({0, 5, 10}), v({3}), v({5, 5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4);
  EXPECT_TRUE(r.capped[0]);
  EXPECT_DOUBLE_EQ(r.requested[0], 3);
  EXPECT_DOUBLE_EQ(r.applied[0], 1);
  // The cap is the width of the range moved INTO: rightwards into [5, 7.5).
  r = isocost::shift_cuts(t, v({0, 5, 7.5}), v({-3}), v({5, 2.5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 5.5);
  EXPECT_TRUE(r.capped[0]);
  // Within the cap nothing changes.
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({0.5}), v({5, 5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4.5);
  EXPECT_FALSE(r.capped[0]);
  // No cap: a transfer beyond everything to the left stops at the end.
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({7}), v({5, 5}));
  EXPECT_EQ(r.cuts[1], 0);
  EXPECT_TRUE(r.capped[0]);
  EXPECT_DOUBLE_EQ(r.applied[0], 5);
  // max_move = 1 with min_width keeps the range open.
  o.max_move = 1;
  o.min_width = 0.5;
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({7}), v({5, 5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 0.5);
  EXPECT_TRUE(r.capped[0]);

  // Equal ranges of width 2 with ratio 1 (loads 2): rank 1 passes 1.5 to
  // rank 2, which passes 3 to rank 3. Boundary 3 (at 6) targets 3, across
  // range 2 into range 1; boundary 2 targets 2.5.
  const auto cuts = v({0, 2, 4, 6, 8, 10});
  const auto loads = v({2, 2, 2, 2, 2});
  const auto T = v({0, 1.5, 3, 0});
  r = isocost::shift_cuts(t, cuts, T, loads);  // no cap
  EXPECT_DOUBLE_EQ(r.cuts[2], 2.5);
  EXPECT_DOUBLE_EQ(r.cuts[3], 3);
  EXPECT_EQ(r.capped_count(), 0);
  o = ShiftOptions{};
  o.max_move = 2;  // at most 2 × 2 = 4: not binding
  r = isocost::shift_cuts(t, cuts, T, loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[3], 3);
  EXPECT_EQ(r.capped_count(), 0);
  o.max_move = 1.2;  // at most 2.4: boundary 3 stops at 3.6, past range 2's start
  r = isocost::shift_cuts(t, cuts, T, loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[3], 3.6);
  EXPECT_DOUBLE_EQ(r.cuts[2], 2.5);
  EXPECT_TRUE(r.capped[2]);
  EXPECT_FALSE(r.capped[1]);
  o.max_move = 1;  // inside range 2: boundary 3 stops at its start, 4
  r = isocost::shift_cuts(t, cuts, T, loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[3], 4);
  EXPECT_DOUBLE_EQ(r.applied[2], 2);
  EXPECT_TRUE(r.capped[2]);

  // The example of loads 3, 1, 1, 1, 1 with max_move = 0.5: a boundary moves at most
  // 1 (half of the width 2 it moves into), so boundaries 1 to 3, which want
  // more, stop at 1, 3 and 5; boundary 4 (wants 0.67) is free.
  const auto l5 = v({3, 1, 1, 1, 1});
  const auto T5 = chain_transfers(l5);
  o.max_move = 0.5;
  r = isocost::shift_cuts(t, cuts, T5, l5, o);
  EXPECT_EQ(r.cuts[1], 1);
  EXPECT_EQ(r.cuts[2], 3);
  EXPECT_EQ(r.cuts[3], 5);
  EXPECT_EQ(r.capped, std::vector<bool>({true, true, true, false}));
  EXPECT_NEAR(r.applied[3], T5[3], 1e-14);
  EXPECT_NEAR(r.cuts[4], 8 - T5[3] * 2, 1e-14);  // range 4 has ratio 2
  // L(1) = 1.5 (ratio 2/3), L(3) = 3.5, L(5) = 4.5, L(cut 4) = 6 − T5[3].
  expect_relative(r.predicted_load, v({1.5, 2, 1, 1.5 - T5[3], 1 + T5[3]}), 1e-14);
  for (std::size_t k = 1; k < 5; ++k) EXPECT_LE(std::abs(r.cuts[k] - cuts[k]), 1);
}

TEST(ShiftCuts, ConflictsPoolAtTheMeetingPoint) {
  const auto t = isocost::power_model(1, 1, 0, 0, 9);  // ratio 1 below: L = x
  const auto cuts = v({0, 3, 6, 9});
  const auto loads = v({3, 3, 3});
  // Rank 1 sends 3 to each side but owns only 3: targets L* = 6 and 3 cross;
  // the pool meets at L = (6 + 3)/2 = 4.5.
  auto r = isocost::shift_cuts(t, cuts, v({-3, 3}), loads);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4.5);
  EXPECT_DOUBLE_EQ(r.cuts[2], 4.5);
  EXPECT_TRUE(r.conflict[0] && r.conflict[1]);
  EXPECT_DOUBLE_EQ(r.applied[0], -1.5);
  EXPECT_DOUBLE_EQ(r.applied[1], 1.5);
  EXPECT_DOUBLE_EQ(r.predicted_load[1], 0);
  // 4 to the left, 2 to the right: targets 7 and 4 meet at 5.5.
  r = isocost::shift_cuts(t, cuts, v({-4, 2}), loads);
  EXPECT_DOUBLE_EQ(r.cuts[1], 5.5);
  EXPECT_DOUBLE_EQ(r.cuts[2], 5.5);
  // With a minimum width the range keeps it, centred on the meeting point.
  ShiftOptions o;
  o.min_width = 1;
  r = isocost::shift_cuts(t, cuts, v({-3, 3}), loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4);
  EXPECT_DOUBLE_EQ(r.cuts[2], 5);
  // Transfers the range can afford do not conflict.
  r = isocost::shift_cuts(t, cuts, v({-1, 1.5}), loads);
  EXPECT_EQ(r.conflict_count(), 0);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4);
  EXPECT_DOUBLE_EQ(r.cuts[2], 4.5);
  // ... unless min_width forbids the 0.5 left: then they pool and meet at
  // (4 + 4.5)/2 = 4.25, spread to 3.75 and 4.75.
  r = isocost::shift_cuts(t, cuts, v({-1, 1.5}), loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 3.75);
  EXPECT_DOUBLE_EQ(r.cuts[2], 4.75);
  EXPECT_EQ(r.conflict_count(), 2);

  // Pools merge until they are in order: on [0, 12] with ratio 1, targets
  // 6, 5, 2 (transfers −3, 1, 7): boundaries 1 and 2 pool at 5.5, which is
  // still above 2, so all three meet at (6 + 5 + 2)/3 = 13/3.
  const auto t12 = isocost::power_model(1, 1, 0, 0, 12);
  const auto c12 = v({0, 3, 6, 9, 12});
  const auto l12 = v({3, 3, 3, 3});
  r = isocost::shift_cuts(t12, c12, v({-3, 1, 7}), l12);
  for (int k = 1; k <= 3; ++k) EXPECT_NEAR(r.cuts[k], 13.0 / 3, 1e-14) << k;
  EXPECT_EQ(r.conflict_count(), 3);
  // Minimum width 1: boundary 3 first stops at 3 (capped: ranks 0 to 2 need
  // 1 each), so the pool meets at (6 + 5 + 3)/3 = 14/3, spread by the gaps
  // G = 1, 2, 3 around their mean 2.
  r = isocost::shift_cuts(t12, c12, v({-3, 1, 7}), l12, o);
  EXPECT_TRUE(r.capped[2]);
  EXPECT_NEAR(r.cuts[1], 11.0 / 3, 1e-14);
  EXPECT_NEAR(r.cuts[2], 14.0 / 3, 1e-14);
  EXPECT_NEAR(r.cuts[3], 17.0 / 3, 1e-14);
  expect_relative(r.predicted_load, v({11.0 / 3, 1, 1, 12 - 17.0 / 3}), 1e-14);

  // A discrete model pools on whole cells: weights 1 (L = x with loads =
  // widths); targets 6 and 3 meet at 4.5, whose nearest grid lines 4 and 5
  // tie: the smaller, 4, as solve_cut() breaks ties. With min_width 1 the
  // spread 4 ∓ 0.5 rounds (half away from zero, in z = x − G) to 4 and 5.
  const auto d = isocost::discrete_model(std::vector<double>(9, 1.0));
  r = isocost::shift_cuts(d, cuts, v({-3, 3}), loads);
  EXPECT_EQ(r.cuts, v({0, 4, 4, 9}));
  r = isocost::shift_cuts(d, cuts, v({-3, 3}), loads, o);
  EXPECT_EQ(r.cuts, v({0, 4, 5, 9}));
}

TEST(ShiftCuts, OrderIsPreservedWhateverTheTransfers) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const auto smooth = isocost::power_model(1, 1.7, 0, 0, 50);
  std::vector<double> w(50);
  for (auto& x : w) x = u(rng) < 0.2 ? 0 : u(rng);  // zero runs: flat stretches
  const auto cells = isocost::discrete_model(w);
  int conflicts = 0, capped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const bool discrete = trial % 4 == 3;
    const CostModel& t = discrete ? cells : smooth;
    const int P = 2 + trial % 9;
    std::vector<double> cuts{0};
    for (int i = 1; i < P; ++i) cuts.push_back(discrete ? std::floor(50 * u(rng)) : 50 * u(rng));
    cuts.push_back(50);
    std::sort(cuts.begin(), cuts.end());
    std::vector<double> loads, T;
    for (int i = 0; i < P; ++i) loads.push_back(u(rng) < 0.1 ? 0 : 10 * u(rng));
    loads[0] += 1;
    for (int b = 0; b + 1 < P; ++b) T.push_back(40 * (u(rng) - 0.5));  // often too much
    ShiftOptions o;
    switch (trial % 3) {
      case 0:
        break;  // no cap
      case 1:
        o.max_move = 0.3 + 0.7 * u(rng);
        break;
      default:
        o.max_move = 1 + 2 * u(rng);
        break;
    }
    o.min_width = trial % 2 ? 0 : 3 * u(rng);
    const auto r = isocost::shift_cuts(t, cuts, T, loads, o);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_EQ(r.cuts.size(), cuts.size());
    EXPECT_EQ(r.cuts.front(), 0);
    EXPECT_EQ(r.cuts.back(), 50);
    conflicts += r.conflict_count();
    capped += r.capped_count();
    const double mw = discrete ? std::ceil(o.min_width) : o.min_width;
    for (int i = 0; i < P; ++i) {
      const double w_old = cuts[i + 1] - cuts[i], w_new = r.cuts[i + 1] - r.cuts[i];
      EXPECT_GE(w_new, 0) << "rank " << i;
      // At least min_width where the old range was that wide, and never
      // narrower than before otherwise.
      EXPECT_GE(w_new, std::min(mw, w_old) - 1e-12) << "rank " << i;
      if (discrete) {
        EXPECT_EQ(r.cuts[i], std::floor(r.cuts[i]));
      }
    }
    for (int b = 0; b + 1 < P; ++b) {
      const double x = cuts[b + 1], y = r.cuts[b + 1];
      // max_move <= 1: every boundary stays within max_move × the width it moves into,
      // pooled or not. max_move > 1: those not pooled.
      if (o.max_move <= 1 || (std::isfinite(o.max_move) && !r.conflict[b])) {
        const double wd = y < x ? x - cuts[b] : cuts[b + 2] - x;
        EXPECT_LE(std::abs(y - x), o.max_move * wd * (1 + 1e-12) + 1e-12) << "boundary " << b;
      }
      if (r.conflict[b]) continue;
      // Not pooled: never the wrong way, never more than asked (on cells, by
      // at most the rounding to the nearest grid line: half a cell, whose
      // load is at most its weight / the smallest ratio).
      EXPECT_GE(r.applied[b] * T[b], 0) << "boundary " << b;
      const double slack = discrete ? *std::max_element(w.begin(), w.end()) /
                                          *std::min_element(r.ratio.begin(), r.ratio.end())
                                    : 1e-9;
      EXPECT_LE(std::abs(r.applied[b]), std::abs(T[b]) * (1 + 1e-12) + slack) << "boundary " << b;
    }
    // Conservation: the new ranges hold the whole cost and the whole L.
    double total_L = 0;
    const auto c_old = costs(t, cuts);
    const double ratio_global = t.cost(50) / std::accumulate(loads.begin(), loads.end(), 0.0);
    for (int i = 0; i < P; ++i)
      total_L += c_old[i] / (loads[i] > 0 && c_old[i] > 0 ? c_old[i] / loads[i] : ratio_global);
    EXPECT_NEAR(std::accumulate(r.predicted_load.begin(), r.predicted_load.end(), 0.0), total_L,
                1e-12 * total_L);
    EXPECT_NEAR(std::accumulate(r.cost.begin(), r.cost.end(), 0.0), t.total(), 1e-12 * t.total());
  }
  EXPECT_GT(conflicts, 50);
  EXPECT_GT(capped, 50);
}

// ---------------------------------------------------------------------------
// The loop: measure, diffuse, shift, measure again.

TEST(ShiftCuts, MeasureDiffuseShiftReducesTheImbalance) {
  const int P = 8;
  auto linear_cuts = [&](double lo, double hi) {
    std::vector<double> c;
    for (int i = 0; i <= P; ++i) c.push_back(lo + (hi - lo) * i / P);
    return c;
  };
  // Measured loads: seconds = 2 × the true cost.
  auto measure = [](const CostModel& truth, const std::vector<double>& c) {
    auto l = costs(truth, c);
    for (auto& x : l) x *= 2;
    return l;
  };
  const isocost::DiffusionScheme schemes[] = {isocost::DiffusionScheme::crank_nicolson,
                                              isocost::DiffusionScheme::implicit,
                                              isocost::DiffusionScheme::least_squares};
  for (auto scheme : schemes) {
    isocost::DiffusionOptions o;
    o.scheme = scheme;
    const bool lsq = scheme == isocost::DiffusionScheme::least_squares;
    SCOPED_TRACE(std::string(isocost::to_string(scheme)));
    // With the true model, one round lands exactly where diffusion balanced
    // the loads, a mild imbalance (t = x² on [1, 2] from the linear
    // distribution: costs rise from 0.27 to 0.48) as a strong one (t = x³ on
    // [1, 4]: rank 7 holds 10× rank 0, and work crosses several ranges).
    for (const auto& truth :
         {isocost::power_model(1, 2, 0, 1, 2), isocost::power_model(1, 3, 0, 1, 4)}) {
      SCOPED_TRACE(truth.describe());
      const auto cuts = linear_cuts(truth.lo(), truth.hi());
      const auto loads = measure(truth, cuts);
      const auto g = isocost::mesh_graph({P}, false);
      const auto d = isocost::diffuse(g, loads, o);
      const auto r = isocost::shift_cuts(truth, cuts, chain_transfers(loads, o), loads);
      EXPECT_EQ(r.capped_count(), 0);
      EXPECT_EQ(r.conflict_count(), 0);
      const auto after = measure(truth, r.cuts);
      for (int i = 0; i < P; ++i) {
        EXPECT_NEAR(after[i], d.loads[i], 1e-10 * d.loads[i]);
        EXPECT_NEAR(r.predicted_load[i], d.loads[i], 1e-10 * d.loads[i]);
      }
      EXPECT_GT(imbalance(loads), 0.25);
      EXPECT_LE(imbalance(after), (lsq ? 0 : o.alpha) + 1e-9);
    }
    {
      // The strong case with a wrong model (linear), which the measured
      // ratios correct round by round; and with the cap max_move = 1 (a
      // boundary stays inside the range it enters), which needs several
      // rounds even with the true model. The imbalance never grows and
      // reaches α within a few rounds.
      const auto truth = isocost::power_model(1, 3, 0, 1, 4);
      ShiftOptions capped;
      capped.max_move = 1;
      for (const auto& [model, so] :
           {std::pair{isocost::power_model(1, 1, 0, 1, 4), ShiftOptions{}},
            std::pair{truth, capped}}) {
        SCOPED_TRACE(model.describe() + ", max_move " + std::to_string(so.max_move));
        auto c = linear_cuts(1, 4);
        double last = imbalance(measure(truth, c));
        EXPECT_GT(last, 1);
        int rounds = 0, caps = 0;
        while (last > o.alpha * (1 + 1e-9) && rounds < 20) {
          const auto l = measure(truth, c);
          const auto r = isocost::shift_cuts(model, c, chain_transfers(l, o), l, so);
          caps += r.capped_count();
          c = r.cuts;
          const double now = imbalance(measure(truth, c));
          EXPECT_LE(now, last) << "round " << rounds;
          last = now;
          ++rounds;
        }
        if (std::isfinite(so.max_move)) {
          EXPECT_GT(caps, 0);
        }
        EXPECT_LE(last, o.alpha * (1 + 1e-9));
        EXPECT_LE(rounds, 8);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Bad input

TEST(ShiftCuts, BadInput) {
  const auto t = isocost::power_model(1, 1, 0, 0, 10);
  const auto cuts = v({0, 5, 10});
  const double nan = std::nan("");
  expect_error([&] { isocost::shift_cuts(t, v({0}), v({}), v({1})); }, {"at least 2 cuts"});
  expect_error(
      [&] {
        isocost::shift_cuts(t, cuts, v({1, 2}), v({1, 1}));
      },
      {"2 transfers", "2 ranks"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1, 1})); }, {"3 loads", "2 ranks"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, -2})); }, {"rank 1", "-2"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({nan, 1})); }, {"rank 0", "nan"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({nan}), v({1, 1})); }, {"transfer 0", "nan"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({INFINITY}), v({1, 1})); }, {"transfer 0"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({0, 0})); }, {"all loads are zero"});
  expect_error(
      [&] {
        isocost::shift_cuts(t, v({0, 11, 10}), v({1}), v({1, 1}));
      },
      {"cut 1", "11", "[0, 10]"});
  expect_error(
      [&] {
        isocost::shift_cuts(t, v({0, 6, 5, 10}), v({1, 1}), v({1, 1, 1}));
      },
      {"cut 2", "nondecreasing"});
  expect_error([&] { isocost::shift_cuts(t, v({0, nan, 10}), v({1}), v({1, 1})); }, {"cut 1"});
  ShiftOptions o;
  EXPECT_TRUE(std::isinf(o.max_move));  // the default: no cap
  o.max_move = 0;
  expect_error(
      [&] {
        isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o);
      },
      {"max_move must be +inf or a finite number > 0", "got 0"});
  o.max_move = -0.5;
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o); }, {"max_move", "-0.5"});
  o.max_move = nan;
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o); }, {"max_move", "nan"});
  // Any max_move > 0 is a cap, above 1 too: 1.5 × 5 = 7.5 > the 3 asked.
  o.max_move = 1.5;
  EXPECT_DOUBLE_EQ(isocost::shift_cuts(t, cuts, v({3}), v({5, 5}), o).cuts[1], 2);
  o.max_move = kInf;
  EXPECT_DOUBLE_EQ(isocost::shift_cuts(t, cuts, v({3}), v({5, 5}), o).cuts[1], 2);
  o.max_move = 1;
  o.min_width = -1;
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o); }, {"min_width", "-1"});
  // One rank: nothing to shift, and that is fine.
  EXPECT_EQ(isocost::shift_cuts(t, v({0, 10}), v({}), v({3})).cuts, v({0, 10}));
}

}  // namespace
