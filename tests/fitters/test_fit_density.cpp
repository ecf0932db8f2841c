// Tests for isocost/fitters/fit_density.hpp (densities fitted to box costs) and
// expression_density (isocost/fitters/expression.hpp): known densities recovered from
// noisy per-cell and per-rank samples, closed forms, and bad input.
#include "isocost/fitters/fit_density.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "isocost/fitters/expression.hpp"
#include "support/expect_error.hpp"
#include "support/expect_rel.hpp"

namespace {

using isocost::Box;
using isocost::BoxSample;
using isocost::Density;
using isocost::DensityFitOptions;
using isocost::DensityForm;
using isocost::fit_density;
using isocost::testing::expect_error;

using isocost::testing::expect_rel;

// The exact mass of a box under some density.
using Mass = std::function<double(const Box&)>;

// Per-cell samples on an n_0 × n_1 (× n_2) grid over `box`, each cost the
// exact mass times (1 + noise·N(0,1)), fixed seed.
std::vector<BoxSample> cells(const Mass& mass, const Box& box, std::array<int, 3> n, double noise,
                             unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0, 1);
  std::vector<BoxSample> out;
  const int nz = box.dims == 3 ? n[2] : 1, ny = box.dims >= 2 ? n[1] : 1;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < n[0]; ++i) {
        Box c = box;
        const int idx[3] = {i, j, k};
        for (int a = 0; a < box.dims; ++a) {
          c.lo[a] = box.lo[a] + box.width(a) * idx[a] / n[a];
          c.hi[a] = idx[a] + 1 == n[a] ? box.hi[a] : box.lo[a] + box.width(a) * (idx[a] + 1) / n[a];
        }
        out.push_back({c, mass(c) * (1 + noise * gauss(rng))});
      }
  return out;
}

// rho = (1 + x)(2 + y²): ∫(1 + x) = Δx + Δ(x²)/2, ∫(2 + y²) = 2Δy + Δ(y³)/3.
double truth_x(double a, double b) { return (b - a) + (b * b - a * a) / 2; }
double truth_y(double a, double b) { return 2 * (b - a) + (b * b * b - a * a * a) / 3; }
double truth_mass(const Box& b) { return truth_x(b.lo[0], b.hi[0]) * truth_y(b.lo[1], b.hi[1]); }

const Box kBox = Box::of({0, 0}, {4, 3});

// Boxes where the fitted masses are compared with the truth.
const std::vector<Box> kProbes = {kBox,
                                  Box::of({0, 0}, {1, 1}),
                                  Box::of({3, 2}, {4, 3}),
                                  Box::of({0.5, 0.25}, {3.5, 1.75}),
                                  Box::of({2, 0}, {2.4, 3}),
                                  Box::of({0, 2.6}, {4, 3})};

// ---------------------------------------------------------------------------
// Separable form

TEST(FitDensity, SeparableRecoversProductFromNoisyCells) {
  const auto s = cells(truth_mass, kBox, {16, 12, 1}, 0.005);
  const auto f = fit_density(s);  // separable, Bernstein degree 3
  for (const Box& b : kProbes) expect_rel(f.density.mass(b), truth_mass(b), 0.01);
  expect_rel(f.density.total(), truth_mass(kBox), 0.002);
  // The residual scatter is the noise we put in (0.5 % relative).
  EXPECT_GT(f.summary.rmse, 0.003) << f.summary.brief_report();
  EXPECT_LT(f.summary.rmse, 0.007);
  EXPECT_GT(f.summary.r_squared, 0.999);
  EXPECT_EQ(f.summary.model, "separable:3");
  EXPECT_EQ(f.summary.samples, s.size());
  ASSERT_EQ(f.summary.parameters.size(), 8u);
  EXPECT_EQ(f.summary.parameters[0].name, "x.b0");
  EXPECT_EQ(f.summary.parameters[7].name, "y.b3");
  // f_y is scaled to mean 1: the mean of its Bernstein coefficients.
  double mean_y = 0;
  for (int k = 4; k < 8; ++k) mean_y += f.summary.parameters[k].value / 4;
  EXPECT_NEAR(mean_y, 1, 1e-12);
  for (const auto& p : f.summary.parameters) EXPECT_GE(p.value, 0);
  EXPECT_EQ(f.density.describe(),
            "fitted separable density (Bernstein degree 3 per axis) on [0, 4] x [0, 3]");
  EXPECT_EQ(f.summary.termination, isocost::Termination::converged);
  EXPECT_NE(f.summary.message.find("CONVERGENCE"), std::string::npos);
}

// Noise-free data from a product that degree 2 represents exactly
// (1 + x and 2 + y² have nonnegative Bernstein coefficients): recovered to
// rounding, and the marginal and cross-section follow the closed forms.
TEST(FitDensity, SeparableExactProduct) {
  DensityFitOptions o;
  o.degree = 2;
  const auto f = fit_density(cells(truth_mass, kBox, {8, 6, 1}, 0), o);
  EXPECT_EQ(f.options.degree, 2);  // the options given come back
  for (const Box& b : kProbes) expect_rel(f.density.mass(b), truth_mass(b), 1e-8);
  EXPECT_LT(f.summary.rmse, 1e-8);
  // Cross-section along y at y: ∫_0^4 (1 + x) dx · (2 + y²) = 12·(2 + y²).
  expect_rel(f.density.cross_section(kBox, 1, 1.5), 12 * (2 + 2.25), 1e-8);
  expect_rel(f.density.marginal(kBox, 0, 1.5), truth_x(0, 1.5) * truth_y(0, 3), 1e-8);
}

// Per-rank samples: random overlapping boxes, as gathered from several
// earlier partitions.
TEST(FitDensity, SeparableFromRandomBoxes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> ux(0, 4), uy(0, 3);
  std::normal_distribution<double> gauss(0, 1);
  std::vector<BoxSample> s;
  for (int k = 0; k < 80; ++k) {
    double x0 = ux(rng), x1 = ux(rng), y0 = uy(rng), y1 = uy(rng);
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    if (x1 - x0 < 0.1 || y1 - y0 < 0.1) continue;
    const Box b = Box::of({x0, y0}, {x1, y1});
    s.push_back({b, truth_mass(b) * (1 + 0.005 * gauss(rng))});
  }
  DensityFitOptions o;
  o.box = kBox;  // the random boxes need not reach the corners
  const auto f = fit_density(s, o);
  for (const Box& b : kProbes) expect_rel(f.density.mass(b), truth_mass(b), 0.01);
}

// 3-D: rho = (1 + x)(1 + y)(1 + z²) on [0,1]×[0,2]×[0,1], 6³ noisy cells.
TEST(FitDensity, SeparableThreeDimensional) {
  const Box box = Box::of({0, 0, 0}, {1, 2, 1});
  const Mass mass = [](const Box& b) {
    auto lin = [](double a, double c) { return (c - a) + (c * c - a * a) / 2; };
    auto sq = [](double a, double c) { return (c - a) + (c * c * c - a * a * a) / 3; };
    return lin(b.lo[0], b.hi[0]) * lin(b.lo[1], b.hi[1]) * sq(b.lo[2], b.hi[2]);
  };
  DensityFitOptions o;
  o.degree = 2;
  const auto f = fit_density(cells(mass, box, {6, 6, 6}, 0.005), o);
  EXPECT_EQ(f.density.dims(), 3);
  for (const Box& b : {box, Box::of({0, 0, 0}, {0.5, 0.5, 0.5}), Box::of({0.2, 1, 0.6}, {1, 2, 1}),
                       Box::of({0.1, 0.3, 0.2}, {0.9, 1.7, 0.4})})
    expect_rel(f.density.mass(b), mass(b), 0.01);
  ASSERT_EQ(f.summary.parameters.size(), 9u);
  EXPECT_EQ(f.summary.parameters[8].name, "z.b2");
  // The cross-section is the marginal's derivative.
  const double h = 1e-4;
  expect_rel(f.density.cross_section(box, 2, 0.3),
             (f.density.marginal(box, 2, 0.3 + h) - f.density.marginal(box, 2, 0.3 - h)) / (2 * h),
             1e-6);
}

// Outliers (a few cells measured 3× too slow, e.g. a node hiccup) move a
// plain fit; Cauchy's loss keeps the masses within 1 %.
TEST(FitDensity, RobustLossResistsOutliers) {
  auto s = cells(truth_mass, kBox, {16, 12, 1}, 0.005);
  for (int k : {0, 1, 16, 17, 100, 150}) s[k].cost *= 3;
  const auto plain = fit_density(s);
  double worst = 0;
  for (const Box& b : kProbes)
    worst = std::max(worst, std::abs(plain.density.mass(b) / truth_mass(b) - 1));
  EXPECT_GT(worst, 0.02);
  DensityFitOptions o;
  o.loss = isocost::FitLoss::cauchy;
  const auto f = fit_density(s, o);
  for (const Box& b : kProbes) expect_rel(f.density.mass(b), truth_mass(b), 0.01);
}

// 1-D works too (a 1-D density fitted to intervals).
TEST(FitDensity, OneDimensional) {
  const Box box = Box::of({1}, {3});
  const Mass mass = [](const Box& b) { return truth_y(b.lo[0], b.hi[0]); };  // 2 + x²
  DensityFitOptions o;
  o.degree = 2;
  const auto f = fit_density(cells(mass, box, {10, 1, 1}, 0), o);
  expect_rel(f.density.mass(Box::of({1.3}, {2.2})), mass(Box::of({1.3}, {2.2})), 1e-8);
  expect_rel(f.density.cross_section(box, 0, 2.5), 2 + 6.25, 1e-8);
}

// ---------------------------------------------------------------------------
// Polynomial form

// rho = 1 + x + 2y + x·y on [0,4]×[0,3]; in u = x/4, v = y/3 it is
// 1 + 4u + 6v + 12uv, so c00 = 1, c10 = 4, c01 = 6, c11 = 12, others 0.
double poly_mass(const Box& b) {
  const double x0 = b.lo[0], x1 = b.hi[0], y0 = b.lo[1], y1 = b.hi[1];
  const double X = x1 - x0, Y = y1 - y0, X2 = (x1 * x1 - x0 * x0) / 2, Y2 = (y1 * y1 - y0 * y0) / 2;
  return X * Y + X2 * Y + 2 * X * Y2 + X2 * Y2;
}

TEST(FitDensity, PolynomialRecoversCoefficients) {
  DensityFitOptions o;
  o.form = DensityForm::polynomial;
  o.degree = 2;
  const auto f = fit_density(cells(poly_mass, kBox, {8, 6, 1}, 0), o);
  EXPECT_EQ(f.summary.model, "poly:2");
  const std::vector<std::pair<std::string, double>> expected = {
      {"c00", 1}, {"c10", 4}, {"c01", 6}, {"c20", 0}, {"c11", 12}, {"c02", 0}};
  ASSERT_EQ(f.summary.parameters.size(), expected.size());
  for (std::size_t m = 0; m < expected.size(); ++m) {
    EXPECT_EQ(f.summary.parameters[m].name, expected[m].first);
    EXPECT_NEAR(f.summary.parameters[m].value, expected[m].second, 1e-8);
    ASSERT_TRUE(f.summary.parameters[m].std_error.has_value());
  }
  expect_rel(f.density.cross_section(kBox, 0, 1), 3 * (1 + 1) + (2 + 1) * 4.5, 1e-10);
  EXPECT_EQ(f.density.describe(), "fitted polynomial density (total degree 2) on [0, 4] x [0, 3]");
  EXPECT_NE(f.summary.formula.find("u = (x - 0)/4"), std::string::npos) << f.summary.formula;
}

TEST(FitDensity, PolynomialFromNoisyCells) {
  DensityFitOptions o;
  o.form = DensityForm::polynomial;
  const auto f = fit_density(cells(truth_mass, kBox, {16, 12, 1}, 0.005, 3), o);  // degree 3
  for (const Box& b : kProbes) expect_rel(f.density.mass(b), truth_mass(b), 0.01);
  EXPECT_EQ(f.summary.parameters.size(), 10u);
  // Noise gives finite, positive standard errors.
  for (const auto& p : f.summary.parameters) {
    ASSERT_TRUE(p.std_error.has_value());
    EXPECT_GT(*p.std_error, 0);
  }
}

TEST(FitDensity, PolynomialThreeDimensional) {
  // rho = 1 + x + y·z on the unit cube: exact in degree 2.
  const Box box = Box::of({0, 0, 0}, {1, 1, 1});
  const Mass mass = [](const Box& b) {
    const double X = b.width(0), Y = b.width(1), Z = b.width(2);
    const double X2 = (b.hi[0] * b.hi[0] - b.lo[0] * b.lo[0]) / 2;
    const double Y2 = (b.hi[1] * b.hi[1] - b.lo[1] * b.lo[1]) / 2;
    const double Z2 = (b.hi[2] * b.hi[2] - b.lo[2] * b.lo[2]) / 2;
    return X * Y * Z + X2 * Y * Z + X * Y2 * Z2;
  };
  DensityFitOptions o;
  o.form = DensityForm::polynomial;
  o.degree = 2;
  const auto f = fit_density(cells(mass, box, {4, 4, 4}, 0), o);
  EXPECT_EQ(f.summary.parameters.size(), 10u);
  const Box sub = Box::of({0.1, 0.2, 0.3}, {0.7, 0.9, 0.8});
  expect_rel(f.density.mass(sub), mass(sub), 1e-9);
  EXPECT_NEAR(f.summary.parameter("c011"), 1, 1e-8);
}

// rho = x on [−0.1, 1]: every cell has a positive cost, but the exact fit is
// negative left of 0.
TEST(FitDensity, PolynomialNegativeIsAnError) {
  const Box box = Box::of({-0.1}, {1});
  const Mass mass = [](const Box& b) { return (b.hi[0] * b.hi[0] - b.lo[0] * b.lo[0]) / 2; };
  DensityFitOptions o;
  o.form = DensityForm::polynomial;
  o.degree = 1;
  expect_error(
      [&] {
        fit_density(cells(mass, box, {4, 1, 1}, 0), o);
      },
      {"fitted polynomial is negative", "rho(-0.1) = -0.", "separable form"});
}

// ---------------------------------------------------------------------------
// Bad input

TEST(FitDensityErrors, BadSamples) {
  const auto good = cells(truth_mass, kBox, {4, 4, 1}, 0);
  expect_error([] { fit_density({}); }, {"no samples"});
  for (double bad : {-1.0, 0.0, std::numeric_limits<double>::quiet_NaN()}) {
    auto s = good;
    s[5].cost = bad;
    expect_error([&] { fit_density(s); }, {"sample 5 cost: expected a finite number > 0"});
  }
  {
    // Zero is a valid cost with absolute residuals.
    auto s = good;
    s[5].cost = 0;
    DensityFitOptions o;
    o.relative = false;
    o.degree = 1;
    EXPECT_NO_THROW(fit_density(s, o));
  }
  {
    auto s = good;
    s[2].box = Box::of({0}, {1});
    expect_error([&] { fit_density(s); },
                 {"fit_density: dims of sample 2: expected 2 (those of sample 0), got 1"});
  }
  {
    auto s = good;
    s[3].box.hi[1] = s[3].box.lo[1];
    expect_error([&] { fit_density(s); }, {"sample 3 box", "lo < hi"});
  }
  {
    DensityFitOptions o;
    o.box = Box::of({0, 0}, {4, 2.5});
    expect_error([&] { fit_density(good, o); }, {"is not inside the domain", "along y"});
  }
}

TEST(FitDensityErrors, TooFewSamples) {
  const auto s = cells(truth_mass, kBox, {2, 3, 1}, 0);  // 6 samples, 7 parameters
  expect_error([&] { fit_density(s); },
               {"6 samples for 7 parameters", "need at least parameters + 1 = 8"});
  DensityFitOptions o;
  o.form = DensityForm::polynomial;
  o.degree = 2;
  expect_error([&] { fit_density(s, o); }, {"6 samples for 6 parameters"});
}

// Rows spanning the whole x range carry no information about f_x.
TEST(FitDensityErrors, RowsDoNotDetermineX) {
  const auto s = cells(truth_mass, kBox, {1, 12, 1}, 0);
  expect_error([&] { fit_density(s); },
               {"at least 4 distinct intervals along each axis", "along x they have 1"});
  DensityFitOptions o;
  o.form = DensityForm::polynomial;
  o.degree = 1;
  expect_error([&] { fit_density(s, o); }, {"do not determine", "rank 2 of 3"});
}

TEST(FitDensityErrors, BadOptions) {
  const auto s = cells(truth_mass, kBox, {4, 4, 1}, 0);
  DensityFitOptions o;
  o.degree = 11;
  expect_error([&] { fit_density(s, o); },
               {"separable degree: expected an integer in [0, 10], got 11"});
  o = {};
  o.form = DensityForm::polynomial;
  o.degree = 7;
  expect_error([&] { fit_density(s, o); },
               {"polynomial degree: expected an integer in [0, 6], got 7"});
  o = {};
  o.loss_scale = 0;
  expect_error([&] { fit_density(s, o); }, {"loss_scale"});
  o = {};
  o.check_points = 1;
  expect_error([&] { fit_density(s, o); },
               {"check_points: expected an integer in [2, 1001], got 1"});
  o = {};
  o.density.tolerance = 2;
  expect_error([&] { fit_density(s, o); }, {"density.tolerance"});
  o = {};
  o.box = Box::of({0, 0}, {0, 3});
  expect_error([&] { fit_density(s, o); }, {"options.box", "lo < hi"});
}

// ---------------------------------------------------------------------------
// expression_density

TEST(ExpressionDensity, SwartzSection5) {
  // rho = x + y on [0,20]²: total 8000, marginal along y 200y + 10y².
  const Box box = Box::of({0, 0}, {20, 20});
  const Density d = isocost::expression_density("x + y", box);
  expect_rel(d.total(), 8000, 1e-12);
  for (double y : {2.0, 7.5, 16.0}) {
    expect_rel(d.marginal(box, 1, y), 200 * y + 10 * y * y, 1e-12);
    expect_rel(d.cross_section(box, 1, y), 200 + 20 * y, 1e-12);
  }
  EXPECT_EQ(d.describe(),
            "expression density rho(x, y) = x + y (gauss_kronrod quadrature) on [0, 20] x [0, 20]");
  isocost::DensityOptions o;
  o.quadrature = isocost::Quadrature::tanh_sinh;
  expect_rel(isocost::expression_density("x + y", box, o).total(), 8000, 1e-12);
}

TEST(ExpressionDensity, OneAndThreeDimensions) {
  expect_rel(isocost::expression_density("1 + x^2", Box::of({0}, {3})).total(), 12, 1e-12);
  const Density d = isocost::expression_density("x*y*z", Box::of({1, 0, 2}, {2, 3, 5}));
  expect_rel(d.total(), 70.875, 1e-12);
  EXPECT_NE(d.describe().find("rho(x, y, z) = x*y*z"), std::string::npos);
  // A constant and muParser's functions.
  expect_rel(isocost::expression_density("_pi", Box::of({0, 0}, {1, 2})).total(),
             2 * std::acos(-1.0), 1e-12);
  expect_rel(isocost::expression_density("exp(x)", Box::of({0, 0}, {1, 1})).total(),
             std::exp(1.0) - 1, 1e-12);
}

TEST(ExpressionDensity, SharedAcrossThreads) {
  const Box box = Box::of({0, 0}, {1, 1});
  const Density d = isocost::expression_density("1 + x*y", box);
  std::vector<double> r(3);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < r.size(); ++t)
    threads.emplace_back([&, t] {
      for (int k = 1; k <= 20; ++k) r[t] += d.marginal(box, 0, 0.05 * k);
    });
  for (auto& t : threads) t.join();
  for (double v : r) EXPECT_EQ(v, r[0]);
}

TEST(ExpressionDensity, BadFormulas) {
  const Box box = Box::of({0, 0}, {20, 20});
  expect_error([&] { isocost::expression_density("A*x + y + w", box); },
               {"expression density 'A*x + y + w'", "unknown identifier(s) A, w",
                "formula in x, y without parameters"});
  expect_error([&] { isocost::expression_density("x + z", box); }, {"unknown identifier(s) z"});
  expect_error([&] { isocost::expression_density("x +* y", box); }, {"syntax error at position"});
  expect_error([&] { isocost::expression_density("x = 3", box); }, {"assignment"});
  expect_error([&] { isocost::expression_density("x, y", box); }, {"2 comma-separated"});
  expect_error([&] { isocost::expression_density("x - 5", box); },
               {"expression density 'x - 5': rho(0, 0): expected a finite value >= 0, got -5"});
  expect_error([&] { isocost::expression_density("0*x", box); }, {"total cost", "> 0"});
  expect_error(
      [&] {
        isocost::expression_density("x", Box::of({0, 0}, {1, 0}));
      },
      {"expression density 'x': box", "lo < hi"});
  // Negative between lattice points: found by quadrature, still named.
  expect_error([&] { isocost::expression_density("(x > 1 && x < 2) ? -1 : 1", box); },
               {"expression density '(x > 1 && x < 2) ? -1 : 1': rho(1."});
}

}  // namespace

namespace {

// Box costs of rho = (1 + x)(1 + 2y) on a 6 × 5 grid of [0, 3] × [0, 2]
// (the mass of [a, b] × [c, d] is (b − a + (b² − a²)/2)(d − c + d² − c²)),
// with an alternating relative error of `wobble`.
std::vector<isocost::BoxSample> ProductBoxes(double wobble) {
  std::vector<isocost::BoxSample> s;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 6; ++i) {
      const double a = 0.5 * i, b = 0.5 * (i + 1), c = 0.4 * j, d = 0.4 * (j + 1);
      const double m = (b - a + (b * b - a * a) / 2) * (d - c + d * d - c * c);
      s.push_back({isocost::Box::of({a, c}, {b, d}), m * (1 + ((i + j) % 2 ? wobble : -wobble))});
    }
  return s;
}

}  // namespace

TEST(SelectDensity, ChoosesTheLowestAiccAndExplainsEveryCandidate) {
  const auto samples = ProductBoxes(0.01);
  const isocost::DensitySelection sel = isocost::select_density(samples);
  ASSERT_EQ(sel.candidates.size(), 10u);  // separable:0…4, poly:0…4
  double lowest = std::numeric_limits<double>::infinity();
  std::string winner;
  for (const auto& c : sel.candidates) {
    if (!c.ok) {
      EXPECT_FALSE(c.error.empty()) << c.model;
      continue;
    }
    // Each candidate's AICc is its own fit's: fitted again independently.
    const auto r = isocost::fit_density(samples, isocost::parse_density_form(c.model));
    EXPECT_EQ(c.aicc, r.summary.aicc) << c.model;
    if (c.aicc < lowest) lowest = c.aicc, winner = c.model;
  }
  EXPECT_EQ(sel.best.summary.aicc, lowest);
  EXPECT_EQ(sel.best.summary.model, winner);
  // With 1 % noise on a product of linear factors, constants lose.
  EXPECT_NE(winner, "separable:0");
  EXPECT_NE(winner, "poly:0");
  // And whatever won holds the total to the noise.
  EXPECT_NEAR(sel.best.density.total(), 45, 0.02 * 45);  // (3 + 9/2)(2 + 4)
}

TEST(SelectDensity, NothingFittableNamesEveryCandidate) {
  const auto one = std::vector<isocost::BoxSample>{ProductBoxes(0)[0]};
  try {
    isocost::select_density(one);
    FAIL() << "no Error";
  } catch (const isocost::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no form could be fitted to the 1 samples"), std::string::npos) << m;
    for (const char* form : {"separable:0", "separable:4", "poly:0", "poly:4"})
      EXPECT_NE(m.find(form), std::string::npos) << form << " in " << m;
  }
}

TEST(ParseDensityForm, FormsDegreesAndErrors) {
  EXPECT_EQ(isocost::parse_density_form("separable").degree, 3);
  const auto p = isocost::parse_density_form("poly:4");
  EXPECT_EQ(p.form, isocost::DensityForm::polynomial);
  EXPECT_EQ(p.degree, 4);
  EXPECT_EQ(isocost::parse_density_form("separable:10").degree, 10);
  for (const char* bad :
       {"poly", "poly:", "poly:-1", "poly:2x", "separable:11", "poly:7", "bell:2"})
    EXPECT_THROW(isocost::parse_density_form(bad), isocost::Error) << bad;
}
