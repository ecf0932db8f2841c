// Tests for isocost/fitters/fit.hpp: parameters recovered from synthetic noisy
// samples of known closed forms, interval vs cumulative fitting, model
// selection, robust losses, repartitioning, and bad input.
#include "isocost/fitters/fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "isocost/metrics.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::FitForm;
using isocost::FitSpec;
using isocost::IntervalSample;
using isocost::Samples;
using isocost::testing::expect_error;

using Truth = std::function<double(double)>;

// One run over `n` log-spaced (or linear) intervals of [lo, hi]: dt is the true
// cost times (1 + noise·N(0,1)), fixed seed.
Samples tiling(const Truth& T, double lo, double hi, int n, double noise, bool log_spaced,
               unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0, 1);
  std::vector<IntervalSample> v;
  for (int k = 0; k < n; ++k) {
    auto at = [&](int j) {
      return log_spaced ? lo * std::pow(hi / lo, static_cast<double>(j) / n)
                        : lo + (hi - lo) * j / n;
    };
    const double a = k == 0 ? lo : at(k), b = k == n - 1 ? hi : at(k + 1);
    v.push_back({a, b, (T(b) - T(a)) * (1 + noise * gauss(rng))});
  }
  return Samples(v);
}

double sieve_T(double x, double A, double p, double c) {
  return A * std::pow(x, p) / (std::log(x) - c);
}

FitSpec spec(const std::string& name) { return isocost::parse_fit_spec(name); }

// ---------------------------------------------------------------------------
// Recovering known parameters (issue: A and p within 1 % for each form).

TEST(Fit, SieveRecoversAAndP) {
  const Truth T = [](double x) { return sieve_T(x, 3.9e-7, 1.5, 1.08366); };
  const auto s = tiling(T, 10, 1e7, 200, 0.005, true);
  const auto f = isocost::fit(s, spec("sieve"));
  EXPECT_NEAR(f.summary.parameter("A"), 3.9e-7, 0.01 * 3.9e-7) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("p"), 1.5, 0.015);
  EXPECT_EQ(f.summary.parameter("c"), 1.08366);  // held fixed
  EXPECT_TRUE(f.summary.parameters[2].fixed);
  // The residual scatter is the noise we put in (0.5 % relative).
  EXPECT_GT(f.summary.rmse, 0.003);
  EXPECT_LT(f.summary.rmse, 0.008);
  EXPECT_GT(f.summary.r_squared, 0.999);
  ASSERT_TRUE(f.summary.parameters[1].std_error.has_value());
  EXPECT_GT(*f.summary.parameters[1].std_error, 0);
  EXPECT_LT(*f.summary.parameters[1].std_error, 0.01);
  EXPECT_EQ(f.model->kind(), "sieve");
  EXPECT_EQ(f.model->lo(), 10);
  EXPECT_EQ(f.model->hi(), 1e7);
}

// A domain narrower than the samples changes where the model is cut, not how
// well it fits them: the quality and the balance on the samples are the
// full-span fit's, while the model lives on [lo, hi].
TEST(Fit, NarrowedDomainKeepsTheFitsQuality) {
  const Truth T = [](double x) { return sieve_T(x, 3.9e-7, 1.5, 1.08366); };
  const auto s = tiling(T, 10, 1e7, 200, 0.005, true);
  const auto full = isocost::fit(s, spec("sieve"));
  isocost::FitOptions o;
  o.lo = 1000;
  o.hi = 5e6;
  const auto narrow = isocost::fit(s, spec("sieve"), o);
  ASSERT_TRUE(narrow.model.has_value());
  EXPECT_EQ(narrow.model->lo(), 1000);
  EXPECT_EQ(narrow.model->hi(), 5e6);
  EXPECT_EQ(narrow.summary.lo_used, 1000);
  EXPECT_EQ(narrow.summary.parameter("p"), full.summary.parameter("p"));
  EXPECT_DOUBLE_EQ(narrow.summary.rmse, full.summary.rmse);
  EXPECT_DOUBLE_EQ(narrow.summary.max_rel_error, full.summary.max_rel_error);
  EXPECT_LT(narrow.summary.max_rel_error, 0.05);  // not the 100 % of unscored samples
  EXPECT_DOUBLE_EQ(narrow.summary.r_squared, full.summary.r_squared);
}

TEST(Fit, SieveWithCRecoversAllThree) {
  const Truth T = [](double x) { return sieve_T(x, 2e-6, 1.3, 0.7); };
  const auto s = tiling(T, 8, 1e8, 300, 0.002, true, 2);
  const auto f = isocost::fit(s, spec("sieve+c"));
  EXPECT_NEAR(f.summary.parameter("A"), 2e-6, 0.01 * 2e-6) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("p"), 1.3, 0.013);
  EXPECT_NEAR(f.summary.parameter("c"), 0.7, 0.05);
  EXPECT_FALSE(f.summary.parameters[2].fixed);
}

// Trial division by the primes up to √n costs ~√n/ln √n per prime, so the
// log appears squared (q = 2): sieve+q recovers it.
TEST(Fit, SieveWithQRecoversTheLogPower) {
  const Truth T = [](double x) {
    return 5e-7 * std::pow(x, 1.5) / std::pow(std::log(x) - 1.08366, 2);
  };
  const auto f = isocost::fit(tiling(T, 20, 1e8, 200, 0.002, true, 21), spec("sieve+q"));
  EXPECT_NEAR(f.summary.parameter("q"), 2, 0.04) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("p"), 1.5, 0.015);
  EXPECT_NEAR(f.summary.parameter("A"), 5e-7, 0.05 * 5e-7);
  EXPECT_FALSE(f.summary.parameters[3].fixed);
  // q given instead of fitted: held at 2.
  FitSpec two = spec("sieve");
  two.guess = {{"q", 2.0}};
  const auto g = isocost::fit(tiling(T, 20, 1e8, 200, 0.002, true, 21), two);
  EXPECT_EQ(g.summary.parameter("q"), 2.0);
  EXPECT_NEAR(g.summary.parameter("p"), 1.5, 0.015);
}

// Standard errors come from a column-scaled Jacobian: a formula whose
// parameters differ by seven orders of magnitude gets errors of the same size
// as the built-in form (not the ~1e-19 an unscaled pseudo-inverse gives).
TEST(Fit, StandardErrorsOfAFormulaMatchTheBuiltInForm) {
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.5); };
  const auto s = tiling(T, 10, 1e6, 100, 0.005, true, 22);
  FitSpec e = spec("expr:A*x^p");
  e.guess = {{"A", 1e-7}, {"p", 1.4}};
  const auto formula = isocost::fit(s, e);
  const auto builtin = isocost::fit(s, spec("power"));
  ASSERT_TRUE(formula.summary.parameters[1].std_error.has_value())
      << formula.summary.brief_report();
  const double a = *formula.summary.parameters[1].std_error;  // p (names are sorted: A, p)
  const double b = *builtin.summary.parameters[1].std_error;
  EXPECT_NEAR(a, b, 0.05 * b) << formula.summary.brief_report() << builtin.summary.brief_report();
}

TEST(Fit, PowerRecoversAAndP) {
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.5); };
  const auto f = isocost::fit(tiling(T, 10, 1e6, 100, 0.005, true, 3), spec("power"));
  EXPECT_NEAR(f.summary.parameter("A"), 2e-7, 0.01 * 2e-7) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("p"), 1.5, 0.015);
  EXPECT_EQ(f.model->kind(), "power");
}

TEST(Fit, PolynomialRecoversCoefficientsInTheScaledVariable) {
  // t = 2u + 3u^2 + u^3 with u = x/1e8 on [0, 1e8].
  const Truth T = [](double x) {
    const double u = x / 1e8;
    return 2 * u + 3 * u * u + u * u * u;
  };
  const auto f = isocost::fit(tiling(T, 0, 1e8, 100, 0.002, false, 4), spec("poly:3"));
  EXPECT_NEAR(f.summary.parameter("c1"), 2, 0.02) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("c2"), 3, 0.03);
  EXPECT_NEAR(f.summary.parameter("c3"), 1, 0.01 * 3);  // c3 is the least determined
  EXPECT_NEAR(f.model->cost(5e7), T(5e7), 0.01 * T(5e7));
}

TEST(Fit, ExponentialRecoversAAndB) {
  // t = 5·e^{3e-6 (x − 1e6)} on [1e6, 2e6] (the form is measured from lo).
  const Truth T = [](double x) { return 5 * std::exp(3e-6 * (x - 1e6)); };
  const auto f = isocost::fit(tiling(T, 1e6, 2e6, 100, 0.005, false, 5), spec("exp"));
  EXPECT_NEAR(f.summary.parameter("A"), 5, 0.05) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("b"), 3e-6, 0.01 * 3e-6);
  EXPECT_EQ(f.model->kind(), "exponential");
}

TEST(Fit, ExpressionRecoversNamedParameters) {
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.5); };
  FitSpec e = spec("expr:A*x^p");
  e.guess = {{"A", 1e-7}, {"p", 1.4}};
  const auto f = isocost::fit(tiling(T, 10, 1e6, 100, 0.005, true, 6), e);
  EXPECT_NEAR(f.summary.parameter("A"), 2e-7, 0.01 * 2e-7) << f.summary.brief_report();
  EXPECT_NEAR(f.summary.parameter("p"), 1.5, 0.015);
}

// ---------------------------------------------------------------------------
TEST(Fit, IntervalFittingEqualsCumulativeFittingOnConsistentData) {
  // Noise-free: cumulative points and the intervals between them say the same.
  const Truth T = [](double x) { return sieve_T(x, 3.9e-7, 1.43, 1.08366); };
  std::vector<double> x, t;
  for (int k = 0; k <= 40; ++k) {
    x.push_back(10 * std::pow(1e6, k / 40.0));
    t.push_back(T(x.back()) - T(10));
  }
  const auto cumulative = isocost::fit(Samples::from_cumulative(x, t), spec("sieve"));
  const auto intervals = isocost::fit(tiling(T, 10, 1e7, 40, 0.0, true), spec("sieve"));
  EXPECT_NEAR(cumulative.summary.parameter("p"), 1.43, 1e-9);
  EXPECT_NEAR(intervals.summary.parameter("p"), 1.43, 1e-9);
  EXPECT_NEAR(cumulative.summary.parameter("A"), intervals.summary.parameter("A"), 1e-9 * 3.9e-7);
}

TEST(Fit, OverlappingRunsCombine) {
  // Two runs with different partitions of the same domain overlap; a fit on
  // both recovers the truth.
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.6); };
  const auto a = tiling(T, 10, 1e6, 16, 0.003, false, 7);
  const auto b = tiling(T, 10, 1e6, 16, 0.003, true, 8);
  const auto both = a.merged(b);
  ASSERT_FALSE(both.tiles());
  const auto f = isocost::fit(both, spec("power"));
  EXPECT_NEAR(f.summary.parameter("p"), 1.6, 0.016) << f.summary.brief_report();
}

TEST(Fit, RobustLossResistsOutliers) {
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.5); };
  auto v = tiling(T, 10, 1e6, 60, 0.002, true, 9).intervals();
  v[50].dt *= 4;  // two wild timings (e.g. a preempted rank)
  v[55].dt *= 5;
  const Samples s(v);
  isocost::FitOptions robust;
  robust.loss = isocost::FitLoss::cauchy;
  robust.loss_scale = 0.01;
  const auto plain = isocost::fit(s, spec("power"));
  const auto cauchy = isocost::fit(s, spec("power"), robust);
  EXPECT_NEAR(cauchy.summary.parameter("p"), 1.5, 0.005) << cauchy.summary.brief_report();
  EXPECT_GT(std::abs(plain.summary.parameter("p") - 1.5),
            std::abs(cauchy.summary.parameter("p") - 1.5));
}

TEST(Fit, TabulationThroughOneRun) {
  const Truth T = [](double x) { return x * x; };
  const auto s = tiling(T, 0, 10, 10, 0.0, false);
  const auto f = isocost::fit(s, spec("pchip"));
  EXPECT_EQ(f.model->kind(), "pchip");
  EXPECT_NEAR(f.model->cost(5), 25, 1e-9);
  EXPECT_NEAR(f.summary.rmse, 0, 1e-12);
}

// The fitted partition costed on the samples: a linear run of the true model
// has its own (poor) L_E; the partition of the fitted model, costed on a
// monotone interpolant of the same samples, is close to balanced.
TEST(Fit, BalanceOnTheSamples) {
  const Truth T = [](double x) { return sieve_T(x, 3.9e-7, 1.43, 1.08366); };
  const auto s = tiling(T, 10, 1 << 24, 16, 0.0, false);
  const auto f = isocost::fit(s, spec("sieve"));
  std::vector<double> dt;
  for (const auto& iv : s.intervals()) dt.push_back(iv.dt);
  ASSERT_TRUE(f.summary.le_of_samples.has_value());
  EXPECT_NEAR(*f.summary.le_of_samples, isocost::load_stats(dt).le, 1e-9);
  EXPECT_LT(*f.summary.le_of_samples, 80);
  ASSERT_TRUE(f.summary.le_on_samples.has_value());
  EXPECT_GT(*f.summary.le_on_samples, 98);
}

// Over P ranks the samples' own partition takes every (n/P)-th knot: with 16
// intervals and 8 ranks, the sums of adjacent pairs, measured exactly.
TEST(Fit, BalanceOfTheSamplesOwnPartitionOverFewerRanks) {
  const Truth T = [](double x) { return x + 3 * x * x * x; };
  const auto s = tiling(T, 0, 1, 16, 0.01, false, 31);
  isocost::FitOptions o;
  o.ranks = 8;
  const auto f = isocost::fit(s, spec("poly:3"), o);
  std::vector<double> pairs;
  for (std::size_t k = 0; k < 16; k += 2)
    pairs.push_back(s.intervals()[k].dt + s.intervals()[k + 1].dt);
  ASSERT_TRUE(f.summary.le_of_samples.has_value());
  EXPECT_NEAR(*f.summary.le_of_samples, isocost::load_stats(pairs).le, 1e-9);
  EXPECT_GT(*f.summary.le_on_samples, *f.summary.le_of_samples);
  EXPECT_TRUE(f.summary.trusted()) << f.summary.untrusted_reason();
  EXPECT_NEAR(*f.summary.le_model_claim, 100, 1e-6);
}

// A hot spot no parametric form follows: chain-keeping cross-validation lets
// an interpolant win, and the forms the table rejects are untrusted on their own.
TEST(SelectModel, AnInterpolantBeatsFormsThatMissAHotSpot) {
  const Truth T = [](double x) {
    const double w = 0.12, s = 10 * w * std::sqrt(std::acos(-1.0)) / 2;
    return x + s * (std::erf((x - 0.63) / w) - std::erf(-0.63 / w));
  };
  const auto s = tiling(T, 0, 1, 16, 0.01, false, 32);
  isocost::FitOptions o;
  o.ranks = 8;
  for (const auto criterion : {isocost::SelectBy::cross_validation, isocost::SelectBy::aicc}) {
    isocost::SelectOptions select;
    select.criterion = criterion;
    const auto sel = isocost::select_model(s, select, o);
    const std::string picked = sel.best.summary.model;
    EXPECT_TRUE(picked == "pchip" || picked == "makima") << picked << ": " << sel.reason;
    for (const auto& c : sel.candidates)
      if (c.ok && c.model == "power") {
        EXPECT_FALSE(c.summary->trusted());
      }
  }
}

// ---------------------------------------------------------------------------
// Model selection picks the family the data came from.
struct FamilyCase {
  std::string truth;
  Truth T;
  double lo, hi;
  bool log_spaced;
};

TEST(SelectModel, AiccPicksTheTrueFamily) {
  const std::vector<FamilyCase> cases{
      {"sieve", [](double x) { return sieve_T(x, 3.9e-7, 1.43, 1.08366); }, 10, 1e8, true},
      {"power", [](double x) { return 2e-7 * std::pow(x, 1.7); }, 10, 1e6, true},
      {"poly:3",
       [](double x) {
         const double u = x / 1e6;
         return u + 4 * u * u * u;
       },
       0, 1e6, false},
      {"exp", [](double x) { return 5 * std::exp(4e-6 * (x - 1e6)); }, 1e6, 2e6, false},
  };
  unsigned seed = 10;
  for (const auto& c : cases) {
    const auto s = tiling(c.T, c.lo, c.hi, 120, 0.003, c.log_spaced, seed++);
    isocost::SelectOptions aicc;
    aicc.criterion = isocost::SelectBy::aicc;
    const auto sel = isocost::select_model(s, aicc);
    std::string table;
    for (const auto& cand : sel.candidates)
      table += cand.model +
               (cand.ok ? " " + std::to_string(cand.score) : " failed: " + cand.error) + " " +
               (cand.cv_error ? std::to_string(*cand.cv_error) : "") + " " + cand.note + "\n";
    const std::string picked = sel.best.summary.model;
    // sieve+c and sieve+q contain the truth too (c = 1.08366, q = 1).
    const bool ok =
        picked == c.truth || (c.truth == "sieve" && (picked == "sieve+c" || picked == "sieve+q"));
    EXPECT_TRUE(ok) << "truth " << c.truth << ", picked " << picked << "\n" << table;
    EXPECT_EQ(sel.candidates.size(), 9u);  // with pchip and makima
  }
}

TEST(SelectModel, CrossValidationPicksTheTrueFamilyToo) {
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.7); };
  isocost::SelectOptions cv;
  cv.criterion = isocost::SelectBy::cross_validation;
  const auto sel = isocost::select_model(tiling(T, 10, 1e6, 100, 0.003, true, 20), cv);
  EXPECT_EQ(sel.best.summary.model, "power");
  EXPECT_EQ(sel.candidates.size(), 9u);  // with pchip and makima
}

// ---------------------------------------------------------------------------
// Repartition from measurements: "measured" times are the true costs of each
// rank's range (with noise); each round fits and cuts again.
TEST(Repartition, ConvergesToBalanceFromALinearStart) {
  const double lo = 10, hi = 1 << 24;
  auto T = [](double x) { return sieve_T(x, 3.9e-7, 1.5, 1.08366); };
  const int P = 16;
  std::vector<double> cuts;
  for (int i = 0; i <= P; ++i) cuts.push_back(lo + (hi - lo) * i / P);
  std::mt19937_64 rng(30);
  std::normal_distribution<double> noise(0, 0.003);
  auto measure = [&](const std::vector<double>& c) {
    std::vector<double> times;
    for (int i = 0; i < P; ++i) times.push_back((T(c[i + 1]) - T(c[i])) * (1 + noise(rng)));
    return times;
  };
  const auto linear_times = measure(cuts);
  const double linear_le = isocost::load_stats(linear_times).le;
  EXPECT_LT(linear_le, 80);
  auto samples = isocost::samples_from_partition(cuts, linear_times);
  isocost::RepartitionOptions options;
  options.model = spec("sieve");
  for (int round = 1; round <= 2; ++round) {
    const auto next = isocost::repartition(samples, cuts, isocost::Speeds::uniform(P), options);
    cuts = next.partition.cuts;
    const auto times = measure(cuts);
    // Exact L_E of the new cuts under the true model (noise-free):
    std::vector<double> exact;
    for (int i = 0; i < P; ++i) exact.push_back(T(cuts[i + 1]) - T(cuts[i]));
    EXPECT_GT(isocost::load_stats(exact).le, 99.5) << "round " << round;
    samples = samples.merged(isocost::samples_from_partition(cuts, times));
  }
}

// ---------------------------------------------------------------------------
TEST(FitSpec, NamesRoundTrip) {
  for (const char* n :
       {"sieve", "sieve+c", "power", "poly:3", "exp", "expr:A*x^p", "pchip", "makima"})
    EXPECT_EQ(isocost::parse_fit_spec(n).name(), n);
  EXPECT_EQ(isocost::parse_fit_spec("poly:4").degree, 4);
  expect_error([] { isocost::parse_fit_spec("cubic"); },
               {"model: expected sieve", "poly:N", "got 'cubic'"});
  expect_error([] { isocost::parse_fit_spec("poly:0"); }, {"poly:N"});
  expect_error([] { isocost::parse_fit_spec("poly:2.5"); }, {"poly:N"});
  expect_error([] { isocost::parse_fit_spec("expr:"); }, {"needs a formula"});
  expect_error([] { isocost::parse_fit_loss("l1"); },
               {"loss: expected none, huber or cauchy, got 'l1'"});
}

TEST(Fit, BadInputIsAnError) {
  const Truth T = [](double x) { return 2e-7 * std::pow(x, 1.5); };
  const auto s = tiling(T, 10, 1e6, 20, 0.005, true);
  // Fewer samples than parameters + 1.
  expect_error([&] { isocost::fit(tiling(T, 10, 1e6, 2, 0, true), spec("power")); },
               {"2 samples for 2 parameters", "at least parameters + 1 = 3"});
  // All samples over the same x range.
  expect_error(
      [&] {
        isocost::fit(Samples({{1, 2, 1}, {1, 2, 1.1}, {1, 2, 0.9}}), spec("power"));
      },
      {"same interval [1, 2]"});
  // Samples below the sieve form's valid region.
  expect_error([&] { isocost::fit(tiling(T, 1, 1e6, 20, 0, true), spec("sieve")); },
               {"start at x=1", "exp(c + q/p)"});
  // Unknown starting-value names.
  FitSpec bad = spec("power");
  bad.guess = {{"q", 1.0}};
  expect_error([&] { isocost::fit(s, bad); }, {"unknown parameter 'q'", "expected A, p"});
  FitSpec bad_expr = spec("expr:A*x^p");
  bad_expr.guess = {{"B", 1.0}};
  expect_error([&] { isocost::fit(s, bad_expr); }, {"unknown parameter 'B'"});
  // A fit that does not converge is a result, not an exception: Ceres'
  // iteration limit, with the last iterate's (valid) model.
  isocost::FitOptions one;
  one.max_iterations = 1;
  FitSpec far = spec("power");
  far.guess = {{"A", 1.0}, {"p", 0.2}};
  const auto stopped = isocost::fit(s, far, one);
  EXPECT_EQ(stopped.summary.termination, isocost::Termination::iteration_limit);
  EXPECT_FALSE(stopped.converged());
  EXPECT_TRUE(stopped.model.has_value());
  EXPECT_NE(stopped.summary.message.find("NO_CONVERGENCE"), std::string::npos)
      << stopped.summary.message;
  EXPECT_NE(stopped.summary.brief_report().find("iteration_limit"), std::string::npos);
  EXPECT_EQ(stopped.summary.brief_report().find('\n'), std::string::npos) << "one line";
  // Options.
  isocost::FitOptions o;
  o.loss_scale = 0;
  expect_error([&] { isocost::fit(s, spec("power"), o); }, {"loss_scale"});
  // A quadratic cannot follow a steep exponential and comes out decreasing:
  // a failed fit, reported, with no model.
  const Truth steep = [](double x) { return std::exp(12 * x); };
  const auto decreasing = isocost::fit(tiling(steep, 0, 1, 40, 0, false), spec("poly:2"));
  EXPECT_EQ(decreasing.summary.termination, isocost::Termination::failed);
  EXPECT_FALSE(decreasing.model.has_value());
  EXPECT_NE(decreasing.summary.message.find("no valid model"), std::string::npos)
      << decreasing.summary.message;
  EXPECT_NE(decreasing.summary.message.find("nondecreasing"), std::string::npos)
      << decreasing.summary.message;
}

}  // namespace
