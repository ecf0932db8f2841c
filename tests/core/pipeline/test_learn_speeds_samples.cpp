// Tests for learn_speeds() on runs of rank-labelled samples and for
// at_unit_speed() (isocost/learn_speeds.hpp): synthetic runs timed on ranks
// of known speeds over a known cost, exact and noisy; one run, or runs alike,
// cannot tell a slow rank from a costly range and say so; bad input is named.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "isocost/learn_speeds.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::IntervalSample;
using isocost::Samples;
using Cumulative = std::function<double(double)>;

// One run: rank r timed [cuts[r], cuts[r+1]) at speeds[r] on the cumulative
// cost T, each time times (1 + noise·e) with e a fixed pseudo-random number
// in [-√3, √3] (standard deviation 1).
Samples TimedRun(const Cumulative& T, const std::vector<double>& cuts,
                 const std::vector<double>& speeds, double noise = 0, int seed = 0) {
  std::vector<IntervalSample> v;
  for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
    const double u = std::sin(12.9898 * static_cast<double>(r + 1) + 78.233 * seed) * 43758.5453;
    const double e = std::sqrt(3.0) * (2 * (u - std::floor(u)) - 1);
    v.push_back({cuts[r], cuts[r + 1], (T(cuts[r + 1]) - T(cuts[r])) / speeds[r] * (1 + noise * e),
                 static_cast<int>(r)});
  }
  return Samples(std::move(v));
}

std::vector<double> MeanOne(std::vector<double> s) {
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  for (double& v : s) v /= mean;
  return s;
}

const std::vector<double> kFastLast{1, 1, 1, 3};  // normalised: 2/3, 2/3, 2/3, 2
const std::vector<std::vector<double>> kCuts{
    {0, 0.25, 0.5, 0.75, 1}, {0, 0.4, 0.6, 0.8, 1}, {0, 0.3, 0.45, 0.7, 1}};

TEST(LearnSpeedsSamples, ThreeRunsOfExactTimesGiveTheSpeeds) {
  // t(x) = x²: the density 2x is piecewise linear, which the fit can be exactly.
  const Cumulative T = [](double x) { return x * x; };
  std::vector<Samples> runs;
  for (const auto& cuts : kCuts) runs.push_back(TimedRun(T, cuts, kFastLast));
  const isocost::LearnedSpeeds s = isocost::learn_speeds(runs);
  ASSERT_TRUE(s.identifiable) << s.message;
  EXPECT_EQ(s.termination, isocost::Termination::converged) << s.brief_report();
  const std::vector<double> want{2.0 / 3, 2.0 / 3, 2.0 / 3, 2};
  ASSERT_EQ(s.speeds.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r)
    EXPECT_NEAR(s.speeds[r], want[r], 1e-4 * want[r]) << r << ": " << s.brief_report();
  EXPECT_LT(s.misfit, 1e-6);
  EXPECT_EQ(s.rounds, 3);
  EXPECT_EQ(s.observations, 12);
  EXPECT_TRUE(s.message.empty());
}

TEST(LearnSpeedsSamples, ACurvedDensityOnAnOffsetSpan) {
  // The density x² on [1, 3] (t = x³/3), 5 ranks, 6 runs: the 6 knots they
  // afford follow it to within 0.5 % of the speeds (0.1 % measured).
  const Cumulative T = [](double x) { return x * x * x / 3; };
  const std::vector<double> truth{1, 2, 1, 1, 0.5};
  std::vector<Samples> runs;
  const std::vector<std::vector<double>> cuts{
      {1, 1.4, 1.8, 2.2, 2.6, 3}, {1, 1.9, 2.3, 2.5, 2.8, 3}, {1, 1.6, 2.2, 2.4, 2.7, 3},
      {1, 1.2, 1.7, 2.3, 2.9, 3}, {1, 2, 2.2, 2.6, 2.75, 3},  {1, 1.5, 2.4, 2.6, 2.8, 3}};
  for (const auto& c : cuts) runs.push_back(TimedRun(T, c, truth));
  const isocost::LearnedSpeeds s = isocost::learn_speeds(runs);
  ASSERT_TRUE(s.identifiable) << s.message;
  const auto want = MeanOne(truth);
  for (std::size_t r = 0; r < truth.size(); ++r)
    EXPECT_NEAR(s.speeds[r], want[r], 0.005 * want[r]) << r << ": " << s.brief_report();
}

TEST(LearnSpeedsSamples, TwoPercentNoiseStaysWithinFivePercent) {
  const Cumulative T = [](double x) { return x * x; };
  std::vector<Samples> runs;
  const std::vector<std::vector<double>> cuts{{0, 0.25, 0.5, 0.75, 1}, {0, 0.4, 0.6, 0.8, 1},
                                              {0, 0.3, 0.45, 0.7, 1},  {0, 0.35, 0.55, 0.65, 1},
                                              {0, 0.2, 0.5, 0.85, 1},  {0, 0.45, 0.7, 0.8, 1}};
  for (std::size_t j = 0; j < cuts.size(); ++j)
    runs.push_back(TimedRun(T, cuts[j], kFastLast, 0.02, static_cast<int>(j) + 1));
  const isocost::LearnedSpeeds s = isocost::learn_speeds(runs);
  ASSERT_TRUE(s.identifiable) << s.message;
  EXPECT_EQ(s.rounds_dropped, 0) << s.brief_report();  // noise is not a change of speed
  EXPECT_GT(s.misfit, 0.002) << s.brief_report();      // and it is there
  const std::vector<double> want{2.0 / 3, 2.0 / 3, 2.0 / 3, 2};
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_NEAR(s.speeds[r], want[r], 0.05 * want[r]) << r << ": " << s.brief_report();
    EXPECT_TRUE(std::isfinite(s.spread[r])) << r;
  }
}

TEST(LearnSpeedsSamples, OneRunOrRunsAlikeAreNotIdentifiable) {
  const Cumulative T = [](double x) { return x * x; };
  const std::vector<Samples> one{TimedRun(T, kCuts[0], kFastLast)};
  const isocost::LearnedSpeeds s = isocost::learn_speeds(one);
  EXPECT_FALSE(s.identifiable);
  EXPECT_EQ(s.speeds, (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(s.message,
            "one run: runs that cut x differently are needed to tell a slow rank from a costly "
            "range");
  EXPECT_EQ(s.brief_report(),
            "speeds not learned: one run: runs that cut x differently are needed to tell a slow "
            "rank from a costly range");
  // The same cuts timed twice (in another order) are no second cut.
  std::vector<IntervalSample> again = one[0].intervals();
  std::swap(again[0], again[3]);
  const std::vector<Samples> alike{one[0], Samples(again)};
  const isocost::LearnedSpeeds t = isocost::learn_speeds(alike);
  EXPECT_FALSE(t.identifiable);
  EXPECT_EQ(t.message,
            "every run timed the same intervals: runs that cut x differently are needed to tell a "
            "slow rank from a costly range");
}

TEST(LearnSpeedsSamples, RanksNeverTimedKeepSpeedOne) {
  // Ranks 0 and 2 of 3 timed: P = 3, rank 1 unmeasured.
  const Cumulative T = [](double x) { return x * x; };
  std::vector<Samples> runs;
  for (const auto& c : {std::vector<double>{0, 0.5, 1}, {0, 0.3, 1}, {0, 0.7, 1}, {0, 0.6, 1}}) {
    runs.push_back(
        Samples({{c[0], c[1], T(c[1]) - T(c[0]), 0}, {c[1], c[2], (T(c[2]) - T(c[1])) / 2, 2}}));
  }
  const isocost::LearnedSpeeds s = isocost::learn_speeds(runs);
  ASSERT_TRUE(s.identifiable) << s.message;
  ASSERT_EQ(s.speeds.size(), 3u);
  EXPECT_NEAR(s.speeds[0], 2.0 / 3, 1e-4) << s.brief_report();
  EXPECT_EQ(s.speeds[1], 1.0);
  EXPECT_NEAR(s.speeds[2], 4.0 / 3, 1e-4) << s.brief_report();
}

TEST(LearnSpeedsSamples, AtUnitSpeedMultipliesEachTimeByItsRanksSpeed) {
  const Samples s({{0, 1, 0.3, 1}, {1, 2, 0.7, 0}, {2, 5, 1.1, 2}});
  const std::vector<double> speeds{0.5, 3, 1.25};
  const Samples u = isocost::at_unit_speed(s, speeds);
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u.intervals()[0].dt, 0.3 * 3);
  EXPECT_EQ(u.intervals()[1].dt, 0.7 * 0.5);
  EXPECT_EQ(u.intervals()[2].dt, 1.1 * 1.25);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(u.intervals()[k].lo, s.intervals()[k].lo);
    EXPECT_EQ(u.intervals()[k].hi, s.intervals()[k].hi);
    EXPECT_EQ(u.intervals()[k].rank, s.intervals()[k].rank);
  }
}

TEST(LearnSpeedsSamples, BadInputIsNamed) {
  using isocost::testing::error_of;
  EXPECT_EQ(error_of([] { isocost::learn_speeds(std::vector<Samples>{}); }),
            "learn_speeds: expected at least one run, got none");
  const std::vector<Samples> unranked{Samples({{0, 1, 2, 0}}), Samples({{0, 1, 2}, {1, 2, 3}})};
  EXPECT_EQ(error_of([&] { isocost::learn_speeds(unranked); }),
            "learn_speeds: run 1, sample 0 (lo=0, hi=1, dt=2): expected the rank that timed it (a "
            "rank column), got none");
  isocost::SpeedLearningOptions o;
  o.knots = 1;
  EXPECT_EQ(error_of([&] {
              isocost::learn_speeds(std::vector<Samples>{Samples({{0, 1, 2, 0}})}, o);
            }),
            "learn_speeds options: knots: expected 0 (chosen from the data) or an integer >= 2, "
            "got 1");
  const Samples s({{0, 1, 2, 0}, {1, 2, 3, 2}});
  EXPECT_EQ(error_of([&] {
              isocost::at_unit_speed(s, std::vector<double>{1, 1});
            }),
            "at_unit_speed: sample 1 (lo=1, hi=2): rank 2 has no speed (2 given)");
  EXPECT_EQ(error_of([&] {
              isocost::at_unit_speed(s, std::vector<double>{0, 1, 1});
            }),
            "at_unit_speed: speed 0: expected a finite number > 0, got 0");
  EXPECT_EQ(error_of([] {
              isocost::at_unit_speed(Samples({{0, 1, 2}}), std::vector<double>{1});
            }),
            "at_unit_speed: sample 0 (lo=0, hi=1): expected the rank that timed it (a rank "
            "column), got none");
}

}  // namespace
