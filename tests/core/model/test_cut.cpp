// Tests for isocost/cut.hpp: each solver against closed-form roots, the
// post-conditions of the summary, fallbacks, budgets and bad options.
#include "isocost/cut.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "cut_test_support.hpp"
#include "isocost/error.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::CutFallback;
using isocost::CutMethod;
using isocost::CutOptions;
using isocost::CutTermination;

using isocost::testing::kMethods;
using isocost::testing::with;

using isocost::testing::expect_error;

// The summary's promises: x inside the domain, residual exactly t(x) − target.
void expect_post_conditions(const isocost::CostModel& t, const isocost::CutSummary& s) {
  EXPECT_GE(s.x, t.lo());
  EXPECT_LE(s.x, t.hi());
  EXPECT_EQ(s.residual, t.cost(s.x) - s.target) << s.brief_report();
}

TEST(SolveCut, EveryMethodFindsTheClosedFormRoot) {
  // t = x^2 on [0, 1]: t(x) = target at x = sqrt(target).
  const auto t = isocost::power_model(1, 2, 0, 0, 1);
  for (auto m : kMethods)
    for (double target : {0.01, 0.25, 0.5, 0.99}) {
      const auto s = isocost::solve_cut(t, target, with(m));
      EXPECT_NEAR(s.x, std::sqrt(target), 1e-11) << to_string(m) << " " << target;
      EXPECT_LE(std::abs(s.residual), 1e-12 * t.total()) << s.brief_report();
      EXPECT_TRUE(s.converged());
      EXPECT_EQ(s.requested, m);
      EXPECT_EQ(s.used, m);
      expect_post_conditions(t, s);
    }
}

TEST(SolveCut, AnyCallableReturningValueAndDerivative) {
  // t = x^3 + 1 on [1, 2] (t(1) = 2 is subtracted): t(x) − 2 = target at
  // x = cbrt(target + 1); the counts show the functor is what was solved.
  int calls = 0;
  const auto cube = [&calls](double x) {
    ++calls;
    return isocost::CostPoint{x * x * x + 1, 3 * x * x};
  };
  for (auto m : kMethods)
    for (double target : {0.5, 3.0, 6.5}) {
      calls = 0;
      const auto s = isocost::solve_cut(cube, target, 1.0, 2.0, with(m));
      EXPECT_NEAR(s.x, std::cbrt(target + 1), 1e-11) << to_string(m) << " " << target;
      EXPECT_TRUE(s.converged()) << s.brief_report();
      EXPECT_EQ(s.used, m);
      EXPECT_GT(calls, 0);
    }
  // The same input checks as for a model.
  expect_error([&] { isocost::solve_cut(cube, 8.0, 1.0, 2.0); }, {"target"});
  expect_error([&] { isocost::solve_cut(cube, 1.0, 2.0, 1.0); }, {"callable model", "lo < hi"});
}

TEST(SolveCut, SieveCutsMeetTheCostToleranceWithEveryMethod) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  for (auto m : kMethods)
    for (int i = 1; i < 16; ++i) {
      const auto s = isocost::solve_cut(t, t.total() * i / 16, with(m));
      EXPECT_LE(std::abs(s.residual), 1e-12 * t.total()) << s.brief_report();
      // Within the tolerance, or (it happens) hitting the target exactly.
      EXPECT_TRUE(s.termination == CutTermination::cost_tolerance ||
                  s.termination == CutTermination::exact)
          << s.brief_report();
      expect_post_conditions(t, s);
      EXPECT_GT(s.evaluations, 0);
    }
}

TEST(SolveCut, NewtonIsFastOnTheSieve) {
  // Swartz App. A: t is convex and increasing for x > 6, so Newton converges;
  // from the linear guess it needs a handful of steps, never dozens.
  const auto t = isocost::sieve_model({}, 6, 268435456);
  for (int i = 1; i < 64; ++i) {
    const auto s = isocost::solve_cut(t, t.total() * i / 64);
    EXPECT_LE(s.iterations, 12) << s.brief_report();
  }
}

TEST(SolveCut, EndTargetsAreExact) {
  const auto t = isocost::sieve_model({}, 6, 1e6);
  for (auto m : kMethods) {
    const auto a = isocost::solve_cut(t, 0, with(m));
    EXPECT_EQ(a.x, 6);
    EXPECT_EQ(a.termination, CutTermination::exact);
    const auto b = isocost::solve_cut(t, t.total(), with(m));
    EXPECT_EQ(b.x, 1e6);
    EXPECT_EQ(b.residual, 0);
  }
}

TEST(SolveCut, NewtonLeavingTheBracketBecomesBisectionAndSaysSo) {
  // t = x^0.1 on [0, 1], target 0.5: root 0.5^10 ≈ 9.8e-4. From the linear
  // guess 0.5 the Newton step goes to 0.5 − (0.933 − 0.5)/0.187 < 0: out of the
  // bracket, so Boost takes a bisection step instead.
  const auto t = isocost::power_model(1, 0.1, 0, 0, 1);
  const auto s = isocost::solve_cut(t, 0.5);
  EXPECT_NEAR(s.x, std::pow(0.5, 10), 1e-12);
  EXPECT_EQ(s.fallback, CutFallback::bisection_steps) << s.brief_report();
  EXPECT_GT(s.bisection_steps, 0);
  EXPECT_EQ(s.used, CutMethod::newton);
  EXPECT_NE(s.brief_report().find("fallback=bisection_steps"), std::string::npos);
  expect_post_conditions(t, s);
  // The secant from the same guess needs safeguarding too.
  const auto u = isocost::solve_cut(t, 0.5, with(CutMethod::secant));
  EXPECT_NEAR(u.x, std::pow(0.5, 10), 1e-12);
  EXPECT_GT(u.bisection_steps, 0);
  // A well-behaved solve reports no fallback.
  const auto v = isocost::solve_cut(isocost::power_model(1, 2, 0, 0, 1), 0.25);
  EXPECT_EQ(v.fallback, CutFallback::none);
  EXPECT_EQ(v.bisection_steps, 0);
}

TEST(SolveCut, NewtonThatGivesUpHandsOverToToms748) {
  // t(x) = x on [0, 1] with a density callable that lies (−1) on (0.6, 0.6001),
  // between the 257 points the analytic model samples at construction. From the
  // guess 0.60005 Newton walks the wrong way, its bracket ends see f of the same
  // sign and Boost throws "no root"; TOMS748 then solves on the sign bracket.
  const auto t =
      isocost::analytic_model([](double x) { return x; },
                              [](double x) { return x > 0.6 && x < 0.6001 ? -1.0 : 1.0; }, 0, 1);
  CutOptions o;
  o.initial_guess = 0.60005;
  const auto s = isocost::solve_cut(t, 0.5, o);
  EXPECT_EQ(s.fallback, CutFallback::method_switch) << s.brief_report();
  EXPECT_EQ(s.requested, CutMethod::newton);
  EXPECT_EQ(s.used, CutMethod::toms748);
  EXPECT_NEAR(s.x, 0.5, 1e-12);
  EXPECT_TRUE(s.converged());
  expect_post_conditions(t, s);
}

TEST(SolveCut, IterationBudgetRunsOutVisibly) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  for (auto m : kMethods) {
    CutOptions o = with(m);
    o.max_iterations = 1;
    const auto s = isocost::solve_cut(t, t.total() / 3, o);
    EXPECT_EQ(s.termination, CutTermination::iteration_limit) << s.brief_report();
    EXPECT_FALSE(s.converged());
    expect_post_conditions(t, s);
  }
}

TEST(SolveCut, XToleranceStopsTheBisection) {
  // t = x on [0, 1], target 1/3 is not representable: with cost tolerance 0 and
  // x tolerance 1e-3 bisection stops once the bracket is that narrow.
  const auto t = isocost::power_model(1, 1, 0, 0, 1);
  CutOptions o = with(CutMethod::bisection);
  o.cost_tolerance = 0;
  o.x_tolerance = 1e-3;
  const auto s = isocost::solve_cut(t, 1.0 / 3, o);
  EXPECT_EQ(s.termination, CutTermination::x_tolerance) << s.brief_report();
  EXPECT_NEAR(s.x, 1.0 / 3, 1e-3);
  EXPECT_LE(s.iterations, 14);  // log2(1/1e-3) ≈ 10 halvings plus start-up
  // With both tolerances 0 every method still stops, at machine precision.
  o.x_tolerance = 0;
  for (auto m : kMethods) {
    o.method = m;
    const auto r = isocost::solve_cut(t, 1.0 / 3, o);
    EXPECT_TRUE(r.converged()) << r.brief_report();
    EXPECT_NEAR(r.x, 1.0 / 3, 4e-16) << r.brief_report();
  }
}

TEST(SolveCut, WarmStartFromAGoodGuessIsCheap) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  const double target = t.total() * 0.37;
  const auto cold = isocost::solve_cut(t, target);
  CutOptions o;
  o.initial_guess = cold.x * (1 + 1e-6);
  const auto warm = isocost::solve_cut(t, target, o);
  EXPECT_LT(warm.iterations, cold.iterations);
  EXPECT_NEAR(warm.x, cold.x, 1e-9 * cold.x);
  // A guess outside the domain is clamped into the bracket, not an error.
  o.initial_guess = 1e12;
  const auto clamped = isocost::solve_cut(t, target, o);
  EXPECT_NEAR(clamped.x, cold.x, 1e-9 * cold.x);
}

TEST(SolveCut, BracketedSolve) {
  const auto t = isocost::power_model(1, 2, 0, 0, 1);
  const auto s = isocost::solve_cut(t, 0.25, 0.4, 0.6);
  EXPECT_NEAR(s.x, 0.5, 1e-12);
  EXPECT_GE(s.x, 0.4);
  EXPECT_LE(s.x, 0.6);
  expect_error([&] { isocost::solve_cut(t, 0.25, 0.6, 0.9); },
               {"does not contain the target 0.25", "t(a)=0.36"});
  expect_error([&] { isocost::solve_cut(t, 0.25, -1, 0.9); }, {"lo <= a <= b <= hi"});
}

TEST(SolveCut, DiscreteModelsUseBinarySearch) {
  // Weights 1 2 3 4: prefix sums 0 1 3 6 10.
  const auto t = isocost::discrete_model({1, 2, 3, 4});
  const auto s = isocost::solve_cut(t, 4.4);  // |3 − 4.4| = 1.4 < |6 − 4.4| = 1.6 → boundary 2
  EXPECT_EQ(s.x, 2);
  EXPECT_EQ(s.used, CutMethod::binary_search);
  EXPECT_EQ(s.requested, CutMethod::newton);
  EXPECT_DOUBLE_EQ(s.residual, 3 - 4.4);
  EXPECT_EQ(s.termination, CutTermination::nearest_integer);
  EXPECT_EQ(isocost::solve_cut(t, 4.6).x, 3);
  EXPECT_EQ(isocost::solve_cut(t, 4.5).x, 2);  // a tie goes to the smaller index
  EXPECT_EQ(isocost::solve_cut(t, 6).termination, CutTermination::exact);
  // Zero weights: equal prefix sums; the smallest index wins.
  const auto z = isocost::discrete_model({1, 0, 0, 1});
  EXPECT_EQ(isocost::solve_cut(z, 1.0).x, 1);
  EXPECT_EQ(isocost::solve_cut(z, 1.2).x, 1);
  // A long zero run: still the smallest index, and inside a given bracket the
  // smallest index of the bracket.
  std::vector<double> w(1002, 0.0);
  w.front() = w.back() = 1;
  const auto run = isocost::discrete_model(w);
  EXPECT_EQ(isocost::solve_cut(run, 1.0).x, 1);
  EXPECT_EQ(isocost::solve_cut(run, 1.4).x, 1);
  EXPECT_EQ(isocost::solve_cut(run, 1.6).x, 1002);
  EXPECT_EQ(isocost::solve_cut(run, 1.0, 500, 1002).x, 500);
}

TEST(CutOptions, ValidationNamesTheField) {
  CutOptions o;
  std::string error;
  EXPECT_TRUE(o.is_valid(&error));
  o.cost_tolerance = -1;
  EXPECT_FALSE(o.is_valid(&error));
  EXPECT_NE(error.find("cost_tolerance"), std::string::npos);
  EXPECT_NE(error.find("-1"), std::string::npos);
  o = {};
  o.x_tolerance = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { o.validate(); }, {"x_tolerance", "nan"});
  o = {};
  o.max_iterations = 0;
  expect_error([&] { o.validate(); }, {"max_iterations: expected an integer >= 1, got 0"});
  o = {};
  o.initial_guess = std::numeric_limits<double>::infinity();
  expect_error([&] { o.validate(); }, {"initial_guess", "inf"});
  o = {};
  o.method = CutMethod::binary_search;
  expect_error([&] { o.validate(); }, {"binary_search"});
  // solve_cut validates too.
  const auto t = isocost::power_model(1, 1, 0, 0, 1);
  o = {};
  o.max_iterations = -3;
  expect_error([&] { isocost::solve_cut(t, 0.5, o); }, {"max_iterations", "-3"});
}

TEST(SolveCut, TargetsOutsideTheTotalAreErrors) {
  const auto t = isocost::power_model(1, 1, 0, 0, 2);  // TT = 2
  expect_error([&] { isocost::solve_cut(t, 2.5); }, {"target 2.5", "[0, TT=2]"});
  expect_error([&] { isocost::solve_cut(t, -0.1); }, {"target -0.1"});
  expect_error([&] { isocost::solve_cut(t, std::nan("")); }, {"target nan"});
}

TEST(CutMethodNames, RoundTrip) {
  for (auto m : kMethods) EXPECT_EQ(isocost::parse_cut_method(to_string(m)), m);
  expect_error([] { isocost::parse_cut_method("brent"); }, {"'brent'", "newton"});
  expect_error([] { isocost::parse_cut_method("binary_search"); }, {"'binary_search'"});
}

}  // namespace
