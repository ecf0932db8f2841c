// Tests for isocost/cost_model.hpp: every model against closed forms, and
// every validation rule against the message it must produce.
#include "isocost/cost_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "support/expect_error.hpp"
#include "support/values.hpp"

namespace {

using isocost::CostModel;
using isocost::Error;

using isocost::testing::kInf;
using isocost::testing::kNaN;

using isocost::testing::expect_error;

// Swartz eq. (4) written out independently, in long double.
long double sieve_T(long double x, long double A = 3.9098e-7L, long double p = 1.43L,
                    long double c = 1.08366L) {
  return A * std::pow(x, p) / (std::log(x) - c);
}

// ---------------------------------------------------------------------------
TEST(SieveModel, CostIsCumulativeFromLo) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  EXPECT_EQ(t.lo(), 6);
  EXPECT_EQ(t.hi(), 268435456);
  EXPECT_EQ(t.cost(6), 0.0);
  const long double expected_total = sieve_T(268435456.0L) - sieve_T(6.0L);
  EXPECT_NEAR(t.total(), static_cast<double>(expected_total), 1e-12 * expected_total);
  const double x = 1e8;
  EXPECT_NEAR(t.cost(x), static_cast<double>(sieve_T(x) - sieve_T(6)), 1e-12 * expected_total);
  EXPECT_EQ(t.kind(), "sieve");
}

TEST(SieveModel, DensityIsSwartzEquation5) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  for (double x : {10.0, 1e3, 1e6, 2.5e8}) {
    // eq. (5): t'(x) = A·r·x^0.43·(1.43 − r), r = 1/(ln x − 1.08366)
    const double r = 1.0 / (std::log(x) - 1.08366);
    const double expected = 3.9098e-7 * r * std::pow(x, 0.43) * (1.43 - r);
    EXPECT_NEAR(t.density(x), expected, 1e-13 * expected) << "x=" << x;
    const auto p = t.evaluate(x);
    EXPECT_EQ(p.density, t.density(x));
    EXPECT_EQ(p.cost, t.cost(x));
  }
}

TEST(SieveModel, IncreasingRegionStartsAtExpOfCPlusInverseP) {
  // t'(x) > 0 iff ln x − c > 1/p: x > exp(1.08366 + 1/1.43) = 5.94745…
  const double from = isocost::sieve_increasing_from({});
  EXPECT_NEAR(from, std::exp(1.08366 + 1 / 1.43), 1e-14);
  EXPECT_NEAR(from, 5.9474, 1e-4);
  // At the threshold itself the density vanishes; the model is accepted.
  const auto t = isocost::sieve_model({}, from, 100);
  EXPECT_NEAR(t.density(from), 0.0, 1e-12);
  EXPECT_GT(t.density(from + 0.1), 0.0);
}

TEST(SieveModel, DomainOutsideIncreasingRegionIsAnError) {
  expect_error([] { isocost::sieve_model({}, 5, 268435456); },
               {"lo=5", "increasing region", "5.947"});
  expect_error([] { isocost::sieve_model({}, 2, 3); }, {"lo=2"});
}

TEST(SieveModel, BadParametersAreErrors) {
  expect_error([] { isocost::sieve_model({.A = 0}, 6, 100); }, {"A: expected > 0", "0"});
  expect_error([] { isocost::sieve_model({.A = 1, .p = -1}, 6, 100); }, {"p: expected > 0", "-1"});
  expect_error([] { isocost::sieve_model({.A = kNaN}, 6, 100); },
               {"A: expected a finite number", "nan"});
  expect_error([] { isocost::sieve_model({.c = kInf}, 6, 100); },
               {"c: expected a finite number", "inf"});
  expect_error([] { isocost::sieve_model({}, 100, 100); }, {"lo < hi", "lo=100", "hi=100"});
  expect_error([] { isocost::sieve_model({}, 100, 50); }, {"lo < hi"});
  expect_error([] { isocost::sieve_model({}, 6, kInf); }, {"domain hi: expected a finite number"});
}

// ---------------------------------------------------------------------------
TEST(PowerModel, ClosedForm) {
  // t(x) = 2x^3 + 5 on [1, 2]: cost = 2(x^3 − 1), density 6x^2, B cancels.
  const auto t = isocost::power_model(2, 3, 5, 1, 2);
  EXPECT_DOUBLE_EQ(t.total(), 14.0);
  EXPECT_DOUBLE_EQ(t.cost(1.5), 2 * (3.375 - 1));
  EXPECT_DOUBLE_EQ(t.density(1.5), 6 * 2.25);
  // Negative A with negative p also increases: t = −1/x on [1, 2].
  const auto u = isocost::power_model(-1, -1, 0, 1, 2);
  EXPECT_DOUBLE_EQ(u.total(), 0.5);
  EXPECT_DOUBLE_EQ(u.density(2), 0.25);
  // Density at x = 0 for p > 1 is 0, for p = 1 it is A.
  EXPECT_EQ(isocost::power_model(1, 2, 0, 0, 1).density(0), 0.0);
  EXPECT_EQ(isocost::power_model(3, 1, 0, 0, 1).density(0), 3.0);
}

TEST(PowerModel, NonIncreasingParametersAreErrors) {
  expect_error([] { isocost::power_model(-1, 2, 0, 0, 1); }, {"A*p > 0", "A=-1", "p=2"});
  expect_error([] { isocost::power_model(1, 0, 0, 1, 2); }, {"A*p > 0"});
  expect_error([] { isocost::power_model(1, 2, 0, -1, 1); }, {"lo: expected >= 0", "-1"});
  expect_error([] { isocost::power_model(-1, -1, 0, 0, 1); }, {"lo: expected > 0"});
  expect_error([] { isocost::power_model(1, kNaN, 0, 0, 1); }, {"p: expected a finite number"});
}

// ---------------------------------------------------------------------------
TEST(PolynomialModel, ClosedFormAndDerivative) {
  // t = 1 + 2x + 3x^2 on [0, 2]: cost(x) = 2x + 3x^2, t' = 2 + 6x.
  const auto t = isocost::polynomial_model({1, 2, 3}, 0, 2);
  EXPECT_DOUBLE_EQ(t.total(), 16.0);
  EXPECT_DOUBLE_EQ(t.cost(0.5), 1.75);
  EXPECT_DOUBLE_EQ(t.density(0.5), 5.0);
  EXPECT_EQ(t.kind(), "polynomial");
}

TEST(PolynomialModel, TouchingZeroSlopeIsAccepted) {
  // t = (x − 1)^3 + 1 = x^3 − 3x^2 + 3x: t' = 3(x − 1)^2 >= 0, zero at x = 1.
  const auto t = isocost::polynomial_model({0, 3, -3, 1}, 0, 2);
  EXPECT_DOUBLE_EQ(t.total(), 2.0);
  EXPECT_DOUBLE_EQ(t.density(1), 0.0);
}

TEST(PolynomialModel, DecreasingSomewhereIsAnErrorNamingWhere) {
  // t = x^3 − x on [−1, 1]: t' = 3x^2 − 1, minimum −1 at x = 0 (root of t'').
  expect_error(
      [] {
        isocost::polynomial_model({0, -1, 0, 1}, -1, 1);
      },
      {"t'(0): expected a value >= 0", "nondecreasing", "got -1"});
  // t = x^2 on [−1, 1]: t' = 2x, minimum −2 at the left end.
  expect_error(
      [] {
        isocost::polynomial_model({0, 0, 1}, -1, 1);
      },
      {"t'(-1): expected a value >= 0"});
  // t' = (x^2 − 1)^2 − 0.01 dips below zero only near x = ±1, both interior
  // minima of t' on [−2, 2]; the exact isolation must find them.
  // t = 0.99x − (2/3)x^3 + x^5/5.
  const std::vector<double> c{0, 0.99, 0, -2.0 / 3, 0, 0.2};
  expect_error([&] { isocost::polynomial_model(c, -2, 2); },
               {"expected a value >= 0", "got -0.01"});
  // On [−0.5, 0.5] the same polynomial increases.
  EXPECT_NO_THROW(isocost::polynomial_model(c, -0.5, 0.5));
}

TEST(PolynomialModel, BadCoefficientsAreErrors) {
  expect_error([] { isocost::polynomial_model({5}, 0, 1); }, {"degree >= 1"});
  expect_error([] { isocost::polynomial_model({1, 0, 0}, 0, 1); }, {"degree >= 1"});
  expect_error(
      [] {
        isocost::polynomial_model({0, kNaN}, 0, 1);
      },
      {"c1: expected a finite number", "nan"});
}

// ---------------------------------------------------------------------------
TEST(AnalyticModel, WithDensity) {
  const auto t = isocost::analytic_model([](double x) { return std::exp(x); },
                                         [](double x) { return std::exp(x); }, 0, 1);
  EXPECT_NEAR(t.total(), std::exp(1.0) - 1, 1e-15);
  EXPECT_EQ(t.cost(0), 0.0);
  EXPECT_DOUBLE_EQ(t.density(0.5), std::exp(0.5));
}

TEST(AnalyticModel, NumericDensityFollowsTheStepRule) {
  // t = x^3 on [0, 10]: t' = 3x^2. Central differences have error h^2·t'''/6 = h^2
  // with h = ε^(1/3)·10 ≈ 6e-5: about 4e-9, plus rounding ε·t/h ≈ 4e-9.
  const auto t = isocost::analytic_model([](double x) { return x * x * x; }, {}, 0, 10);
  for (double x : {1.0, 5.0, 9.0}) EXPECT_NEAR(t.density(x), 3 * x * x, 1e-7) << x;
  // At the ends the one-sided second-order formula is used: error ~ h^2·t'''.
  EXPECT_NEAR(t.density(0), 0.0, 1e-7);
  EXPECT_NEAR(t.density(10), 300.0, 1e-6);
  // A narrow domain far from zero: the step is capped at (hi − lo)/8.
  const auto u = isocost::analytic_model([](double x) { return 2 * x; }, {}, 1e8, 1e8 + 1);
  EXPECT_NEAR(u.density(1e8 + 0.5), 2.0, 1e-6);
  EXPECT_NEAR(u.density(1e8), 2.0, 1e-6);
}

TEST(AnalyticModel, SampledChecksCatchBadCallables) {
  expect_error([] { isocost::analytic_model([](double x) { return -x; }, {}, 0, 1); },
               {"analytic model: t(",
                "expected a value >= 0 (t before it; t must be nondecreasing), got -"});
  expect_error(
      [] { isocost::analytic_model([](double x) { return x < 0.75 ? x : kNaN; }, {}, 0, 1); },
      {"t(0.75) = nan", "not finite"});
  expect_error(
      [] {
        isocost::analytic_model([](double x) { return x; }, [](double) { return -1.0; }, 0, 1);
      },
      {"density(0): expected a finite value >= 0, got -1"});
  expect_error([] { isocost::analytic_model([](double) { return 3.0; }, {}, 0, 1); },
               {"total cost", "> 0"});
  expect_error([] { isocost::analytic_model({}, {}, 0, 1); }, {"callable is empty"});
}

// ---------------------------------------------------------------------------
std::vector<double> squares_x() { return {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; }
std::vector<double> squares_t() {
  std::vector<double> t;
  for (double x : squares_x()) t.push_back(x * x + 7);  // offset t_0 = 7 is removed
  return t;
}

TEST(TabulatedModel, PchipInterpolatesKnotsExactlyAndStaysMonotone) {
  const auto t = isocost::tabulated_model(squares_x(), squares_t());
  EXPECT_EQ(t.kind(), "pchip");
  EXPECT_EQ(t.lo(), 0);
  EXPECT_EQ(t.hi(), 10);
  EXPECT_DOUBLE_EQ(t.total(), 100.0);
  for (double x : squares_x()) EXPECT_NEAR(t.cost(x), x * x, 1e-12) << x;
  // Between knots pchip is close to x^2 (harmonic-mean slopes, O(h^2)-ish).
  EXPECT_NEAR(t.cost(4.5), 20.25, 0.3);
  double previous = 0;
  for (int k = 0; k <= 1000; ++k) {
    const double x = 0.01 * k;
    EXPECT_GE(t.cost(x), previous) << x;
    EXPECT_GE(t.density(x), 0.0) << x;
    previous = t.cost(x);
  }
}

TEST(TabulatedModel, MakimaOvershootIsAnErrorThatSuggestsPchip) {
  // Monotone data on which makima's interpolant decreases, first inside [1, 2]
  // (slope down to about −0.18) and again inside [3, 4] (about −0.49).
  std::vector<double> x{0, 1, 2, 3, 4, 5}, t{0, 1, 1.1, 3, 3.01, 6};
  expect_error([&] { isocost::tabulated_model(x, t, isocost::Interpolation::makima); },
               {"makima", "decreases", "samples 1 and 2", "pchip"});
  // pchip accepts the same data.
  EXPECT_NO_THROW(isocost::tabulated_model(x, t, isocost::Interpolation::pchip));
  // makima on smooth data is fine and exact at the knots.
  const auto m = isocost::tabulated_model(squares_x(), squares_t(), isocost::Interpolation::makima);
  EXPECT_NEAR(m.cost(3), 9.0, 1e-12);
}

TEST(TabulatedModel, LinearNeedsTwoSamples) {
  const auto t = isocost::tabulated_model({0, 2}, {1, 5}, isocost::Interpolation::linear);
  EXPECT_DOUBLE_EQ(t.cost(0.5), 1.0);
  EXPECT_DOUBLE_EQ(t.density(1.7), 2.0);
  const auto u = isocost::tabulated_model({0, 1, 3}, {0, 1, 2}, isocost::Interpolation::linear);
  EXPECT_DOUBLE_EQ(u.cost(2), 1.5);
  EXPECT_DOUBLE_EQ(u.density(3), 0.5);
}

TEST(TabulatedModel, BadSamplesAreErrors) {
  using isocost::Interpolation;
  expect_error(
      [] {
        isocost::tabulated_model({0, 1, 2, 3}, {0, 1, 0.5, 2});
      },
      {"must not decrease", "sample 2", "t=0.5"});
  expect_error(
      [] {
        isocost::tabulated_model({0, 1, 1, 3}, {0, 1, 2, 3});
      },
      {"increase strictly", "sample 2"});
  expect_error([] { isocost::tabulated_model({0, 1, 2}, {0, 1, 2}); }, {"at least 4", "got 3"});
  expect_error([] { isocost::tabulated_model({0}, {0}, Interpolation::linear); }, {"at least 2"});
  expect_error(
      [] {
        isocost::tabulated_model({0, 1}, {0, 1, 2}, Interpolation::linear);
      },
      {"2 x values but 3 t values"});
  expect_error(
      [] {
        isocost::tabulated_model({0, 1, 2, kNaN}, {0, 1, 2, 3});
      },
      {"sample 3", "not finite"});
  expect_error([] { isocost::tabulated_model({0, 1, 2, 3}, {1, 1, 1, 1}); }, {"total cost"});
  expect_error([] { isocost::parse_interpolation("cubic"); }, {"'cubic'", "pchip"});
}

// ---------------------------------------------------------------------------
TEST(DiscreteModel, PrefixSumsAndPiecewiseLinearCost) {
  const auto t = isocost::discrete_model({1, 2, 3, 4});
  EXPECT_TRUE(t.is_discrete());
  EXPECT_EQ(t.lo(), 0);
  EXPECT_EQ(t.hi(), 4);
  EXPECT_EQ(t.total(), 10);
  const auto p = t.prefix_sums();
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[2], 3);
  EXPECT_EQ(p[4], 10);
  EXPECT_DOUBLE_EQ(t.cost(2.5), 3 + 0.5 * 3);
  EXPECT_EQ(t.density(2.5), 3);
  EXPECT_EQ(t.density(4), 4);  // the last cell at the right end
  // Offset domain: cell k covers [first + k, first + k + 1).
  const auto u = isocost::discrete_model({5, 5}, 100);
  EXPECT_EQ(u.lo(), 100);
  EXPECT_EQ(u.hi(), 102);
  EXPECT_DOUBLE_EQ(u.cost(101.5), 7.5);
  EXPECT_FALSE(isocost::power_model(1, 1, 0, 0, 1).is_discrete());
}

TEST(DiscreteModel, BadWeightsAreErrors) {
  expect_error([] { isocost::discrete_model({}); }, {"empty"});
  expect_error(
      [] {
        isocost::discrete_model({1, -2, 3});
      },
      {"weight 1: expected a finite value >= 0, got -2"});
  expect_error(
      [] {
        isocost::discrete_model({1, kNaN});
      },
      {"weight 1: expected a finite value >= 0, got nan"});
  expect_error([] { isocost::discrete_model({0, 0}); }, {"all weights are zero"});
}

// The build sums most blocks of cells with a cheaper step that is valid only
// while no weight exceeds the sum so far, and sums the others again in full:
// both must give textbook Neumaier's prefix sums bit for bit — which are
// sorted without a running maximum — and bad weights must still be named by
// index, in any block.
TEST(DiscreteModel, PrefixSumsAreNeumaiersBitForBitInEveryBlock) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> w(5 * 4096 + 17);
  for (double& x : w) x = u(rng) < 0.01 ? 1e3 * u(rng) : u(rng) * 1e-3;
  w[3 * 4096 + 5] = 1e12;  // above everything before it: its block is summed again
  w[4 * 4096 + 9] = -0.0;  // a sign bit, but a valid weight
  const auto t = isocost::discrete_model(w);
  double sum = 0, c = 0;
  const auto p = t.prefix_sums();
  ASSERT_EQ(p.size(), w.size() + 1);
  EXPECT_EQ(p[0], 0);
  for (std::size_t k = 0; k < w.size(); ++k) {
    const double s = sum + w[k];
    c += std::abs(sum) >= std::abs(w[k]) ? (sum - s) + w[k] : (w[k] - s) + sum;
    sum = s;
    ASSERT_EQ(p[k + 1], sum + c) << "prefix sum " << k + 1;
    ASSERT_LE(p[k], p[k + 1]) << "prefix sum " << k + 1;
  }
  for (const double bad : {-1e-300, kNaN, std::numeric_limits<double>::infinity()}) {
    auto v = w;
    v[4 * 4096 + 100] = bad;
    expect_error([&] { isocost::discrete_model(v); },
                 {"weight 16484: expected a finite value >= 0"});
  }
}

// ---------------------------------------------------------------------------
TEST(CostModel, OutsideTheDomainIsAnError) {
  const auto t = isocost::power_model(1, 2, 0, 0, 1);
  expect_error([&] { t.cost(1.5); }, {"x=1.5", "outside", "[0, 1]"});
  expect_error([&] { t.density(-0.1); }, {"x=-0.1"});
  expect_error([&] { t.cost(kNaN); }, {"x=nan"});
  expect_error([&] { t.cost(0.8, 0.2); }, {"a <= b"});
  EXPECT_DOUBLE_EQ(t.cost(0.2, 0.8), 0.64 - 0.04);
}

TEST(CostModel, CopiesShareTheImplementation) {
  const auto t = isocost::sieve_model({}, 6, 1e6);
  const CostModel u = t;  // value semantics: same answers
  EXPECT_EQ(u.cost(1234.5), t.cost(1234.5));
  EXPECT_EQ(u.describe(), t.describe());
}

}  // namespace

namespace {

TEST(PolynomialModel, ScaledVariable) {
  // t = u + u^2 with u = (x − 1e8)/1e8 on [1e8, 3e8]: u in [0, 2], TT = 6,
  // t'(x) = (1 + 2u)/1e8.
  const auto t = isocost::polynomial_model({0, 1, 1}, 1e8, 3e8, 1e8, 1e8);
  EXPECT_DOUBLE_EQ(t.total(), 6.0);
  EXPECT_DOUBLE_EQ(t.cost(2e8), 2.0);
  EXPECT_DOUBLE_EQ(t.density(2e8), 3e-8);
  EXPECT_EQ(t.evaluate(2.5e8).cost, t.cost(2.5e8));
  EXPECT_NE(t.describe().find("u = (x - 1e+08)/1e+08"), std::string::npos) << t.describe();
  // Decreasing in u on part of the domain: t = −u + u^2 on u in [0, 2] dips
  // until u = 0.5, i.e. x = 1.5e8, where t' = 0; the minimum of t' is at lo.
  expect_error(
      [] {
        isocost::polynomial_model({0, -1, 1}, 1e8, 3e8, 1e8, 1e8);
      },
      {"t'(1e+08): expected a value >= 0", "got -"});
  expect_error([] { isocost::polynomial_model({0, 1}, 0, 1, 0, 0); }, {"scale: expected > 0"});
}

TEST(ExponentialModel, ClosedForm) {
  // t = 2·e^{3(x − 1)} on [1, 2]: cost = 2(e^{3(x−1)} − 1), density 6e^{3(x−1)}.
  const auto t = isocost::exponential_model(2, 3, 1, 2);
  EXPECT_NEAR(t.total(), 2 * (std::exp(3.0) - 1), 1e-13);
  EXPECT_NEAR(t.cost(1.5), 2 * (std::exp(1.5) - 1), 1e-14);
  EXPECT_NEAR(t.density(1.5), 6 * std::exp(1.5), 1e-13);
  // Decaying work with negative A and b also increases t.
  EXPECT_GT(isocost::exponential_model(-1, -2, 0, 1).density(0.5), 0);
  expect_error([] { isocost::exponential_model(1, -1, 0, 1); }, {"A*b > 0"});
  expect_error([] { isocost::exponential_model(1, 1, 0, 1000); }, {"exceeds 700"});
}

}  // namespace

namespace {

// Issue 3: PCHIP and Makima interpolants of monotone data are monotone. PCHIP
// always is (Fritsch–Butland slopes); Makima may overshoot, and then the model
// refuses to exist rather than decrease. Checked densely on random data.
TEST(TabulatedModel, InterpolantsOfMonotoneDataAreMonotoneOrRefused) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0, 1);
  int makima_refused = 0, makima_accepted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 4 + static_cast<int>(rng() % 30);
    std::vector<double> x{0}, t{0};
    for (int k = 1; k < n; ++k) {
      x.push_back(x.back() + 0.05 + u(rng));
      // Half the data sets have flat stretches and jumps, where interpolants
      // overshoot; the other half are smooth.
      const double jump = rng() % 3 == 0 ? 0.0 : std::pow(u(rng), 3) * 10;
      t.push_back(t.back() + (trial % 2 ? jump : 0.5 + u(rng)));
    }
    if (t.back() == 0) t.back() = 1;
    for (auto kind : {isocost::Interpolation::pchip, isocost::Interpolation::makima}) {
      std::optional<CostModel> m;
      try {
        m = isocost::tabulated_model(x, t, kind);
      } catch (const Error& e) {
        ASSERT_EQ(kind, isocost::Interpolation::makima) << "pchip refused: " << e.what();
        ++makima_refused;
        continue;
      }
      if (kind == isocost::Interpolation::makima) ++makima_accepted;
      double previous = 0;
      for (int k = 0; k <= 2000; ++k) {
        const double xx = k == 2000 ? x.back() : x.back() * k / 2000;
        const double c = m->cost(xx);
        ASSERT_GE(c, previous - 1e-12 * t.back()) << "trial " << trial << " x=" << xx;
        previous = c;
      }
    }
  }
  std::cout << "[ makima ] accepted " << makima_accepted << ", refused " << makima_refused
            << " of 300 data sets\n";
  EXPECT_GT(makima_refused, 0);   // the rough data make makima overshoot …
  EXPECT_GT(makima_accepted, 0);  // … and the smooth data are checked for monotonicity
}

}  // namespace
