// Tests for core/shared/compensated_sum.hpp's prefix pass
// (compensated_prefix.cpp), with which discrete_model() and
// mpi::partition_weights() build their prefix sums: against
// CompensatedSum::add(), the textbook step, bit for bit, and its reports of
// bad weights.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/shared/compensated_sum.hpp"
#include "support/values.hpp"

namespace {

using isocost::testing::kNaN;

// detail::compensated_prefix() carries on from any sum (mpi::partition_weights
// starts from the lower ranks'), and it and compensated_add() leave the sum
// as CompensatedSum::add() of every weight does, bit for bit.
TEST(CompensatedPrefix, EqualsNeumaiersAddsFromAnyStart) {
  using isocost::detail::CompensatedSum;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> w(3 * 1024 + 100);
  for (double& x : w) x = u(rng) < 0.02 ? 1e6 * u(rng) : u(rng) * 1e-9;
  w[2000] = 1e15;  // a block that fails the cheaper step's check
  w[2500] = 0;
  w[2600] = -0.0;
  for (const CompensatedSum start :
       {CompensatedSum{}, CompensatedSum{1e9, 3e-8}, CompensatedSum{0.5, -1e-17}}) {
    SCOPED_TRACE("start " + std::to_string(start.sum));
    CompensatedSum want = start, run = start, added = start;
    std::vector<double> out(w.size());
    ASSERT_EQ(isocost::detail::compensated_prefix(w, run, out.data()), w.size());
    ASSERT_EQ(isocost::detail::compensated_add(w, added), w.size());
    for (std::size_t k = 0; k < w.size(); ++k) {
      const double before = want.value();
      want.add(w[k]);
      ASSERT_EQ(out[k], want.value()) << "prefix sum " << k;
      ASSERT_LE(before, out[k]) << "prefix sum " << k;
    }
    EXPECT_EQ(run.sum, want.sum);
    EXPECT_EQ(run.compensation, want.compensation);
    EXPECT_EQ(added.sum, want.sum);
    EXPECT_EQ(added.compensation, want.compensation);
  }
}

// The first bad weight is found in any block, also after the sum overflowed;
// an overflow alone leaves +inf.
TEST(CompensatedPrefix, NamesTheFirstBadWeightAndLeavesAnOverflow) {
  using isocost::detail::CompensatedSum;
  std::vector<double> w(5000, 1.0);
  std::vector<double> out(w.size());
  for (const std::size_t at :
       {std::size_t{0}, std::size_t{1023}, std::size_t{1024}, std::size_t{4999}})
    for (const double bad : {-1.0, -1e-300, kNaN, -kNaN, std::numeric_limits<double>::infinity()}) {
      auto v = w;
      v[at] = bad;
      if (at < 4999) v[at + 1 + (4998 - at) / 2] = -5;  // a later bad weight, not reported
      CompensatedSum run, added;
      EXPECT_EQ(isocost::detail::compensated_prefix(v, run, out.data()), at) << bad;
      EXPECT_EQ(isocost::detail::compensated_add(v, added), at) << bad;
    }
  std::vector<double> big(3000, 1e305);
  CompensatedSum run;
  EXPECT_EQ(isocost::detail::compensated_prefix(big, run, out.data()), big.size());
  EXPECT_EQ(run.value(), std::numeric_limits<double>::infinity());
  big[2900] = kNaN;
  run = {};
  EXPECT_EQ(isocost::detail::compensated_prefix(big, run, out.data()), 2900u);
}

}  // namespace
