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

TEST(ForecastOffsets, RecentPlansWeighMoreWithAHalfLife) {
  // Cut 1 at 10, 10, 10, 12, 14 for t = 0..4 speeds up. Equal weights: mean
  // t 2, mean 11.2, slope 10/10 = 1, at t = 5: 14.2 -> 14. Half-life 1
  // (weights 1/16, 1/8, 1/4, 1/2, 1): mean t 98/31, mean 390/31, slope
  // 24/17, at t = 5: 258/17 = 15.18 -> 15; a half-life of 1/4 leaves about
  // the line through the newest two, 16 at t = 5.
  const std::vector<PlannedCuts> r{
      {0, {0, 10, 40}}, {1, {0, 10, 40}}, {2, {0, 10, 40}}, {3, {0, 12, 40}}, {4, {0, 14, 40}}};
  EXPECT_EQ(forecast_offsets(r, 5), (Offsets{0, 14, 40}));
  EXPECT_EQ(forecast_offsets(r, 5, 1.0), (Offsets{0, 15, 40}));
  EXPECT_EQ(forecast_offsets(r, 5, 0.25), (Offsets{0, 16, 40}));
  // A line is a line under any weights.
  const std::vector<PlannedCuts> line{
      {0, {0, 10, 20, 30}}, {1, {0, 12, 22, 30}}, {2, {0, 14, 24, 30}}};
  EXPECT_EQ(forecast_offsets(line, 4, 0.5), (Offsets{0, 18, 28, 30}));
  expect_error([&] { forecast_offsets(r, 5, 0.0); },
               {"half_life: expected a number > 0", "got 0 rounds"});
  expect_error([&] { forecast_offsets(r, 5, std::numeric_limits<double>::quiet_NaN()); },
               {"half_life: expected a number > 0", "got nan"});
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
  expect_error([&] { forecast_offsets(bad, 2); },
               {"offset 2: expected a value >= 6 (offset 1; nondecreasing offsets), got 5"});
}

// Two parts of a 10x4 grid cut at x = c: [0, c) and [c, 10) along x, the
// whole of y. The cut at 4, 5, 6 for t = 0, 1, 2 is 8 at t = 4 (both parts
// move it alike); at t = 9 it would be 13, past the grid: clamped to 10, the
// second part is empty but not inverted; a cut that would cross leaves the
// newest plan unchanged.
isocost::Decomposition two_parts(std::int64_t c) {
  isocost::Decomposition d;
  d.process_grid = {{2}, {0}};
  d.parts.resize(2);
  d.parts[0].rank = 0;
  d.parts[0].cell_lo = {0, 0, 0};
  d.parts[0].cell_hi = {c, 4, 0};
  d.parts[1].rank = 1;
  d.parts[1].cell_lo = {c, 0, 0};
  d.parts[1].cell_hi = {10, 4, 0};
  return d;
}

TEST(ForecastDecomposition, MovesSharedCutsAlike) {
  const isocost::GridShape shape{2, {10, 4, 1}};
  const std::vector<isocost::PlannedParts> r{
      {0, two_parts(4)}, {1, two_parts(5)}, {2, two_parts(6)}};
  const auto d = isocost::forecast_decomposition(r, 4, shape);
  EXPECT_EQ(d.parts[0].cell_hi[0], 8);
  EXPECT_EQ(d.parts[1].cell_lo[0], 8);
  EXPECT_EQ(d.parts[1].cell_hi[0], 10);
  EXPECT_EQ(d.parts[0].cell_hi[1], 4);
  const auto far = isocost::forecast_decomposition(r, 9, shape);
  EXPECT_EQ(far.parts[0].cell_hi[0], 10);
  EXPECT_EQ(far.parts[1].cell_lo[0], 10);
}

TEST(ForecastDecomposition, WeighsAsTheOffsets) {
  // The cut at 5, 5, 5, 6, 7 for t = 0..4 (the offsets' case halved, on a
  // grid 20 wide): 7.1 -> 7 with equal weights, 129/17 = 7.59 -> 8 with
  // half-life 1; both parts alike.
  const isocost::GridShape shape{2, {20, 4, 1}};
  auto at = [](std::int64_t c) {
    auto d = two_parts(c);
    d.parts[1].cell_hi[0] = 20;
    return d;
  };
  const std::vector<isocost::PlannedParts> r{
      {0, at(5)}, {1, at(5)}, {2, at(5)}, {3, at(6)}, {4, at(7)}};
  EXPECT_EQ(isocost::forecast_decomposition(r, 5, shape).parts[0].cell_hi[0], 7);
  const auto w = isocost::forecast_decomposition(r, 5, shape, 1.0);
  EXPECT_EQ(w.parts[0].cell_hi[0], 8);
  EXPECT_EQ(w.parts[1].cell_lo[0], 8);
  EXPECT_EQ(w.parts[1].cell_hi[0], 20);
  expect_error([&] { isocost::forecast_decomposition(r, 5, shape, -1.0); },
               {"half_life: expected a number > 0", "got -1 rounds"});
}

TEST(ForecastDecomposition, CrossingCutsKeepTheNewestPlan) {
  // Part 1's lower end runs right (5, 6) and its upper end left (10, 7):
  // at t = 3 they would be 8 and 1.
  const isocost::GridShape shape{2, {10, 4, 1}};
  auto a = two_parts(5), b = two_parts(6);
  b.parts[1].cell_hi[0] = 7;
  const std::vector<isocost::PlannedParts> r{{0, a}, {1, b}};
  const auto d = isocost::forecast_decomposition(r, 3, shape);
  EXPECT_EQ(d.parts[1].cell_lo[0], 6);  // unchanged: b
  EXPECT_EQ(d.parts[1].cell_hi[0], 7);
  expect_error([&] { isocost::forecast_decomposition({}, 1, shape); }, {"no rounds"});
  auto three = two_parts(5);
  three.parts.push_back(three.parts[1]);
  const std::vector<isocost::PlannedParts> mixed{{0, a}, {1, three}};
  expect_error([&] { isocost::forecast_decomposition(mixed, 2, shape); },
               {"round 0 has 2 parts", "the newest 3"});
}

}  // namespace
