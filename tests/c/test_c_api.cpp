// Tests for isocost/isocost.h, the C interface: every constructor and partition
// equals the C++ library's result bit for bit on the same inputs, load stats
// equal load_stats(), and every error path returns its documented code with a
// message naming the bad argument, per thread.
#include "c_test_support.hpp"
#include "isocost/isocost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"

namespace {

using isocost::testing::Model;

// Takes ownership of `out` after the call that set it, which must succeed
// (`out` by reference: read after the call, whatever the order of arguments).
Model Made(int status, isocost_model*& out) {
  EXPECT_EQ(status, ISOCOST_OK) << isocost_last_error();
  EXPECT_STREQ(isocost_last_error(), "");
  EXPECT_NE(out, nullptr);
  return Model(out);
}

using isocost::testing::ExpectFailure;
using isocost::testing::Has;

// The C partition of m, for ranks, speeds (empty: NULL) and integer.
std::vector<double> CCuts(const isocost_model* m, int ranks, const std::vector<double>& speeds,
                          bool integer) {
  std::vector<double> cuts(static_cast<std::size_t>(ranks) + 1, -1.0);
  const int status = isocost_partition(m, ranks, speeds.empty() ? nullptr : speeds.data(),
                                       integer ? 1 : 0, cuts.data());
  EXPECT_EQ(status, ISOCOST_OK) << isocost_last_error();
  return cuts;
}

// The C++ partition of the same model.
std::vector<double> CppCuts(const isocost::CostModel& m, int ranks,
                            const std::vector<double>& speeds, bool integer) {
  isocost::PartitionOptions options;
  options.integer = integer;
  const auto s =
      speeds.empty() ? isocost::Speeds::uniform(ranks) : isocost::Speeds::from_values(speeds);
  return isocost::partition(m, s, options).cuts;
}

// C model == C++ model: domain, total, cost and density at 101 points, and
// partitions with and without speeds (and integer when `integer_ok`), bit for bit.
void ExpectSameModel(const isocost_model* c, const isocost::CostModel& cpp, bool integer_ok) {
  double lo = 0, hi = 0, total = 0;
  ASSERT_EQ(isocost_model_domain(c, &lo, &hi), ISOCOST_OK) << isocost_last_error();
  ASSERT_EQ(isocost_model_total(c, &total), ISOCOST_OK) << isocost_last_error();
  EXPECT_EQ(lo, cpp.lo());
  EXPECT_EQ(hi, cpp.hi());
  EXPECT_EQ(total, cpp.total());
  for (int k = 0; k <= 100; ++k) {
    const double x = k == 100 ? hi : lo + (hi - lo) * k / 100;
    double t = -1, d = -1;
    ASSERT_EQ(isocost_model_cost(c, x, &t), ISOCOST_OK) << isocost_last_error();
    ASSERT_EQ(isocost_model_density(c, x, &d), ISOCOST_OK) << isocost_last_error();
    EXPECT_EQ(t, cpp.cost(x)) << "x = " << x;
    EXPECT_EQ(d, cpp.density(x)) << "x = " << x;
  }
  const std::vector<double> speeds{1, 3, 0.25, 2, 1.5};
  for (int ranks : {1, 2, 5, 16}) {
    EXPECT_EQ(CCuts(c, ranks, {}, false), CppCuts(cpp, ranks, {}, false)) << ranks << " ranks";
    if (integer_ok) {
      EXPECT_EQ(CCuts(c, ranks, {}, true), CppCuts(cpp, ranks, {}, true)) << ranks << " ranks";
    }
  }
  EXPECT_EQ(CCuts(c, 5, speeds, false), CppCuts(cpp, 5, speeds, false));
  if (integer_ok) {
    EXPECT_EQ(CCuts(c, 5, speeds, true), CppCuts(cpp, 5, speeds, true));
  }
}

// ---------------------------------------------------------------------------
// Constructors and partitions equal the C++ API

TEST(CApiModels, SieveEqualsCppSieveWithQEqualOne) {
  const double A = 3.9098e-7, p = 1.43, c = 1.08366, lo = 6, hi = 1 << 20;
  isocost_model* out = nullptr;
  const Model m = Made(isocost_model_sieve(A, p, c, lo, hi, &out), out);
  ExpectSameModel(m.get(), isocost::sieve_model({.A = A, .p = p, .c = c, .q = 1}, lo, hi), true);
  // The mapping, independently: t(x) = A·x^p/(ln x − c) − the same at lo (Swartz eq. 4).
  auto T = [&](double x) { return A * std::pow(x, p) / (std::log(x) - c); };
  for (double x : {6.0, 100.0, 65536.0, 1e6}) {
    double t = 0;
    ASSERT_EQ(isocost_model_cost(m.get(), x, &t), ISOCOST_OK);
    EXPECT_NEAR(t, T(x) - T(lo), 1e-12 * T(hi)) << "x = " << x;
  }
}

TEST(CApiModels, PowerEqualsCpp) {
  isocost_model* out = nullptr;
  const Model m = Made(isocost_model_power(2.5, 1.7, 4.0, 0, 1000, &out), out);
  ExpectSameModel(m.get(), isocost::power_model(2.5, 1.7, 4.0, 0, 1000), true);
  double t = 0;
  ASSERT_EQ(isocost_model_cost(m.get(), 10, &t), ISOCOST_OK);
  EXPECT_NEAR(t, 2.5 * std::pow(10.0, 1.7), 1e-12);  // B cancels
}

TEST(CApiModels, PolynomialEqualsCpp) {
  const std::vector<double> coefficients{1, 2, 3};  // 1 + 2x + 3x²
  isocost_model* out = nullptr;
  const Model m = Made(isocost_model_polynomial(coefficients.data(), 3, 0, 10, &out), out);
  ExpectSameModel(m.get(), isocost::polynomial_model(coefficients, 0, 10), true);
  double t = 0;
  ASSERT_EQ(isocost_model_cost(m.get(), 2, &t), ISOCOST_OK);
  EXPECT_DOUBLE_EQ(t, 2 * 2 + 3 * 4);  // t(x) − t(0)
}

TEST(CApiModels, TabulatedEqualsCppForEveryInterpolation) {
  const std::vector<double> x{0, 1, 2, 4, 7, 10}, t{0, 1, 3, 4, 9, 12};
  const struct {
    int c;
    isocost::Interpolation cpp;
  } cases[] = {{ISOCOST_INTERPOLATION_PCHIP, isocost::Interpolation::pchip},
               {ISOCOST_INTERPOLATION_MAKIMA, isocost::Interpolation::makima},
               {ISOCOST_INTERPOLATION_LINEAR, isocost::Interpolation::linear}};
  for (const auto& k : cases) {
    SCOPED_TRACE(std::string(isocost::to_string(k.cpp)));
    isocost_model* out = nullptr;
    const Model m = Made(isocost_model_tabulated(x.data(), t.data(), 6, k.c, &out), out);
    ExpectSameModel(m.get(), isocost::tabulated_model(x, t, k.cpp), true);
  }
}

TEST(CApiModels, DiscreteEqualsCppAndCutsAtTheNearestBoundaries) {
  const std::vector<double> w{5, 5, 9, 6, 3, 8, 2, 2};
  isocost_model* out = nullptr;
  const Model m = Made(isocost_model_discrete(w.data(), 8, &out), out);
  const auto cpp = isocost::discrete_model(w);
  ExpectSameModel(m.get(), cpp, true);
  // Prefix sums 0 5 10 19 25 28 36 38 40; targets 40/3 and 80/3: the nearest
  // boundaries are 2 (|10 − 13.33| < |19 − 13.33|) and 5 (|28 − 26.67| <
  // |25 − 26.67|), by hand and from the C++ API; integer is implied.
  const std::vector<double> expected{0, 2, 5, 8};
  EXPECT_EQ(CCuts(m.get(), 3, {}, true), expected);
  EXPECT_EQ(CCuts(m.get(), 3, {}, false), expected);
  EXPECT_EQ(CppCuts(cpp, 3, {}, true), expected);
}

// ---------------------------------------------------------------------------
// Load statistics

TEST(CApiLoadStats, EqualsCppLoadStats) {
  const std::vector<double> times{1.0, 2.0, 3.0, 6.0};
  struct isocost_load_stats s {};
  ASSERT_EQ(isocost_load_stats(times.data(), 4, &s), ISOCOST_OK) << isocost_last_error();
  const isocost::LoadStats cpp = isocost::load_stats(times);
  EXPECT_EQ(s.t_min, cpp.min);
  EXPECT_EQ(s.t_max, cpp.max);
  EXPECT_EQ(s.t_avg, cpp.mean);
  EXPECT_EQ(s.l_i, cpp.li);
  EXPECT_EQ(s.l_e, cpp.le);
  EXPECT_EQ(s.efficiency, cpp.efficiency);
  // By hand: T_avg = 3, L_I = (6 − 3)/3·100 = 100 %, L_E = 0 %, E = 3/6.
  EXPECT_EQ(s.t_min, 1.0);
  EXPECT_EQ(s.t_max, 6.0);
  EXPECT_DOUBLE_EQ(s.t_avg, 3.0);
  EXPECT_DOUBLE_EQ(s.l_i, 100.0);
  EXPECT_DOUBLE_EQ(s.l_e, 0.0);
  EXPECT_DOUBLE_EQ(s.efficiency, 0.5);
}

// ---------------------------------------------------------------------------
// Error paths

TEST(CApiErrors, NullOutPointers) {
  const double w[] = {1, 2};
  ExpectFailure(isocost_model_sieve(1, 1.43, 1.08366, 6, 100, nullptr),
                ISOCOST_ERROR_INVALID_ARGUMENT, {"isocost_model_sieve", "out is NULL"});
  ExpectFailure(isocost_model_power(1, 2, 0, 0, 1, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_power", "out is NULL"});
  ExpectFailure(isocost_model_polynomial(w, 2, 0, 1, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"out is NULL"});
  ExpectFailure(isocost_model_tabulated(w, w, 2, ISOCOST_INTERPOLATION_LINEAR, nullptr),
                ISOCOST_ERROR_INVALID_ARGUMENT, {"out is NULL"});
  ExpectFailure(isocost_model_discrete(w, 2, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_discrete", "out is NULL"});
  ExpectFailure(isocost_load_stats(w, 2, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_load_stats", "out is NULL"});
}

TEST(CApiErrors, NullInputArrays) {
  isocost_model* out = reinterpret_cast<isocost_model*>(&out);  // must become NULL
  ExpectFailure(isocost_model_discrete(nullptr, 3, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"weights is NULL"});
  EXPECT_EQ(out, nullptr);
  const double v[] = {0, 1, 2, 3};
  ExpectFailure(isocost_model_polynomial(nullptr, 2, 0, 1, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"coefficients is NULL"});
  ExpectFailure(isocost_model_tabulated(nullptr, v, 4, 0, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"x is NULL"});
  ExpectFailure(isocost_model_tabulated(v, nullptr, 4, 0, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"t is NULL"});
  struct isocost_load_stats s {};
  ExpectFailure(isocost_load_stats(nullptr, 2, &s), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"times is NULL"});
  EXPECT_EQ(out, nullptr);
}

TEST(CApiErrors, NullModelAndOutputs) {
  double x = 0, y = 0, cuts[3];
  ExpectFailure(isocost_model_cost(nullptr, 0, &x), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_cost", "model is NULL"});
  ExpectFailure(isocost_model_density(nullptr, 0, &x), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"model is NULL"});
  ExpectFailure(isocost_model_domain(nullptr, &x, &y), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_domain", "model is NULL"});
  ExpectFailure(isocost_model_total(nullptr, &x), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"model is NULL"});
  ExpectFailure(isocost_partition(nullptr, 2, nullptr, 0, cuts), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_partition", "model is NULL"});
  isocost_model* out = nullptr;
  const Model m = Made(isocost_model_power(1, 1, 0, 0, 10, &out), out);
  ExpectFailure(isocost_model_cost(m.get(), 0, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"cost is NULL"});
  ExpectFailure(isocost_model_density(m.get(), 0, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"density is NULL"});
  ExpectFailure(isocost_model_domain(m.get(), nullptr, &y), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"lo is NULL"});
  ExpectFailure(isocost_model_domain(m.get(), &x, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"hi is NULL"});
  ExpectFailure(isocost_model_total(m.get(), nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"total is NULL"});
  ExpectFailure(isocost_partition(m.get(), 2, nullptr, 0, nullptr), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"cuts is NULL"});
  isocost_model_free(nullptr);  // a no-op
}

TEST(CApiErrors, RanksAndCounts) {
  isocost_model* out = nullptr;
  const Model m = Made(isocost_model_power(1, 1, 0, 0, 10, &out), out);
  double cuts[4] = {-1, -1, -1, -1};
  ExpectFailure(isocost_partition(m.get(), 0, nullptr, 0, cuts), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"ranks", "got 0"});
  ExpectFailure(isocost_partition(m.get(), -3, nullptr, 0, cuts), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"ranks", "got -3"});
  EXPECT_EQ(cuts[0], -1);  // nothing written
  const double bad_speeds[] = {1, 0, 2};
  ExpectFailure(isocost_partition(m.get(), 3, bad_speeds, 0, cuts), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"speed of rank 1", "got 0"});
  // Integer mode needs integer ends.
  const Model frac = Made(isocost_model_power(1, 1, 0, 0, 10.5, &out), out);
  ExpectFailure(isocost_partition(frac.get(), 2, nullptr, 1, cuts), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"10.5"});

  const double w[] = {1, 2, 3, 4};
  ExpectFailure(isocost_model_discrete(w, 0, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_discrete", "n: expected an integer >= 1, got 0"});
  ExpectFailure(isocost_model_discrete(w, -5, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"n:", "got -5"});
  ExpectFailure(isocost_model_polynomial(w, 1, 0, 1, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"count: expected an integer >= 2, got 1"});
  ExpectFailure(isocost_model_tabulated(w, w, 0, 0, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"count", "got 0"});
  ExpectFailure(isocost_model_tabulated(w, w, 4, 7, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"interpolation", "got 7"});
  struct isocost_load_stats s {};
  ExpectFailure(isocost_load_stats(w, 0, &s), ISOCOST_ERROR_INVALID_ARGUMENT, {"n:", "got 0"});
  EXPECT_EQ(out, nullptr);
}

TEST(CApiErrors, BadDomains) {
  isocost_model* out = nullptr;
  ExpectFailure(isocost_model_power(1, 2, 0, 5, 5, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_power", "lo < hi", "lo=5, hi=5"});
  ExpectFailure(isocost_model_power(1, 2, 0, 7, 3, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"lo=7, hi=3"});
  ExpectFailure(isocost_model_sieve(1, 1.43, 1.08366, 100, 10, &out),
                ISOCOST_ERROR_INVALID_ARGUMENT, {"isocost_model_sieve", "lo=100, hi=10"});
  // Below exp(c + 1/p) ≈ 5.947 the sieve model decreases.
  ExpectFailure(isocost_model_sieve(1, 1.43, 1.08366, 2, 100, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_sieve", "lo=2", "increasing region"});
  const double c[] = {0, 1};
  ExpectFailure(isocost_model_polynomial(c, 2, 1, 1, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_model_polynomial"});
  ExpectFailure(isocost_model_power(1, 2, 0, 0, std::numeric_limits<double>::quiet_NaN(), &out),
                ISOCOST_ERROR_INVALID_ARGUMENT, {"hi: expected a finite number", "nan"});
  EXPECT_EQ(out, nullptr);
  // x outside the domain.
  const Model m = Made(isocost_model_power(1, 1, 0, 0, 10, &out), out);
  double t = 0;
  ExpectFailure(isocost_model_cost(m.get(), 11, &t), ISOCOST_ERROR_INVALID_ARGUMENT, {"11"});
}

TEST(CApiErrors, NegativeAndNanWeightsAndTimes) {
  isocost_model* out = nullptr;
  const double negative[] = {1, -2, 3};
  ExpectFailure(isocost_model_discrete(negative, 3, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"weight 1", "-2"});
  const double nan[] = {1, 2, std::numeric_limits<double>::quiet_NaN()};
  ExpectFailure(isocost_model_discrete(nan, 3, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"weight 2", "nan"});
  const double zero[] = {0, 0};
  ExpectFailure(isocost_model_discrete(zero, 2, &out), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"all weights are zero"});
  EXPECT_EQ(out, nullptr);
  struct isocost_load_stats s {};
  ExpectFailure(isocost_load_stats(negative, 3, &s), ISOCOST_ERROR_INVALID_ARGUMENT,
                {"isocost_load_stats", "rank 1", "-2"});
  ExpectFailure(isocost_load_stats(nan, 3, &s), ISOCOST_ERROR_INVALID_ARGUMENT, {"rank 2"});
}

// ---------------------------------------------------------------------------
// The message: cleared by success, one per thread

TEST(CApiLastError, SuccessClearsAndEachThreadHasItsOwn) {
  const double w[] = {1, 2};
  isocost_model* out = nullptr;
  ASSERT_NE(isocost_model_discrete(w, 0, &out), ISOCOST_OK);
  const std::string mine = isocost_last_error();
  EXPECT_TRUE(Has(mine, "n:")) << mine;

  std::string before, after_failure, after_success;
  std::thread other([&] {
    before = isocost_last_error();  // no call yet on this thread
    isocost_model* o = nullptr;
    isocost_model_discrete(nullptr, 2, &o);
    after_failure = isocost_last_error();
    double t = 0;
    isocost_model_power(1, 1, 0, 0, 1, &o);
    isocost_model_cost(o, 0.5, &t);
    after_success = isocost_last_error();
    isocost_model_free(o);
  });
  other.join();
  EXPECT_EQ(before, "");
  EXPECT_TRUE(Has(after_failure, "weights is NULL")) << after_failure;
  EXPECT_EQ(after_success, "");
  EXPECT_EQ(std::string(isocost_last_error()), mine);  // untouched by the other thread

  const Model m = Made(isocost_model_discrete(w, 2, &out), out);  // success clears
  EXPECT_STREQ(isocost_last_error(), "");
}

TEST(CApiLastError, StatusNames) {
  EXPECT_STREQ(isocost_status_name(ISOCOST_OK), "ISOCOST_OK");
  EXPECT_STREQ(isocost_status_name(ISOCOST_ERROR_INVALID_ARGUMENT),
               "ISOCOST_ERROR_INVALID_ARGUMENT");
  EXPECT_STREQ(isocost_status_name(ISOCOST_ERROR_NO_MEMORY), "ISOCOST_ERROR_NO_MEMORY");
  EXPECT_STREQ(isocost_status_name(ISOCOST_ERROR_FAILED), "ISOCOST_ERROR_FAILED");
  EXPECT_STREQ(isocost_status_name(ISOCOST_ERROR_NOT_CONVERGED), "ISOCOST_ERROR_NOT_CONVERGED");
  EXPECT_STREQ(isocost_status_name(99), "unknown status");
}

TEST(CApiErrors, HugeCountIsNoMemoryNotACrash) {
  const double w[] = {1};
  isocost_model* out = nullptr;
  const int status = isocost_model_discrete(w, std::numeric_limits<std::int64_t>::max() / 2, &out);
  EXPECT_EQ(status, ISOCOST_ERROR_NO_MEMORY) << isocost_last_error();
  EXPECT_EQ(out, nullptr);
}

}  // namespace
