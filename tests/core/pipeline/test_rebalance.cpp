// Tests for isocost/rebalance.hpp. Expected values are derived by hand:
//   - Global, linear interpolation: offsets 0,25,50,75,100 with loads 1,3,5,7
//     (rho = x) give cumulative points 0,1,4,9,16 at 0,25,50,75,100. Targets
//     4, 8, 12: x = 50; 50 + 25·4/5 = 70; 75 + 25·3/7 = 85.71, and among the
//     integers t(85) = 11.8 and t(86) = 12.08, so 86 (nearest in cost).
//   - Speeds 1 and 3, loads 2 and 1 on 0,50,100: speed-1 costs 2 and 3,
//     cumulative 2 at 50 and 5 at 100; rank 0's share is 1/4 of 5 = 1.25,
//     x = 31.25, and t(31) = 1.24, t(32) = 1.28, so 31.
//   - Diffusion with least squares on the chain 0,20,…,100, loads 3,1,1,1,1
//     (avg 1.4): T = 1.6, 1.2, 0.8, 0.4 through the four boundaries; the
//     load-corrected index L(x) = 0.15x below 20 and 3 + (x − 20)/20 above;
//     L(x') = L(x) − T gives 9.33, 18.67, 44, 72, rounded 9, 19, 44, 72, with
//     predicted loads L differences 1.35, 1.5, 1.35, 1.4, 1.4; 55 elements
//     change owner, 21 of them into rank 2 ([19, 44) keeps only [40, 44)).
#include "isocost/rebalance.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <variant>

#include "support/expect_error.hpp"

namespace {

using isocost::DiffusiveRebalanceOptions;
using isocost::GlobalRebalanceOptions;
using isocost::Speeds;
using isocost::testing::expect_error;
using Offsets = std::vector<std::int64_t>;

TEST(RebalanceGlobal, LinearInterpolationClosedForm) {
  GlobalRebalanceOptions o;
  o.interpolation = isocost::Interpolation::linear;
  const auto r = isocost::rebalance_global(Offsets{0, 25, 50, 75, 100},
                                           std::vector<double>{1, 3, 5, 7}, Speeds::uniform(4), o);
  EXPECT_EQ(r.offsets, (Offsets{0, 50, 70, 86, 100}));
  EXPECT_EQ(r.method(), isocost::PlanMethod::global);
  // The options given come back, as the method's alternative.
  ASSERT_TRUE(std::holds_alternative<GlobalRebalanceOptions>(r.options));
  EXPECT_EQ(std::get<GlobalRebalanceOptions>(r.options).interpolation,
            isocost::Interpolation::linear);
  EXPECT_TRUE(r.converged());
  EXPECT_NEAR(r.measured_imbalance, 7.0 / 4 - 1, 1e-15);
  // Predicted costs on the interpolant: 4, 4, 12.08 − 8, 16 − 12.08.
  ASSERT_EQ(r.predicted_time.size(), 4u);
  EXPECT_NEAR(r.predicted_time[0], 4, 1e-12);
  EXPECT_NEAR(r.predicted_time[1], 4, 1e-12);
  EXPECT_NEAR(r.predicted_time[2], 4.08, 1e-12);
  EXPECT_NEAR(r.predicted_time[3], 3.92, 1e-12);
  EXPECT_NEAR(r.predicted_imbalance, 4.08 / 4 - 1, 1e-12);
  // Old [0,25) [25,50) [50,75) [75,100) → new [0,50) [50,70) [70,86) [86,100):
  // rank 0 receives 25, rank 1 20, rank 2 11, rank 3 0.
  EXPECT_EQ(r.elements_moved, 56);
  EXPECT_EQ(r.max_elements_received, 25);
}

// History: the current round (0,50,100; loads 1, 3) gives cumulative 1 at
// 50; an earlier round cut at 75 adds a point. Loads 2, 2 (total 4, as now)
// put 2 at 75, so the half-way target 2 lands exactly on 75 (67 without it).
// Loads 0.5, 3.5 say [0, 75) holds 0.5, less than the current [0, 50) alone
// (1): they cannot both hold. Proportional fitting keeps the current sums
// exactly and, sweep after sweep, scales [50, 75) by 0.5/(1 + b)·3/3.5 < 0.43
// toward 0, so the merged cumulative is 1 at 50 and at 75, and the target 2
// lies a third of the way from 75 (1) to 100 (4): 83.3, so 83.
TEST(RebalanceGlobal, HistoryAddsPointsAndIsMadeMonotone) {
  GlobalRebalanceOptions o;
  o.interpolation = isocost::Interpolation::linear;
  const Offsets now{0, 50, 100};
  const std::vector<double> loads{1, 3};
  const Speeds two = Speeds::uniform(2);
  using History = std::vector<isocost::BlockRound>;
  EXPECT_EQ(isocost::rebalance_global(now, loads, two, o).offsets, (Offsets{0, 67, 100}));
  History h{{{0, 75, 100}, {2, 2}}};
  EXPECT_EQ(isocost::rebalance_global(now, loads, two, o, h).offsets, (Offsets{0, 75, 100}));
  h = {{{0, 75, 100}, {0.5, 3.5}}};
  // t(75) = 0.5 lies below the current t(50) = 1 by 0.5 > 3 % of the total 4:
  // by default that round has drifted and is left out.
  EXPECT_EQ(isocost::rebalance_global(now, loads, two, o, h).offsets, (Offsets{0, 67, 100}));
  EXPECT_EQ(isocost::rebalance_global(now, loads, two, o, h).history_dropped, 1);
  // Missed by about |1 − 0.5| + |3 − 3.5| = 1 = 25 % of the total 4: kept
  // with a tolerance above that, and then merged as above.
  o.history_tolerance = 0.3;
  EXPECT_EQ(isocost::rebalance_global(now, loads, two, o, h).history_used, 1);
  EXPECT_EQ(isocost::rebalance_global(now, loads, two, o, h).offsets, (Offsets{0, 83, 100}));
  h = {{{0, 75, 99}, {0.5, 3.5}}};
  expect_error([&] { isocost::rebalance_global(now, loads, two, o, h); },
               {"history round 0: expected 2 ranks and 100 elements, got 2 ranks and 99 elements"});
}

TEST(RebalanceGlobal, SpeedsConvertTimesToCost) {
  const Speeds speeds = Speeds::from_values({1, 3});
  const auto r = isocost::rebalance_global(Offsets{0, 50, 100}, std::vector<double>{2, 1}, speeds);
  EXPECT_EQ(r.offsets, (Offsets{0, 31, 100}));
  // Equal measured times are balanced already, whatever the speeds.
  const auto same =
      isocost::rebalance_global(Offsets{0, 50, 100}, std::vector<double>{1.5, 1.5}, speeds);
  EXPECT_EQ(same.offsets, (Offsets{0, 50, 100}));
  EXPECT_EQ(same.elements_moved, 0);
}

TEST(RebalanceGlobal, PchipRecoversASmoothDensity) {
  // rho(x) = x on [0, 10000): each rank's load is the integral over its range.
  const int P = 16;
  const std::int64_t N = 10000;
  Offsets o(P + 1);
  std::vector<double> loads(P);
  for (int r = 0; r <= P; ++r) o[r] = N * r / P;
  for (int r = 0; r < P; ++r)
    loads[r] = (double(o[r + 1]) * double(o[r + 1]) - double(o[r]) * double(o[r])) / 2;
  const auto g = isocost::rebalance_global(o, loads, Speeds::uniform(P));
  for (int r = 0; r <= P; ++r) {
    const double exact = double(N) * std::sqrt(double(r) / P);  // t = x²/2
    EXPECT_NEAR(double(g.offsets[r]), exact, 0.002 * N) << r;
  }
  EXPECT_LT(g.predicted_imbalance, 0.01);
  EXPECT_GT(g.measured_imbalance, 0.9);
}

TEST(RebalanceGlobal, EmptyAndIdleRangesAndTheModelHook) {
  // Rank 1 is empty (its load is ignored) and rank 2 idle (load 0).
  GlobalRebalanceOptions linear;
  linear.interpolation = isocost::Interpolation::linear;
  const Speeds four = Speeds::uniform(4);
  const auto r = isocost::rebalance_global(Offsets{0, 40, 40, 80, 120},
                                           std::vector<double>{4, 7, 0, 4}, four, linear);
  // Cumulative: 4 at 40, 4 at 80, 8 at 120; targets 2, 4, 6: 20, 40 (the
  // first x reaching 4, ties to the smaller), 100.
  EXPECT_EQ(r.offsets, (Offsets{0, 20, 40, 100, 120}));
  // The hook: the samples are the three non-empty ranges; the model it
  // returns (t = x² on [0, 120]) is what gets cut.
  GlobalRebalanceOptions o;
  int intervals = 0;
  o.model = [&](const isocost::Samples& s) {
    intervals = static_cast<int>(s.size());
    return isocost::power_model(1, 2, 0, 0, 120);
  };
  const auto h = isocost::rebalance_global(Offsets{0, 40, 40, 80, 120},
                                           std::vector<double>{4, 7, 1, 4}, four, o);
  EXPECT_EQ(intervals, 3);
  for (int k = 1; k < 4; ++k)
    EXPECT_NEAR(double(h.offsets[k]), 120 * std::sqrt(k / 4.0), 0.5001) << k;
}

// Two phases on 0,50,100: phase A measured 1 and 3, phase B 3 and 1 (linear
// interpolation through 3 points). Cutting the total (4, 4) keeps 50, with
// Σ_p max_r = 3 + 3 = 6. Cutting A alone: target 2 on A's cumulative (1 at
// 50, 4 at 100) is x = 66.7; t_A(66) = 1.96, t_A(67) = 2.02, so 67. Then A
// costs 2.02 | 1.98 and B 3 + 17/50 = 3.34 | 0.66: 2.02 + 3.34 = 5.36 < 6.
// B alone gives 33 and the same 5.36; the tie goes to the earlier (A).
TEST(RebalancePhases, ChoosesTheLeastPhaseSynchronisedTime) {
  const Speeds two = Speeds::uniform(2), four = Speeds::uniform(4);
  const auto r =
      isocost::rebalance_phases(Offsets{0, 50, 100}, std::vector<double>{1, 3, 3, 1}, two);
  EXPECT_EQ(r.offsets, (Offsets{0, 67, 100}));
  EXPECT_EQ(r.method(), isocost::PlanMethod::phases);
  EXPECT_EQ(r.phase_weights, (std::vector<double>{1, 0}));
  EXPECT_NEAR(r.measured_synchronised, 6, 1e-12);
  EXPECT_NEAR(r.predicted_synchronised, 5.36, 1e-12);
  ASSERT_EQ(r.predicted_time.size(), 2u);
  EXPECT_NEAR(r.predicted_time[0], 2.02 + 3.34, 1e-12);
  EXPECT_NEAR(r.predicted_time[1], 1.98 + 0.66, 1e-12);
  // One phase is the global repartition.
  const auto one =
      isocost::rebalance_phases(Offsets{0, 25, 50, 75, 100}, std::vector<double>{1, 3, 5, 7}, four);
  const auto global =
      isocost::rebalance_global(Offsets{0, 25, 50, 75, 100}, std::vector<double>{1, 3, 5, 7}, four);
  EXPECT_EQ(one.offsets, global.offsets);
  EXPECT_NEAR(one.predicted_synchronised,
              *std::max_element(global.predicted_time.begin(), global.predicted_time.end()), 1e-12);
  expect_error(
      [&] {
        isocost::rebalance_phases(Offsets{0, 50, 100}, std::vector<double>{1, 2, 3}, two);
      },
      {"3 phase loads", "2 ranks"});
  expect_error(
      [&] {
        isocost::rebalance_phases(Offsets{0, 50, 100}, std::vector<double>{1, 2, -3, 1}, two);
      },
      {"rank 1", "phase 0", "-3"});
}

TEST(RebalanceWeights, EqualsTheDiscretePartition) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> w(0.0, 2.0);
  std::vector<double> weights(997);
  for (auto& v : weights) v = w(rng);
  const Offsets o{0, 100, 500, 997};
  const Speeds speeds = Speeds::from_values({1, 2, 1});
  const auto r = isocost::rebalance_weights(o, weights, speeds);
  const auto p =
      isocost::partition(isocost::discrete_model(weights), isocost::Speeds::from_values({1, 2, 1}));
  ASSERT_EQ(r.offsets.size(), p.cuts.size());
  for (std::size_t k = 0; k < p.cuts.size(); ++k) EXPECT_EQ(double(r.offsets[k]), p.cuts[k]);
  // The measured imbalance is that of the old ranges, in time (cost / speed).
  double now[3] = {0, 0, 0};
  for (int part = 0; part < 3; ++part)
    for (auto k = o[part]; k < o[part + 1]; ++k) now[part] += weights[k];
  now[1] /= 2;
  const double mean = (now[0] + now[1] + now[2]) / 3;
  EXPECT_NEAR(r.measured_imbalance, std::max({now[0], now[1], now[2]}) / mean - 1, 1e-12);
  EXPECT_GT(r.measured_imbalance, 0);
  EXPECT_EQ(r.method(), isocost::PlanMethod::weights);
  expect_error([&] { isocost::rebalance_weights(o, std::vector<double>(996, 1.0), speeds); },
               {"996 element loads", "997 elements"});
}

TEST(RebalanceWeights, OptimalIsTheChainsOnChainsBottleneck) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> w(0.0, 3.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> weights(50 + trial);
    for (auto& v : weights) v = w(rng);
    if (trial % 3 == 0) weights[trial] = 40;  // one heavy element
    const auto n = static_cast<std::int64_t>(weights.size());
    const Offsets o{0, n / 3, 2 * n / 3, n};
    const Speeds speeds = Speeds::from_values({1, 2, 1});
    isocost::WeightsRebalanceOptions opt;
    opt.optimal = true;
    const auto best = isocost::rebalance_weights(o, weights, speeds, opt);
    const auto near = isocost::rebalance_weights(o, weights, speeds);
    std::vector<double> prefix{0};
    for (double v : weights) prefix.push_back(prefix.back() + v);
    const std::vector<double> capacity{1, 2, 1};
    EXPECT_EQ(best.offsets, isocost::bottleneck_cuts(prefix, capacity, 1)) << trial;
    const double best_max =
        *std::max_element(best.predicted_time.begin(), best.predicted_time.end());
    const double near_max =
        *std::max_element(near.predicted_time.begin(), near.predicted_time.end());
    EXPECT_LE(best_max, near_max * (1 + 1e-12)) << trial;
    for (std::size_t r = 0; r + 1 < best.offsets.size(); ++r)
      EXPECT_LT(best.offsets[r], best.offsets[r + 1]) << "empty part " << r;
  }
}

TEST(RebalanceDiffusive, ElementCostsShapeTheShifts) {
  const Offsets o{0, 20, 40, 60, 80, 100};
  const std::vector<double> loads{3, 1, 1, 1, 1};
  DiffusiveRebalanceOptions opt;
  opt.diffusion.scheme = isocost::DiffusionScheme::least_squares;
  // Constant costs are the uniform elements: the same plan.
  const auto plain = isocost::rebalance_diffusive(o, loads, opt);
  const auto constant = isocost::rebalance_diffusive(o, loads, opt, std::vector<double>(100, 2.5));
  EXPECT_EQ(constant.offsets, plain.offsets);
  for (std::size_t r = 0; r < 5; ++r)
    EXPECT_NEAR(constant.predicted_time[r], plain.predicted_time[r], 1e-12) << r;
  // Costs concentrated in rank 0's last elements: it sheds them with fewer
  // elements than uniform costs would move, and the predicted loads still add
  // up to the measured total.
  std::vector<double> costs(100, 1.0);
  for (int k = 10; k < 20; ++k) costs[k] = 5;
  const auto shaped = isocost::rebalance_diffusive(o, loads, opt, costs);
  EXPECT_GT(shaped.offsets[1], plain.offsets[1]);
  double sum = 0;
  for (double t : shaped.predicted_time) sum += t;
  EXPECT_NEAR(sum, 7, 1e-9);
  expect_error([&] { isocost::rebalance_diffusive(o, loads, opt, std::vector<double>(99, 1.0)); },
               {"99 element costs", "100 elements"});
}

TEST(RebalanceDiffusive, LeastSquaresOnTheChainClosedForm) {
  DiffusiveRebalanceOptions o;
  o.diffusion.scheme = isocost::DiffusionScheme::least_squares;
  const auto r = isocost::rebalance_diffusive(Offsets{0, 20, 40, 60, 80, 100},
                                              std::vector<double>{3, 1, 1, 1, 1}, o);
  EXPECT_EQ(r.offsets, (Offsets{0, 9, 19, 44, 72, 100}));
  const std::vector<double> expect{1.35, 1.5, 1.35, 1.4, 1.4};
  ASSERT_EQ(r.predicted_time.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(r.predicted_time[i], expect[i], 1e-12) << i;
  EXPECT_EQ(r.elements_moved, 55);
  EXPECT_EQ(r.max_elements_received, 21);
  EXPECT_EQ(r.method(), isocost::PlanMethod::diffusion);
  ASSERT_TRUE(std::holds_alternative<DiffusiveRebalanceOptions>(r.options));
  EXPECT_EQ(std::get<DiffusiveRebalanceOptions>(r.options).diffusion.scheme,
            isocost::DiffusionScheme::least_squares);
  EXPECT_EQ(isocost::BlockRebalance{}.method(), isocost::PlanMethod::none);
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(r.diffusion.steps, 1);
}

TEST(RebalanceDiffusive, CrankNicolsonKeepsOrderAndReducesTheImbalance) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    const int P = std::uniform_int_distribution<int>(2, 12)(rng);
    Offsets o{0};
    for (int r = 0; r < P; ++r)
      o.push_back(o.back() + std::uniform_int_distribution<int>(0, 90)(rng));
    if (o.back() == 0) continue;
    std::vector<double> loads(P);
    for (int r = 0; r < P; ++r)
      loads[r] = (o[r + 1] - o[r]) * std::uniform_real_distribution<double>(0.5, 3.0)(rng);
    if (std::accumulate(loads.begin(), loads.end(), 0.0) == 0) continue;
    const auto d = isocost::rebalance_diffusive(o, loads);
    ASSERT_EQ(d.offsets.size(), o.size());
    EXPECT_EQ(d.offsets.front(), 0);
    EXPECT_EQ(d.offsets.back(), o.back());
    for (int r = 0; r < P; ++r) EXPECT_LE(d.offsets[r], d.offsets[r + 1]);
    const double sum = std::accumulate(d.predicted_time.begin(), d.predicted_time.end(), 0.0);
    EXPECT_NEAR(sum, std::accumulate(loads.begin(), loads.end(), 0.0), 1e-9 * sum);
    // Rounding to whole elements can cost up to one element's load per rank.
    EXPECT_LE(d.predicted_imbalance, std::max(d.measured_imbalance, 0.06) + 0.25) << trial;
  }
}

TEST(BlockElementsMoved, EqualsCountingOwners) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 200; ++trial) {
    const int P = std::uniform_int_distribution<int>(1, 9)(rng);
    const std::int64_t N = std::uniform_int_distribution<int>(0, 60)(rng);
    auto random_offsets = [&] {
      Offsets o{0};
      std::vector<std::int64_t> cuts(P - 1);
      for (auto& c : cuts) c = std::uniform_int_distribution<std::int64_t>(0, N)(rng);
      std::sort(cuts.begin(), cuts.end());
      o.insert(o.end(), cuts.begin(), cuts.end());
      o.push_back(N);
      return o;
    };
    const Offsets a = random_offsets(), b = random_offsets();
    auto owner = [](const Offsets& o, std::int64_t i) {
      return int(std::upper_bound(o.begin(), o.end(), i) - o.begin()) - 1;
    };
    std::int64_t moved = 0;
    std::vector<std::int64_t> received(P, 0);
    for (std::int64_t i = 0; i < N; ++i)
      if (owner(a, i) != owner(b, i)) {
        ++moved;
        ++received[owner(b, i)];
      }
    const auto [m, most] = isocost::block_elements_moved(a, b);
    EXPECT_EQ(m, moved);
    EXPECT_EQ(most, *std::max_element(received.begin(), received.end()));
  }
}

TEST(Rebalance, BadInput) {
  const Offsets o{0, 10, 20};
  const std::vector<double> t{1, 2};
  const Speeds two = Speeds::uniform(2);
  expect_error(
      [&] {
        isocost::rebalance_global(Offsets{0, 10, 5}, t, two);
      },
      {"offset 2: expected a value >= 10 (offset 1; nondecreasing offsets), got 5"});
  expect_error(
      [&] {
        isocost::rebalance_global(Offsets{3, 10, 20}, t, two);
      },
      {"block distribution: offset 0: expected 0, got 3"});
  expect_error([&] { isocost::rebalance_global(Offsets{0}, std::vector<double>{}, two); },
               {"at least 2 offsets"});
  expect_error([&] { isocost::rebalance_global(o, std::vector<double>{1}, two); },
               {"1 loads", "2 ranks"});
  expect_error(
      [&] {
        isocost::rebalance_global(o, std::vector<double>{1, -2}, two);
      },
      {"rank 1", "-2"});
  expect_error(
      [&] {
        isocost::rebalance_diffusive(o, std::vector<double>{NAN, 1});
      },
      {"rank 0", "nan"});
  expect_error([&] { isocost::rebalance_diffusive(o, std::vector<double>{0, 0}); }, {"zero"});
  expect_error([&] { isocost::rebalance_global(o, t, Speeds::uniform(3)); },
               {"3 speeds for 2 ranks"});
  expect_error(
      [&] { isocost::rebalance_weights(o, std::vector<double>(20, 1.0), Speeds::uniform(3)); },
      {"3 speeds for 2 ranks"});
  DiffusiveRebalanceOptions alpha;
  alpha.diffusion.alpha = 1.5;
  expect_error([&] { isocost::rebalance_diffusive(o, t, alpha); }, {"alpha", "1.5"});
  expect_error([&] { isocost::block_elements_moved(o, Offsets{0, 5, 21}); }, {"20 elements", "21"});
}

}  // namespace
