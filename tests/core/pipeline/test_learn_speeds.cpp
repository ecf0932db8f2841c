// Tests for learn_speeds() (isocost/learn_speeds.hpp): synthetic rounds of
// loads from known speeds and a known cost density, exact and noisy; what
// cannot be learned (one round, rounds alike) says so; bad input is named.
#include "isocost/learn_speeds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "support/expect_error.hpp"

namespace {

using isocost::BlockRound;

// Element i's cost under density rho, exactly: ∫ rho over [i, i + 1).
std::vector<double> element_costs(std::int64_t n, const std::function<double(double)>& R) {
  std::vector<double> c(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    c[static_cast<std::size_t>(i)] = R(static_cast<double>(i + 1)) - R(static_cast<double>(i));
  return c;
}

// Offsets giving rank r the share w_r / Σw of the costs (w: believed speeds).
std::vector<std::int64_t> offsets_for(const std::vector<double>& costs,
                                      const std::vector<double>& w) {
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  const double wsum = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<std::int64_t> o{0};
  double target = 0, prefix = 0;
  std::size_t i = 0;
  for (std::size_t r = 0; r + 1 < w.size(); ++r) {
    target += total * w[r] / wsum;
    while (i < costs.size() && prefix + costs[i] / 2 < target) prefix += costs[i++];
    o.push_back(static_cast<std::int64_t>(i));
  }
  o.push_back(static_cast<std::int64_t>(costs.size()));
  return o;
}

// The round measured on `offsets` with the true speeds, each load times
// (1 + noise·g), g standard normal.
BlockRound measure(const std::vector<double>& costs, std::vector<std::int64_t> offsets,
                   const std::vector<double>& speeds, double noise = 0, unsigned seed = 0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  BlockRound round{std::move(offsets), {}};
  for (std::size_t r = 0; r + 1 < round.offsets.size(); ++r) {
    double c = 0;
    for (auto i = round.offsets[r]; i < round.offsets[r + 1]; ++i)
      c += costs[static_cast<std::size_t>(i)];
    round.loads.push_back(c / speeds[r] * (1 + noise * g(rng)));
  }
  return round;
}

std::vector<double> normalised(std::vector<double> s) {
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  for (double& v : s) v /= mean;
  return s;
}

TEST(LearnSpeeds, TwoRoundsOfExactLoadsOnALinearDensityGiveTheSpeeds) {
  // rho = 1 + 3x/N is piecewise linear: the fit can be exact.
  const std::int64_t N = 10000;
  const auto costs = element_costs(N, [&](double x) { return x + 1.5 * x * x / N; });
  const std::vector<double> truth{1, 1, 1, 3};
  const std::vector<BlockRound> rounds{measure(costs, offsets_for(costs, {1, 1, 1, 1}), truth),
                                       measure(costs, offsets_for(costs, {1, 2, 1, 2}), truth)};
  const isocost::LearnedSpeeds s = isocost::learn_speeds(rounds);
  ASSERT_TRUE(s.identifiable) << s.message;
  EXPECT_EQ(s.termination, isocost::Termination::converged) << s.brief_report();
  const auto want = normalised(truth);
  for (std::size_t r = 0; r < 4; ++r) EXPECT_NEAR(s.speeds[r], want[r], 1e-5 * want[r]) << r;
  EXPECT_LT(s.misfit, 1e-6);
  EXPECT_EQ(s.rounds, 2);
  EXPECT_EQ(s.observations, 8);
}

TEST(LearnSpeeds, SwartzNodeTypesOnASieveLikeCost) {
  // 7 ranks of speed 1 and 4 of speed 3 (Swartz §4), a cost that grows as
  // x^1.43 / ln x (his eq. 4), three rounds cut differently.
  const std::int64_t N = 200000;
  const auto costs = element_costs(N, [](double x) {
    const double y = x + 10;
    return std::pow(y, 1.43) / std::log(y);
  });
  std::vector<double> truth(7, 1.0);
  truth.insert(truth.end(), 4, 3.0);
  const std::vector<BlockRound> rounds{
      measure(costs, offsets_for(costs, std::vector<double>(11, 1.0)), truth),
      measure(costs, offsets_for(costs, {1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 2}), truth),
      measure(costs, offsets_for(costs, {2, 1, 1, 1, 2, 1, 1, 2, 1, 1, 1}), truth)};
  const isocost::LearnedSpeeds s = isocost::learn_speeds(rounds);
  ASSERT_TRUE(s.identifiable) << s.message;
  const auto want = normalised(truth);
  for (std::size_t r = 0; r < 11; ++r)
    EXPECT_NEAR(s.speeds[r], want[r], 0.02 * want[r]) << r << ": " << s.brief_report();
}

// 2 % noise on every load: the error of each speed stays within three of
// its reported spreads, and more rounds narrow both.
TEST(LearnSpeeds, NoisyLoadsStayWithinTheirSpread) {
  const std::int64_t N = 50000;
  const auto costs = element_costs(N, [&](double x) { return x + 2.0 * x * x / N; });
  const std::vector<double> truth{1, 2, 1, 1, 3, 1};
  const auto want = normalised(truth);
  std::mt19937 pick(5);
  std::uniform_int_distribution<int> weight(1, 3);
  std::vector<BlockRound> rounds;
  double spread_of_4 = 0, spread_of_12 = 0;
  for (unsigned j = 0; j < 12; ++j) {
    std::vector<double> believed(truth.size());
    for (double& w : believed) w = j == 0 ? 1 : weight(pick);
    rounds.push_back(measure(costs, offsets_for(costs, believed), truth, 0.02, 17 + j));
    if (j != 3 && j != 11) continue;
    isocost::SpeedLearningOptions o;
    o.max_misfit = 0.1;  // the noise is not a change of speed
    const isocost::LearnedSpeeds s = isocost::learn_speeds(rounds, o);
    ASSERT_TRUE(s.identifiable) << s.message;
    EXPECT_EQ(s.rounds_dropped, 0) << s.brief_report();
    double widest = 0;
    for (std::size_t r = 0; r < truth.size(); ++r) {
      ASSERT_TRUE(std::isfinite(s.spread[r])) << r << ": " << s.brief_report();
      EXPECT_GT(s.spread[r], 0.002) << r;  // 2 % noise is not certainty
      EXPECT_LT(std::abs(std::log(s.speeds[r] / want[r])), 3 * s.spread[r])
          << r << ": " << s.brief_report();
      widest = std::max(widest, s.spread[r]);
    }
    (j == 3 ? spread_of_4 : spread_of_12) = widest;
    if (j == 11) {
      for (std::size_t r = 0; r < truth.size(); ++r)
        EXPECT_NEAR(s.speeds[r], want[r], 0.05 * want[r]) << r << ": " << s.brief_report();
    }
    EXPECT_GT(s.misfit, 0.005);  // the noise is seen
    EXPECT_LT(s.misfit, 0.05);
  }
  EXPECT_LT(spread_of_12, spread_of_4);
}

TEST(LearnSpeeds, RoundsFromBeforeASpeedChangeAreLeftOut) {
  const std::int64_t N = 40000;
  const auto costs = element_costs(N, [&](double x) { return x + 1.5 * x * x / N; });
  const std::vector<double> before{1, 1, 1, 3}, after{1, 0.5, 1, 3};  // rank 1 halves
  const std::vector<BlockRound> rounds{measure(costs, offsets_for(costs, {1, 1, 1, 1}), before),
                                       measure(costs, offsets_for(costs, {1, 1, 1, 3}), before),
                                       measure(costs, offsets_for(costs, {1, 2, 1, 2}), before),
                                       measure(costs, offsets_for(costs, {2, 1, 1, 3}), after),
                                       measure(costs, offsets_for(costs, {1, 1, 2, 3}), after)};
  const isocost::LearnedSpeeds s = isocost::learn_speeds(rounds);
  ASSERT_TRUE(s.identifiable) << s.message;
  EXPECT_EQ(s.rounds_dropped, 3) << s.brief_report();
  EXPECT_EQ(s.rounds, 2);
  const auto want = normalised(after);
  for (std::size_t r = 0; r < 4; ++r)
    EXPECT_NEAR(s.speeds[r], want[r], 0.01 * want[r]) << r << ": " << s.brief_report();
  // Keeping every round, the fit cannot follow: it misses the loads.
  isocost::SpeedLearningOptions all;
  all.max_misfit = std::numeric_limits<double>::infinity();
  const isocost::LearnedSpeeds kept = isocost::learn_speeds(rounds, all);
  EXPECT_EQ(kept.rounds_dropped, 0);
  EXPECT_GT(kept.misfit, 0.05) << kept.brief_report();
}

TEST(LearnSpeeds, OneRoundOrRoundsAlikeCannotTellSpeedFromCost) {
  const auto costs = element_costs(1000, [](double x) { return x * x; });
  const std::vector<double> truth{1, 3};
  const BlockRound a = measure(costs, {0, 500, 1000}, truth);
  for (const std::vector<BlockRound>& rounds :
       {std::vector<BlockRound>{a}, std::vector<BlockRound>{a, a, a}}) {
    const isocost::LearnedSpeeds s = isocost::learn_speeds(rounds);
    EXPECT_FALSE(s.identifiable);
    EXPECT_EQ(s.speeds, (std::vector<double>{1, 1}));
    EXPECT_NE(s.brief_report().find("speeds not learned: "), std::string::npos);
    EXPECT_TRUE(std::isnan(s.spread[0]));
  }
}

TEST(LearnSpeeds, ARankNeverMeasuredKeepsSpeedOne) {
  const std::int64_t N = 20000;
  const auto costs = element_costs(N, [&](double x) { return x + x * x / N; });
  const std::vector<double> truth{1, 1, 1, 3};
  auto shift = [](std::vector<std::int64_t> o) {  // rank 1 empty, rank 0 to its end
    o[1] = o[2];
    return o;
  };
  const std::vector<BlockRound> rounds{
      measure(costs, shift(offsets_for(costs, {1, 1, 1, 1})), truth),
      measure(costs, shift(offsets_for(costs, {2, 1, 1, 2})), truth),
      measure(costs, shift(offsets_for(costs, {1, 1, 2, 1})), truth)};
  const isocost::LearnedSpeeds s = isocost::learn_speeds(rounds);
  ASSERT_TRUE(s.identifiable) << s.message;
  EXPECT_EQ(s.speeds[1], 1.0);
  EXPECT_TRUE(std::isnan(s.spread[1]));
  // The others, mean 1 among themselves: 1, 1, 3 -> 0.6, 0.6, 1.8.
  EXPECT_NEAR(s.speeds[0], 0.6, 0.006);
  EXPECT_NEAR(s.speeds[2], 0.6, 0.006);
  EXPECT_NEAR(s.speeds[3], 1.8, 0.018);
}

TEST(LearnSpeeds, BadInputIsNamed) {
  using isocost::testing::expect_error;
  expect_error([] { isocost::learn_speeds(std::vector<BlockRound>{}); },
               {"learn_speeds: expected at least one round"});
  const BlockRound a{{0, 5, 10}, {1, 2}};
  const BlockRound three{{0, 3, 6, 10}, {1, 2, 3}};
  expect_error(
      [&] {
        isocost::learn_speeds(std::vector<BlockRound>{a, three});
      },
      {"learn_speeds: round 1", "2 ranks and 10 elements (round 0's)", "got 3 ranks"});
  const BlockRound negative{{0, 4, 10}, {1, -2}};
  expect_error(
      [&] {
        isocost::learn_speeds(std::vector<BlockRound>{a, negative});
      },
      {"learn_speeds: round 1: load 1", "a finite number >= 0", "-2"});
  const BlockRound short_loads{{0, 4, 10}, {1}};
  expect_error(
      [&] {
        isocost::learn_speeds(std::vector<BlockRound>{a, short_loads});
      },
      {"round 1: 1 loads for 2 ranks"});
  isocost::SpeedLearningOptions o;
  o.knots = 1;
  expect_error([&] { isocost::learn_speeds(std::vector<BlockRound>{a}, o); },
               {"learn_speeds options: knots"});
}

// The balancers' tracker: an estimate is used once the next agrees with it,
// so that one fit reading a moved load as speeds is not.
TEST(SpeedTracker, AnEstimateIsUsedOnceTheNextAgrees) {
  const auto estimate = [](std::vector<double> speeds, double spread) {
    isocost::LearnedSpeeds l;
    l.identifiable = true;
    l.spread.assign(speeds.size(), spread);
    l.speeds = std::move(speeds);
    return l;
  };
  isocost::SpeedTracker t;
  isocost::LearnedSpeeds none;  // not identifiable: nothing changes
  EXPECT_FALSE(t.update(none).has_value());
  auto a = estimate({0.5, 1.5}, 0.01);
  EXPECT_FALSE(t.update(a).has_value());
  EXPECT_FALSE(a.used);
  auto b = estimate({0.51, 1.49}, 0.01);  // 2 % off: within 3 spreads
  ASSERT_TRUE(t.update(b).has_value());
  EXPECT_TRUE(b.used);
  EXPECT_EQ(*t.speeds(), (std::vector<double>{0.51, 1.49}));
  // A jump (a moved load read as speeds) is not used; the speeds stay.
  auto c = estimate({3.0, 0.1}, 0.01);
  EXPECT_EQ(*t.update(c), (std::vector<double>{0.51, 1.49}));
  EXPECT_FALSE(c.used);
  // Nor is the next when it disagrees with the jump; once two agree they are.
  auto d = estimate({0.25, 1.75}, 0.001);
  EXPECT_EQ(*t.update(d), (std::vector<double>{0.51, 1.49}));
  auto e = estimate({0.26, 1.74}, 0.001);  // 4 % off: within 5 %
  EXPECT_EQ(*t.update(e), (std::vector<double>{0.26, 1.74}));
  auto f = estimate({0.28, 1.72}, 0.001);  // 7.4 % off, 3 spreads 0.4 %: no
  EXPECT_EQ(*t.update(f), (std::vector<double>{0.26, 1.74}));
  EXPECT_FALSE(f.used);
}

}  // namespace
