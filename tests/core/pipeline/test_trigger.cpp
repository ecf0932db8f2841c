// Tests for isocost/trigger.hpp: the trigger on a synthetic drift (the exact
// step, strictness at the threshold, only every k steps), reduced numbers
// against loads, and bad input.
#include "isocost/trigger.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/expect_error.hpp"

namespace {

using isocost::TriggerOptions;
using isocost::testing::expect_error;

TriggerOptions drift_every(int k, double threshold) {
  TriggerOptions o;
  o.every = k;
  o.drift_threshold = threshold;
  return o;
}

// Four ranks at 1 s; rank 0 gains 0.01 s per step. At step s:
// drift = 0.01·s / (1 + 0.0025·s), which exceeds 0.1 first at s = 11
// (s = 10: 0.1/1.025 = 0.0976; s = 11: 0.11/1.0275 = 0.1071).
std::vector<double> drifting(long long s) { return {1 + 0.01 * static_cast<double>(s), 1, 1, 1}; }

long long first_firing(const TriggerOptions& o) {
  for (long long s = 1; s <= 100; ++s)
    if (isocost::check_trigger(s, drifting(s), o).fired) return s;
  return -1;
}

TEST(Trigger, DriftFiresAtTheRightStep) {
  EXPECT_EQ(first_firing(drift_every(1, 0.10)), 11);
  // Checked only every 5 steps: 5 and 10 are below the threshold, 15 is not.
  EXPECT_EQ(first_firing(drift_every(5, 0.10)), 15);
  // A higher threshold: 0.01·s/(1 + 0.0025·s) > 0.2 first at s = 22
  // (s = 21: 0.21/1.0525 = 0.1995; s = 22: 0.22/1.055 = 0.2085).
  EXPECT_EQ(first_firing(drift_every(1, 0.20)), 22);
  const auto c = isocost::check_trigger(11, drifting(11), drift_every(1, 0.10));
  EXPECT_TRUE(c.drift_fired);
  EXPECT_FALSE(c.efficiency_fired);
  EXPECT_DOUBLE_EQ(c.t_max, 1.11);
  EXPECT_DOUBLE_EQ(c.t_min, 1.0);
  EXPECT_DOUBLE_EQ(c.t_avg, 4.11 / 4);
  EXPECT_NEAR(c.drift, 0.11 / (4.11 / 4), 1e-14);
  EXPECT_NE(c.brief_report().find("FIRED"), std::string::npos);
}

TEST(Trigger, NotAtOrBelowTheThreshold) {
  // loads {1.5, 0.5}: avg 1, drift exactly 1, efficiency exactly 2/3.
  const std::vector<double> loads{1.5, 0.5};
  EXPECT_FALSE(isocost::check_trigger(1, loads, drift_every(1, 1.0)).fired);  // strict >
  EXPECT_TRUE(isocost::check_trigger(1, loads, drift_every(1, 0.999)).fired);
  // loads {2, 1, 1, 0}: avg 1, max 2, efficiency exactly 0.5.
  const std::vector<double> e{2, 1, 1, 0};
  TriggerOptions o;
  o.every = 1;
  o.drift_threshold.reset();
  o.min_efficiency = 0.5;
  auto c = isocost::check_trigger(1, e, o);
  EXPECT_EQ(c.efficiency, 0.5);
  EXPECT_FALSE(c.fired);  // strict <
  o.min_efficiency = 0.5000001;
  c = isocost::check_trigger(1, e, o);
  EXPECT_TRUE(c.efficiency_fired);
  EXPECT_FALSE(c.drift_fired);  // not checked
  EXPECT_TRUE(c.fired);
  // Balanced: neither fires, even with both criteria.
  o.drift_threshold = 0.0;
  const std::vector<double> flat{3, 3, 3};
  c = isocost::check_trigger(1, flat, o);
  EXPECT_EQ(c.drift, 0.0);
  EXPECT_EQ(c.efficiency, 1.0);
  EXPECT_FALSE(c.fired);
  // All zero: nothing to balance.
  c = isocost::check_trigger(1, std::vector<double>{0, 0}, o);
  EXPECT_FALSE(c.fired);
}

TEST(Trigger, OnlyEveryKSteps) {
  const std::vector<double> loads{4, 1};  // always imbalanced
  const auto o = drift_every(3, 0.1);
  std::vector<long long> fired;
  for (long long s = 0; s <= 10; ++s) {
    const auto c = isocost::check_trigger(s, loads, o);
    EXPECT_EQ(c.due, s > 0 && s % 3 == 0) << s;
    if (c.fired) fired.push_back(s);
  }
  EXPECT_EQ(fired, (std::vector<long long>{3, 6, 9}));
  EXPECT_FALSE(isocost::is_check_step(0, 3));
  EXPECT_TRUE(isocost::is_check_step(9, 3));
  EXPECT_FALSE(isocost::is_check_step(10, 3));
}

TEST(Trigger, ReducedNumbersAgreeWithLoads) {
  const std::vector<double> loads{1.2, 0.9, 1.0, 0.9};
  TriggerOptions o = drift_every(2, 0.25);
  o.min_efficiency = 0.9;
  for (long long s = 1; s <= 4; ++s) {
    const auto a = isocost::check_trigger(s, loads, o);
    const auto b = isocost::check_trigger(s, 0.9, 1.0, 1.2, o);
    EXPECT_EQ(a.fired, b.fired);
    EXPECT_EQ(a.drift_fired, b.drift_fired);
    EXPECT_EQ(a.efficiency_fired, b.efficiency_fired);
    EXPECT_NEAR(a.drift, b.drift, 1e-15);
  }
  // drift 0.3 > 0.25 and efficiency 1/1.2 < 0.9: both fire on even steps.
  const auto c = isocost::check_trigger(2, 0.9, 1.0, 1.2, o);
  EXPECT_TRUE(c.drift_fired);
  EXPECT_TRUE(c.efficiency_fired);
}

TEST(Trigger, BadInput) {
  const std::vector<double> loads{1, 2};
  expect_error([&] { isocost::check_trigger(1, loads, drift_every(0, 0.1)); },
               {"trigger: every: expected an integer >= 1, got 0"});
  expect_error([&] { isocost::check_trigger(1, loads, drift_every(-2, 0.1)); }, {"got -2"});
  expect_error([&] { isocost::is_check_step(5, 0); }, {"every (k)", "got 0"});
  expect_error([&] { isocost::check_trigger(-1, loads, drift_every(1, 0.1)); },
               {"trigger: step: expected >= 0, got -1"});
  expect_error(
      [&] {
        isocost::check_trigger(1, loads, drift_every(1, std::numeric_limits<double>::quiet_NaN()));
      },
      {"drift_threshold", "nan"});
  TriggerOptions o;
  o.drift_threshold.reset();
  expect_error([&] { isocost::check_trigger(1, loads, o); }, {"neither"});
  o.min_efficiency = 1.5;
  expect_error([&] { isocost::check_trigger(1, loads, o); }, {"min_efficiency", "1.5"});
  expect_error(
      [&] {
        isocost::check_trigger(1, std::vector<double>{1, -2}, {});
      },
      {"load of rank 1", "-2"});
  expect_error([&] { isocost::check_trigger(1, std::vector<double>{}, {}); }, {"no loads"});
  expect_error([&] { isocost::check_trigger(1, 2.0, 1.0, 3.0, {}); },
               {"t_min <= t_avg <= t_max", "2, 1, 3"});
  expect_error([&] { isocost::check_trigger(1, 0.0, 0.0, 1.0, {}); }, {"t_avg = 0", "t_max = 1"});
}

}  // namespace
