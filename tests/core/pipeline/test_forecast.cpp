// Tests for isocost/forecast.hpp. Expected values by hand: offsets moving by
// exactly 2 elements per step lie on lines, which least squares reproduces
// exactly; cut 1 at 10, 12, 14 for t = 0, 1, 2 is 18 at t = 4.
#include "isocost/forecast.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "support/expect_error.hpp"

namespace {

using isocost::forecast_offsets;
using isocost::PlannedCuts;
using isocost::testing::expect_error;
using Offsets = std::vector<std::int64_t>;

TEST(ForecastOffsets, ExtrapolatesLinearMotionExactly) {
  const std::vector<PlannedCuts> r{
      {0, {0, 10, 20, 30}}, {1, {0, 12, 22, 30}}, {2, {0, 14, 24, 30}}};
  EXPECT_EQ(forecast_offsets(r, 4), (Offsets{0, 18, 28, 30}));
  EXPECT_EQ(forecast_offsets(r, 1), (Offsets{0, 12, 22, 30}));  // inside: the line itself
}

TEST(ForecastOffsets, LeastSquaresThroughNoisyPlans) {
  // Cut 1 at 10, 13, 14 for t = 0, 1, 2: slope 2, mean 37/3 at t = 1;
  // at t = 3: 37/3 + 4 = 16.33 -> 16.
  const std::vector<PlannedCuts> r{{0, {0, 10, 40}}, {1, {0, 13, 40}}, {2, {0, 14, 40}}};
  EXPECT_EQ(forecast_offsets(r, 3), (Offsets{0, 16, 40}));
}

TEST(ForecastOffsets, ClampedOrderedAndWithoutATrendTheNewest) {
  // Cut 1 runs right and cut 2 left: they would cross; order is kept, and
  // both stay inside [0, N].
  const std::vector<PlannedCuts> cross{{0, {0, 10, 30, 40}}, {1, {0, 20, 20, 40}}};
  EXPECT_EQ(forecast_offsets(cross, 5), (Offsets{0, 40, 40, 40}));
  const std::vector<PlannedCuts> one{{7, {0, 3, 9}}};
  EXPECT_EQ(forecast_offsets(one, 100), (Offsets{0, 3, 9}));
  const std::vector<PlannedCuts> same_time{{1, {0, 3, 9}}, {1, {0, 5, 9}}};
  EXPECT_EQ(forecast_offsets(same_time, 2), (Offsets{0, 5, 9}));
}

TEST(ForecastOffsets, BadInput) {
  expect_error([] { forecast_offsets({}, 1); }, {"no rounds"});
  const std::vector<PlannedCuts> r{{0, {0, 5, 10}}, {1, {0, 5, 11}}};
  expect_error([&] { forecast_offsets(r, 2); }, {"round 0", "10 elements", "expected the same"});
  const std::vector<PlannedCuts> ok{{0, {0, 5, 10}}, {1, {0, 6, 10}}};
  expect_error([&] { forecast_offsets(ok, std::numeric_limits<double>::infinity()); },
               {"time inf", "not finite"});
  const std::vector<PlannedCuts> bad{{0, {0, 6, 5}}, {1, {0, 6, 10}}};
  expect_error([&] { forecast_offsets(bad, 2); }, {"offset 2 = 5", "nondecreasing"});
}

}  // namespace
