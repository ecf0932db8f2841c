// Tests for isocost::Expression and expression_model (muParser formulas).
#include "isocost/fitters/expression.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "isocost/cost_model.hpp"
#include "support/expect_error.hpp"
#include "support/expect_rel.hpp"

namespace {

using isocost::Expression;
using isocost::testing::expect_error;

using isocost::testing::expect_rel;

// ---------------------------------------------------------------------------
// Evaluation against closed forms

TEST(Expression, PolynomialWithoutParameters) {
  const Expression e("x^2+3*x");
  EXPECT_TRUE(e.parameters().empty());
  EXPECT_EQ(e.formula(), "x^2+3*x");
  EXPECT_DOUBLE_EQ(e.evaluate(2, {}), 10.0);
  EXPECT_DOUBLE_EQ(e.evaluate(-1.5, {}), -2.25);
  EXPECT_DOUBLE_EQ(e.evaluate(0, {}), 0.0);
  EXPECT_DOUBLE_EQ(e.evaluate(1e3, {}), 1003000.0);
}

TEST(Expression, SieveFormulaMatchesCmath) {
  const Expression e("A*x^p/(log(x)-c)");
  ASSERT_EQ(e.parameters(), (std::vector<std::string>{"A", "c", "p"}));
  const double A = 3.9098e-7, c = 1.08366, p = 1.43;
  for (double x : {6.0, 100.0, 12345.678, 1e6, 268435456.0}) {
    const double expected = A * std::pow(x, p) / (std::log(x) - c);
    expect_rel(e.evaluate(x, {A, c, p}), expected, 1e-14);
  }
}

TEST(Expression, LogIsTheNaturalLogarithm) {
  // muParser 2.3.3: log and ln are both ln; log10 is the decimal one.
  EXPECT_DOUBLE_EQ(Expression("log(x)").evaluate(100, {}), std::log(100.0));
  EXPECT_DOUBLE_EQ(Expression("ln(x)").evaluate(100, {}), std::log(100.0));
  EXPECT_DOUBLE_EQ(Expression("log10(x)").evaluate(1000, {}), 3.0);
  EXPECT_DOUBLE_EQ(Expression("log(x)").evaluate(std::exp(1.0), {}), 1.0);
}

TEST(Expression, BuiltinsAndConstants) {
  const Expression e("a*exp(b*x)+sqrt(x)+_pi*x");
  ASSERT_EQ(e.parameters(), (std::vector<std::string>{"a", "b"}));  // _pi is a constant
  const double x = 2.5, a = 1.5, b = -0.3;
  expect_rel(e.evaluate(x, {a, b}), a * std::exp(b * x) + std::sqrt(x) + std::numbers::pi * x,
             1e-15);
  // Comparisons and the conditional operator: a piecewise cost.
  const Expression piecewise("x < k ? x : 2*x - k");
  EXPECT_DOUBLE_EQ(piecewise.evaluate(1, {3}), 1.0);
  EXPECT_DOUBLE_EQ(piecewise.evaluate(5, {3}), 7.0);
}

TEST(Expression, ConstantsAreFullPrecision) {
  // muParser's own _pi (GCC build) is 3.141592653589; Expression redefines it.
  EXPECT_EQ(Expression("_pi*x").evaluate(1, {}), std::numbers::pi);
  EXPECT_EQ(Expression("_e*x").evaluate(1, {}), std::numbers::e);
}

TEST(Expression, DomainProblemsComeBackAsNonFinite) {
  EXPECT_TRUE(std::isnan(Expression("sqrt(x)").evaluate(-1, {})));
  EXPECT_TRUE(std::isinf(Expression("1/x").evaluate(0, {})));
}

// ---------------------------------------------------------------------------
// Parameters

TEST(Expression, ParametersAreSortedAndUnique) {
  const Expression e("zeta*x + alpha - beta*x^2 + alpha");
  ASSERT_EQ(e.parameters(), (std::vector<std::string>{"alpha", "beta", "zeta"}));
  // Values follow the sorted order: alpha=1, beta=2, zeta=3 at x=2.
  EXPECT_DOUBLE_EQ(e.evaluate(2, {1, 2, 3}), 3 * 2 + 1 - 2 * 4 + 1);
}

TEST(Expression, ParameterNamesMayLookLikeConstants) {
  // Only _pi and _e are muParser constants; pi and e are ordinary names.
  const Expression e("e*x + pi");
  ASSERT_EQ(e.parameters(), (std::vector<std::string>{"e", "pi"}));
  EXPECT_DOUBLE_EQ(e.evaluate(3, {2, 1}), 7.0);
}

TEST(Expression, WrongValueCount) {
  const Expression e("A*x+B");
  expect_error([&] { e.evaluate(1, std::vector<double>{1}); },
               {"formula 'A*x+B'", "expected 2 parameter values (A, B)", "got 1"});
  expect_error([&] { e.evaluate(1, std::vector<double>{1, 2, 3}); }, {"expected 2", "got 3"});
  expect_error([] { Expression("x").evaluate(1, std::vector<double>{1}); },
               {"expected 0", "got 1"});
}

// ---------------------------------------------------------------------------
// Copies and moves

TEST(Expression, CopiesEvaluateIndependently) {
  Expression a("A*x+B");
  const Expression b(a);
  // If b's parser still read a's variables, b would return a's result here.
  EXPECT_DOUBLE_EQ(a.evaluate(2, {1, 0}), 2.0);
  EXPECT_DOUBLE_EQ(b.evaluate(2, {10, 5}), 25.0);
  EXPECT_DOUBLE_EQ(a.evaluate(3, {1, 0}), 3.0);
  EXPECT_DOUBLE_EQ(b.evaluate(3, {10, 5}), 35.0);

  Expression c("x");
  c = a;  // copy assignment replaces the formula
  EXPECT_EQ(c.formula(), "A*x+B");
  EXPECT_DOUBLE_EQ(c.evaluate(1, {4, 1}), 5.0);
  EXPECT_DOUBLE_EQ(a.evaluate(1, {1, 0}), 1.0);
  EXPECT_DOUBLE_EQ(c.evaluate(2, {4, 1}), 9.0);
}

TEST(Expression, CopyOutlivesOriginal) {
  auto original = std::make_unique<Expression>("x^p");
  const Expression copy(*original);
  original.reset();
  EXPECT_DOUBLE_EQ(copy.evaluate(3, {2}), 9.0);
}

TEST(Expression, MovesKeepTheCompiledFormula) {
  Expression a("A*x");
  Expression b(std::move(a));
  EXPECT_DOUBLE_EQ(b.evaluate(2, {3}), 6.0);
  Expression c("x");
  c = std::move(b);
  EXPECT_EQ(c.formula(), "A*x");
  EXPECT_DOUBLE_EQ(c.evaluate(4, {3}), 12.0);
}

TEST(Expression, CopiesInParallelThreads) {
  // Each thread owns its copy, so no lock is needed.
  const Expression e("A*x^p");
  std::vector<double> results(4);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([copy = e, k, &results] {
      double sum = 0;
      for (int i = 1; i <= 10000; ++i) sum += copy.evaluate(i, {double(k + 1), 1.0});
      results[k] = sum;
    });
  for (auto& t : threads) t.join();
  for (int k = 0; k < 4; ++k) EXPECT_DOUBLE_EQ(results[k], (k + 1) * 10000.0 * 10001.0 / 2);
}

// ---------------------------------------------------------------------------
// Errors at compile time

TEST(Expression, SyntaxErrorNamesPositionAndToken) {
  expect_error([] { Expression("A*x^^p"); },
               {"formula 'A*x^^p'", "syntax error at position 4 ('^')", "Unexpected operator"});
}

TEST(Expression, MissingParenthesisIsAtTheEnd) {
  expect_error([] { Expression("A*(x"); },
               {"formula 'A*(x'", "position 4 (end of formula)", "Missing parenthesis"});
  expect_error([] { Expression("x+"); }, {"position 2 (end of formula)", "end of expression"});
}

TEST(Expression, UnknownFunctionIsNamed) {
  expect_error([] { Expression("foo(x)"); },
               {"formula 'foo(x)'", "position 3 ('(')", "'foo' is not a muParser function"});
  expect_error([] { Expression("2*x + bar (x)"); }, {"'bar' is not a muParser function"});
}

TEST(Expression, OtherSyntaxErrors) {
  expect_error([] { Expression(""); }, {"syntax error", "empty"});
  expect_error([] { Expression("A b*x"); }, {"position 2 ('b')", "Unexpected variable"});
  expect_error([] { Expression("3x"); }, {"position 1 ('x')"});
}

TEST(Expression, AssignmentAndListsAreRejected) {
  expect_error([] { Expression("x = 3"); }, {"formula 'x = 3'", "assignment", "position 2"});
  expect_error([] { Expression("A=2*x"); }, {"assignment"});
  expect_error([] { Expression("x, 2"); }, {"2 comma-separated expressions"});
  // Comparisons containing '=' are fine.
  EXPECT_DOUBLE_EQ(Expression("(x >= 1) + (x == 2) + (x != 3) + (x <= 4)").evaluate(2, {}), 4.0);
}

TEST(Expression, FormulaMustUseX) {
  expect_error([] { Expression("A*y+B"); },
               {"formula 'A*y+B'", "does not use the variable x", "A, B, y"});
  expect_error([] { Expression("X^2"); }, {"does not use the variable x", "X"});
  expect_error([] { Expression("2*_pi"); }, {"does not use the variable x"});
}

// ---------------------------------------------------------------------------
// expression_model

TEST(ExpressionModel, QuadraticClosedForm) {
  // t(x) = 2x^2 + 3x on [1, 5]: t(1) = 5, t(5) = 65, t'(x) = 4x + 3.
  const auto m = isocost::expression_model("A*x^2+B*x", {{"A", 2.0}, {"B", 3.0}}, 1, 5);
  EXPECT_EQ(m.kind(), "expression");
  EXPECT_NE(m.describe().find("A*x^2+B*x"), std::string::npos) << m.describe();
  EXPECT_NE(m.describe().find("A=2 B=3"), std::string::npos) << m.describe();
  EXPECT_EQ(m.cost(1.0), 0.0);
  EXPECT_DOUBLE_EQ(m.total(), 60.0);
  EXPECT_DOUBLE_EQ(m.cost(3.0), 27.0 - 5.0);
  EXPECT_DOUBLE_EQ(m.cost(2.0, 4.0), 44.0 - 14.0);
  for (double x : {1.0, 1.3, 2.0, 3.7, 5.0}) {
    expect_rel(m.density(x), 4 * x + 3, 1e-6);
    const auto point = m.evaluate(x);
    EXPECT_DOUBLE_EQ(point.cost, 2 * x * x + 3 * x - 5);
    expect_rel(point.density, 4 * x + 3, 1e-6);
  }
}

TEST(ExpressionModel, SieveFormulaMatchesSieveModel) {
  const isocost::SieveParams params;  // Swartz's A, p, c
  const double lo = 1e3, hi = 1e6;
  const auto expr = isocost::expression_model(
      "A*x^p/(log(x)-c)", {{"A", params.A}, {"c", params.c}, {"p", params.p}}, lo, hi);
  const auto sieve = isocost::sieve_model(params, lo, hi);
  EXPECT_EQ(expr.cost(lo), 0.0);
  expect_rel(expr.total(), sieve.total(), 1e-12);
  // t(hi) − t(lo) by hand.
  const auto T = [&](double x) {
    return params.A * std::pow(x, params.p) / (std::log(x) - params.c);
  };
  expect_rel(expr.total(), T(hi) - T(lo), 1e-12);
  for (double x : {2e3, 1e4, 54321.0, 2e5, 9.9e5}) {
    expect_rel(expr.cost(x), T(x) - T(lo), 1e-12);
    // Analytic density, Swartz eq. 5: T' = T·(p − r)/x with r = 1/(ln x − c).
    const double r = 1 / (std::log(x) - params.c);
    expect_rel(expr.density(x), T(x) * (params.p - r) / x, 1e-6);
  }
}

TEST(ExpressionModel, MissingAndUnknownParameters) {
  expect_error(
      [] {
        isocost::expression_model("A*x^2+B*x", {{"A", 1.0}}, 1, 2);
      },
      {"expression model 'A*x^2+B*x'", "no value for parameter(s) B",
       "the formula's parameters are A, B"});
  expect_error(
      [] {
        isocost::expression_model("A*x", {{"A", 1.0}, {"C", 2.0}, {"D", 3.0}}, 1, 2);
      },
      {"unknown parameter(s) C, D", "the formula's parameters are A"});
  expect_error(
      [] {
        isocost::expression_model("A*x+B", {{"B", 1.0}, {"Q", 1.0}}, 1, 2);
      },
      {"no value for parameter(s) A", "unknown parameter(s) Q"});
  expect_error(
      [] {
        isocost::expression_model("x", {{"A", 1.0}}, 1, 2);
      },
      {"unknown parameter(s) A", "no parameters"});
  expect_error(
      [] {
        isocost::expression_model("A*x", {{"A", std::numeric_limits<double>::quiet_NaN()}}, 1, 2);
      },
      {"parameter A: expected a finite number", "nan"});
}

TEST(ExpressionModel, SyntaxErrorsPropagate) {
  expect_error([] { isocost::expression_model("A*x^^p", {}, 1, 2); },
               {"formula 'A*x^^p'", "position 4"});
}

TEST(ExpressionModel, DecreasingFormulaIsRejected) {
  // 2x^2 − 10x decreases on [0, 2.5): analytic_model's sampled check finds it.
  expect_error(
      [] {
        isocost::expression_model("A*x^2+B*x", {{"A", 2.0}, {"B", -10.0}}, 0, 5);
      },
      {"expression model 'A*x^2+B*x': t(",
       "expected a value >= 0 (t before it; t must be nondecreasing), got -"});
  expect_error([] { isocost::expression_model("-x", {}, 0, 1); },
               {"expected a value >= 0 (t before it; t must be nondecreasing), got -"});
}

TEST(ExpressionModel, NonFiniteValuesAreRejected) {
  expect_error([] { isocost::expression_model("log(x-2)", {}, 1, 5); },
               {"expression model 'log(x-2)'", "not finite"});
}

TEST(ExpressionModel, ConcurrentEvaluationMatchesSerial) {
  const auto model = isocost::expression_model(
      "A*x^p/(log(x)-c)", {{"A", 3.9098e-7}, {"c", 1.08366}, {"p", 1.43}}, 10, 1e7);
  constexpr int points = 2000;
  std::vector<double> xs(points), cost(points), density(points);
  for (int i = 0; i < points; ++i) {
    xs[i] = 10 + (1e7 - 10) * i / (points - 1);
    cost[i] = model.cost(xs[i]);
    density[i] = model.density(xs[i]);
  }
  // Each thread holds its own copy of the model; all copies share one parser.
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([copy = model, k, &xs, &cost, &density, &mismatches] {
      for (int round = 0; round < 40; ++round)
        for (int i = 0; i < points; ++i) {
          // Threads walk the points in different orders to interleave differently.
          const int j = (i * (2 * k + 1) + round) % points;
          const auto point = copy.evaluate(xs[j]);
          if (point.cost != cost[j] || point.density != density[j]) ++mismatches[k];
        }
    });
  for (auto& t : threads) t.join();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(mismatches[k], 0) << "thread " << k;
}

}  // namespace
