// Tests for isocost_fit() and isocost_fit_ex() (include/isocost/isocost.h): the
// C fit equals isocost::fit() bit for bit on the same samples (summary,
// parameters, the model and its partition), exact sieve data give back Swartz's
// parameters, and every outcome and error path has its code and message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "c_test_support.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/isocost.h"

namespace {

using isocost::testing::Model;

// Interval samples in the three arrays the C interface takes.
struct Timings {
  std::vector<double> lo, hi, dt;
  std::int64_t count() const { return static_cast<std::int64_t>(dt.size()); }
  isocost::Samples samples() const {
    std::vector<isocost::IntervalSample> v;
    for (std::size_t k = 0; k < dt.size(); ++k) v.push_back({lo[k], hi[k], dt[k]});
    return isocost::Samples(v);
  }
};

// Swartz eq. (4) with his Cray T3D fit: T(x) = A·x^p/(ln x − c).
double sieve_T(double x) { return 3.9098e-7 * std::pow(x, 1.43) / (std::log(x) - 1.08366); }

// One run over n log-spaced intervals of [lo, hi], timed exactly by T, with a
// relative error (−1)^k·wobble (deterministic noise).
Timings tiling(double (*T)(double), double lo, double hi, int n, double wobble = 0) {
  Timings t;
  for (int k = 0; k < n; ++k) {
    const double a = k == 0 ? lo : lo * std::pow(hi / lo, static_cast<double>(k) / n);
    const double b = k == n - 1 ? hi : lo * std::pow(hi / lo, static_cast<double>(k + 1) / n);
    t.lo.push_back(a);
    t.hi.push_back(b);
    t.dt.push_back((T(b) - T(a)) * (1 + (k % 2 == 0 ? wobble : -wobble)));
  }
  return t;
}

double power_T(double x) { return 2e-7 * std::pow(x, 1.6); }
double cubic_T(double x) { return x * x * x + x; }

using isocost::testing::ExpectFailure;
using isocost::testing::Has;

// The C summary equals the C++ one field for field, and the C model the C++
// model: domain, total, cost at 51 points and the 7-rank partition, bit for bit.
void ExpectSameFit(const isocost_model* c, const isocost_fit_summary& cs,
                   const isocost::FitResult& cpp) {
  const auto& s = cpp.summary;
  EXPECT_EQ(cs.rmse, s.rmse);
  EXPECT_EQ(cs.max_rel_error, s.max_rel_error);
  EXPECT_EQ(cs.r_squared, s.r_squared);
  EXPECT_EQ(cs.iterations, s.iterations);
  EXPECT_EQ(cs.converged, s.converged() ? 1 : 0);
  ASSERT_EQ(cs.n_parameters, static_cast<int>(s.parameters.size()));
  for (int i = 0; i < cs.n_parameters; ++i)
    EXPECT_EQ(cs.parameters[i], s.parameters[static_cast<std::size_t>(i)].value) << i;
  for (int i = cs.n_parameters; i < ISOCOST_MAX_FIT_PARAMETERS; ++i)
    EXPECT_EQ(cs.parameters[i], 0.0) << i;
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(cpp.model.has_value());
  const isocost::CostModel& m = *cpp.model;
  double lo = 0, hi = 0, total = 0;
  ASSERT_EQ(isocost_model_domain(c, &lo, &hi), ISOCOST_OK);
  ASSERT_EQ(isocost_model_total(c, &total), ISOCOST_OK);
  EXPECT_EQ(lo, m.lo());
  EXPECT_EQ(hi, m.hi());
  EXPECT_EQ(total, m.total());
  for (int k = 0; k <= 50; ++k) {
    const double x = k == 50 ? hi : lo + (hi - lo) * k / 50;
    double cost = -1;
    ASSERT_EQ(isocost_model_cost(c, x, &cost), ISOCOST_OK);
    EXPECT_EQ(cost, m.cost(x)) << x;
  }
  std::vector<double> cuts(8);
  ASSERT_EQ(isocost_partition(c, 7, nullptr, 0, cuts.data()), ISOCOST_OK) << isocost_last_error();
  EXPECT_EQ(cuts, isocost::partition(m, isocost::Speeds::uniform(7)).cuts);
}

// Fits `spec` through the C interface (must succeed) and through C++.
void ExpectFitMatches(const Timings& t, const std::string& spec) {
  isocost_model* out = nullptr;
  isocost_fit_summary cs{};
  ASSERT_EQ(isocost_fit(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), spec.c_str(), &out, &cs),
            ISOCOST_OK)
      << spec << ": " << isocost_last_error();
  EXPECT_STREQ(isocost_last_error(), "");
  Model m(out);
  ExpectSameFit(m.get(), cs, isocost::fit(t.samples(), isocost::parse_fit_spec(spec)));
}

TEST(CFit, ExactSieveDataGiveBackSwartzParameters) {
  const Timings t = tiling(sieve_T, 10, 1e7, 40);
  isocost_model* out = nullptr;
  isocost_fit_summary s{};
  ASSERT_EQ(isocost_fit(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), "sieve", &out, &s),
            ISOCOST_OK)
      << isocost_last_error();
  Model m(out);
  EXPECT_EQ(s.converged, 1);
  ASSERT_EQ(s.n_parameters, 4);  // A, p, c, q
  EXPECT_NEAR(s.parameters[0], 3.9098e-7, 1e-9 * 3.9098e-7);
  EXPECT_NEAR(s.parameters[1], 1.43, 1e-9);
  EXPECT_EQ(s.parameters[2], 1.08366);  // held at Swartz's c
  EXPECT_EQ(s.parameters[3], 1.0);      // q = 1: eq. (4)
  EXPECT_LT(s.rmse, 1e-9);
  EXPECT_LT(s.max_rel_error, 1e-9);
  EXPECT_GT(s.r_squared, 1 - 1e-12);
  // The fitted model is the eq. (4) cost of the interval, to rounding.
  double cost = 0;
  ASSERT_EQ(isocost_model_cost(m.get(), 1e6, &cost), ISOCOST_OK);
  EXPECT_NEAR(cost, sieve_T(1e6) - sieve_T(10), 1e-9 * cost);
  ExpectSameFit(m.get(), s, isocost::fit(t.samples(), isocost::parse_fit_spec("sieve")));
}

TEST(CFit, EveryFormEqualsTheCppFit) {
  const Timings sieve = tiling(sieve_T, 10, 1e7, 30, 0.01);
  ExpectFitMatches(sieve, "sieve");
  ExpectFitMatches(sieve, "sieve+c");
  ExpectFitMatches(sieve, "pchip");
  ExpectFitMatches(sieve, "makima");
  const Timings power = tiling(power_T, 10, 1e6, 20, 0.02);
  ExpectFitMatches(power, "power");
  ExpectFitMatches(power, "poly:2");
  const Timings cubic = tiling(cubic_T, 1, 3, 20, 0.001);
  ExpectFitMatches(cubic, "poly:8");  // 8 parameters: exactly the room there is
  ExpectFitMatches(power, "exp");
  ExpectFitMatches(power, "expr:A*x^p");
}

TEST(CFit, SummaryMayBeNullAndThenAnyParameterCountFits) {
  const Timings t = tiling(cubic_T, 1, 3, 20);
  isocost_model* out = nullptr;
  ASSERT_EQ(isocost_fit(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), "poly:9", &out, nullptr),
            ISOCOST_OK)
      << isocost_last_error();
  Model m(out);
  const auto cpp = isocost::fit(t.samples(), isocost::parse_fit_spec("poly:9"));
  double total = 0;
  ASSERT_EQ(isocost_model_total(m.get(), &total), ISOCOST_OK);
  EXPECT_EQ(total, cpp.model->total());
}

TEST(CFit, OptionsEqualTheCppOptions) {
  const Timings t = tiling(power_T, 10, 1e6, 20, 0.02);
  isocost_fit_options o;
  ASSERT_EQ(isocost_fit_options_init(&o), ISOCOST_OK);
  const isocost::FitOptions d;
  EXPECT_EQ(o.relative, 1);
  EXPECT_EQ(o.loss, ISOCOST_FIT_LOSS_NONE);
  EXPECT_EQ(o.loss_scale, d.loss_scale);
  EXPECT_EQ(o.max_iterations, d.max_iterations);
  EXPECT_EQ(o.function_tolerance, d.function_tolerance);
  EXPECT_TRUE(std::isnan(o.lo) && std::isnan(o.hi));

  o.relative = 0;
  o.loss = ISOCOST_FIT_LOSS_HUBER;
  o.loss_scale = 0.1;
  o.lo = 100;
  o.hi = 5e5;
  isocost::FitOptions f;
  f.relative = false;
  f.loss = isocost::FitLoss::huber;
  f.loss_scale = 0.1;
  f.lo = 100;
  f.hi = 5e5;
  isocost_model* out = nullptr;
  isocost_fit_summary s{};
  ASSERT_EQ(isocost_fit_ex(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), "power", &o, &out, &s),
            ISOCOST_OK)
      << isocost_last_error();
  Model m(out);
  ExpectSameFit(m.get(), s, isocost::fit(t.samples(), isocost::parse_fit_spec("power"), f));
  double lo = 0, hi = 0;
  ASSERT_EQ(isocost_model_domain(m.get(), &lo, &hi), ISOCOST_OK);
  EXPECT_EQ(lo, 100);
  EXPECT_EQ(hi, 5e5);

  // Cauchy, and NULL options = the defaults.
  o = {};
  ASSERT_EQ(isocost_fit_options_init(&o), ISOCOST_OK);
  o.loss = ISOCOST_FIT_LOSS_CAUCHY;
  f = {};
  f.loss = isocost::FitLoss::cauchy;
  out = nullptr;
  ASSERT_EQ(isocost_fit_ex(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), "power", &o, &out, &s),
            ISOCOST_OK);
  Model cauchy(out);
  ExpectSameFit(cauchy.get(), s, isocost::fit(t.samples(), isocost::parse_fit_spec("power"), f));
  ASSERT_EQ(
      isocost_fit_ex(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), "power", nullptr, &out, &s),
      ISOCOST_OK);
  Model plain(out);
  ExpectSameFit(plain.get(), s, isocost::fit(t.samples(), isocost::parse_fit_spec("power")));
}

TEST(CFit, IterationLimitReturnsTheLastIterateWithNotConverged) {
  const Timings t = tiling(sieve_T, 10, 1e7, 30, 0.01);
  isocost_fit_options o;
  ASSERT_EQ(isocost_fit_options_init(&o), ISOCOST_OK);
  o.max_iterations = 1;
  isocost::FitOptions f;
  f.max_iterations = 1;
  const auto cpp = isocost::fit(t.samples(), isocost::parse_fit_spec("sieve+c+q"), f);
  ASSERT_EQ(cpp.summary.termination, isocost::Termination::iteration_limit);
  isocost_model* out = nullptr;
  isocost_fit_summary s{};
  ExpectFailure(
      isocost_fit_ex(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), "sieve+c+q", &o, &out, &s),
      ISOCOST_ERROR_NOT_CONVERGED, {"isocost_fit_ex: ", cpp.summary.brief_report()});
  Model m(out);
  EXPECT_EQ(s.converged, 0);
  ExpectSameFit(m.get(), s, cpp);
}

TEST(CFit, AFitWithoutAModelIsFailedWithTheSummaryWritten) {
  // A degree-8 polynomial through x^1.6 data on [10, 1e6] bends down near the
  // top: no nondecreasing model on the domain, so no model.
  const Timings t = tiling(power_T, 10, 1e6, 20, 0.02);
  const std::string spec = "poly:8";
  const auto cpp = isocost::fit(t.samples(), isocost::parse_fit_spec(spec));
  ASSERT_FALSE(cpp.model.has_value()) << cpp.summary.brief_report();
  isocost_model* out = reinterpret_cast<isocost_model*>(&out);  // must be reset
  isocost_fit_summary s{};
  s.n_parameters = -1;
  ExpectFailure(
      isocost_fit(t.lo.data(), t.hi.data(), t.dt.data(), t.count(), spec.c_str(), &out, &s),
      ISOCOST_ERROR_FAILED, {"isocost_fit: the fit failed: ", cpp.summary.message});
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(s.converged, 0);
  ASSERT_EQ(s.n_parameters, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.parameters[i], cpp.summary.parameters[i].value);
  EXPECT_EQ(s.rmse, cpp.summary.rmse);
}

TEST(CFit, EveryBadArgumentNamesItself) {
  const Timings t = tiling(power_T, 10, 1e6, 20, 0.02);
  const double *lo = t.lo.data(), *hi = t.hi.data(), *dt = t.dt.data();
  const std::int64_t n = t.count();
  isocost_fit_summary s{};
  s.rmse = -7;  // untouched by every error below
  isocost_model* out = nullptr;
  const int bad = ISOCOST_ERROR_INVALID_ARGUMENT;
  ExpectFailure(isocost_fit(nullptr, hi, dt, n, "power", &out, &s), bad,
                {"isocost_fit: lo is NULL"});
  ExpectFailure(isocost_fit(lo, nullptr, dt, n, "power", &out, &s), bad,
                {"isocost_fit: hi is NULL"});
  ExpectFailure(isocost_fit(lo, hi, nullptr, n, "power", &out, &s), bad,
                {"isocost_fit: seconds is NULL"});
  ExpectFailure(isocost_fit(lo, hi, dt, n, nullptr, &out, &s), bad, {"isocost_fit: spec is NULL"});
  ExpectFailure(isocost_fit(lo, hi, dt, n, "power", nullptr, &s), bad,
                {"isocost_fit: out is NULL"});
  ExpectFailure(isocost_fit(lo, hi, dt, 0, "power", &out, &s), bad,
                {"isocost_fit: count: expected an integer >= 1, got 0"});
  ExpectFailure(isocost_fit(lo, hi, dt, -3, "power", &out, &s), bad,
                {"count: expected an integer >= 1, got -3"});
  ExpectFailure(isocost_fit(lo, hi, dt, n, "sieve2", &out, &s), bad,
                {"isocost_fit: model: expected sieve", "poly:N", "got 'sieve2'"});
  ExpectFailure(isocost_fit(lo, hi, dt, n, "poly:11", &out, &s), bad,
                {"model 'poly:11': expected poly:N with N an integer in [1, 10]"});
  ExpectFailure(isocost_fit(lo, hi, dt, n, "expr:", &out, &s), bad, {"needs a formula"});
  ExpectFailure(isocost_fit(lo, hi, dt, n, "expr:A*x^(p", &out, &s), bad,
                {"isocost_fit: formula 'A*x^(p': syntax error", "Missing parenthesis"});
  // A formula's parameters count too: 10 names do not fit a summary.
  ExpectFailure(isocost_fit(lo, hi, dt, n, "expr:A*x^p+B*x+C*x*x+D+E+F+G+H+I", &out, &s), bad,
                {"has 10 parameters"});
  ExpectFailure(
      isocost_fit(lo, hi, dt, n, "poly:9", &out, &s), bad,
      {"spec 'poly:9' has 9 parameters", "ISOCOST_MAX_FIT_PARAMETERS (8)", "summary = NULL"});
  ExpectFailure(isocost_fit(lo, hi, dt, 2, "sieve+c+q", &out, &s), bad,
                {"2 samples for 4 parameters"});
  // Bad samples, named by index.
  Timings u = t;
  u.dt[3] = 0;
  ExpectFailure(isocost_fit(u.lo.data(), u.hi.data(), u.dt.data(), n, "power", &out, &s), bad,
                {"isocost_fit: samples: sample 3 ", "expected dt > 0"});
  u = t;
  u.hi[5] = u.lo[5];
  ExpectFailure(isocost_fit(u.lo.data(), u.hi.data(), u.dt.data(), n, "power", &out, &s), bad,
                {"sample 5 ", "expected lo < hi"});
  u = t;
  u.lo[2] = std::numeric_limits<double>::quiet_NaN();
  ExpectFailure(isocost_fit(u.lo.data(), u.hi.data(), u.dt.data(), n, "power", &out, &s), bad,
                {"sample 2 (lo=nan"});
  // Bad options.
  isocost_fit_options o;
  ExpectFailure(isocost_fit_options_init(nullptr), bad,
                {"isocost_fit_options_init: options is NULL"});
  auto with = [&](auto change, std::initializer_list<std::string> fragments) {
    ASSERT_EQ(isocost_fit_options_init(&o), ISOCOST_OK);
    change(o);
    ExpectFailure(isocost_fit_ex(lo, hi, dt, n, "power", &o, &out, &s), bad, fragments);
  };
  with([](isocost_fit_options& x) { x.loss = 7; },
       {"isocost_fit_ex: options->loss: expected ISOCOST_FIT_LOSS_NONE (0)", "got 7"});
  with([](isocost_fit_options& x) { x.max_iterations = 0; }, {"fit options: ", "max_iterations"});
  with([](isocost_fit_options& x) { x.loss_scale = 0; }, {"fit options: ", "loss_scale"});
  with([](isocost_fit_options& x) { x.function_tolerance = -1; },
       {"fit options: ", "function_tolerance"});
  with(
      [](isocost_fit_options& x) {
        x.lo = 5;
        x.hi = 5;
      },
      {"fit options: the domain needs lo < hi"});
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(s.rmse, -7);
}

}  // namespace
