// Tests for analytic_density (isocost/density.hpp): closed-form masses,
// marginals and cross-sections with and without an antiderivative, under both
// quadratures, in 1, 2 and 3 dimensions; and the bad input it must refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "isocost/cut.hpp"
#include "isocost/density.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::analytic_density;
using isocost::Box;
using isocost::Density;
using isocost::DensityOptions;
using isocost::Quadrature;
using isocost::testing::expect_error;
using Fn = std::function<double(std::span<const double>)>;

void expect_rel(double actual, double expected, double tolerance) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << "actual " << actual << " expected " << expected;
}

DensityOptions with(Quadrature q) {
  DensityOptions o;
  o.quadrature = q;
  return o;
}

// Every case runs under both quadratures, with and without the antiderivative.
struct Variant {
  Quadrature quadrature;
  bool antiderivative;
};

class AnalyticDensity : public ::testing::TestWithParam<Variant> {
 protected:
  Density make(Fn rho, const Box& box, Fn F) const {
    return analytic_density(std::move(rho), box, with(GetParam().quadrature),
                            GetParam().antiderivative ? std::move(F) : Fn{});
  }
};

// ---------------------------------------------------------------------------
// Swartz §5: rho = C·(x + y) on [0,20]². Integrating over x ∈ [0,20]:
//   total           = C·8000,
//   marginal along y at y = C·∫_0^y (200 + 20 s) ds = C·(200 y + 10 y²),
//   cross-section along y at y = C·(200 + 20 y),
// and F(x, y) = C·(x² y + x y²)/2. Four equal rows have C·(200 y + 10 y²) =
// 2000·C·i, i.e. y_i = −10 + √(100 + 200 i).

constexpr double kC = 0.37;

TEST_P(AnalyticDensity, SwartzSection5) {
  const Box box = Box::of({0, 0}, {20, 20});
  const Density d = make(
      [](std::span<const double> p) { return kC * (p[0] + p[1]); }, box,
      [](std::span<const double> p) { return kC * (p[0] * p[0] * p[1] + p[0] * p[1] * p[1]) / 2; });
  EXPECT_EQ(d.dims(), 2);
  expect_rel(d.total(), 8000 * kC, 1e-12);
  for (double y : {0.5, 3.0, 7.25, 12.0, 19.9}) {
    expect_rel(d.marginal(box, 1, y), kC * (200 * y + 10 * y * y), 1e-12);
    expect_rel(d.cross_section(box, 1, y), kC * (200 + 20 * y), 1e-12);
    // By symmetry the same along x.
    expect_rel(d.marginal(box, 0, y), kC * (200 * y + 10 * y * y), 1e-12);
  }
  for (int i = 1; i < 4; ++i) {
    const double y = -10 + std::sqrt(100 + 200.0 * i);
    expect_rel(d.marginal(box, 1, y), 2000 * kC * i, 1e-12);
  }
  // An interior box: ∫_2^5 ∫_1^4 (x + y) dy dx = 3·(21/2) + 3·(15/2) = 54.
  expect_rel(d.mass(Box::of({2, 1}, {5, 4})), 54 * kC, 1e-12);
  // A cross-section of a sub-box: ∫_2^5 (x + 6) dx = 10.5 + 18.
  expect_rel(d.cross_section(Box::of({2, 1}, {5, 9}), 1, 6), 28.5 * kC, 1e-12);
  // Zero-width boxes have no mass.
  EXPECT_EQ(d.mass(Box::of({2, 1}, {2, 9})), 0);
}

// 3-D: rho = x·y·z on [1,2]×[0,3]×[2,5]; F = x² y² z²/8 (a valid
// antiderivative up to terms the corner sum cancels), so
// mass = (3/2)·(9/2)·(21/2) = 70.875 and the cross-section along z at z is
// z·(3/2)·(9/2).
TEST_P(AnalyticDensity, ThreeDimensionalProduct) {
  const Box box = Box::of({1, 0, 2}, {2, 3, 5});
  const Density d =
      make([](std::span<const double> p) { return p[0] * p[1] * p[2]; }, box,
           [](std::span<const double> p) { return p[0] * p[0] * p[1] * p[1] * p[2] * p[2] / 8; });
  EXPECT_EQ(d.dims(), 3);
  expect_rel(d.total(), 70.875, 1e-12);
  expect_rel(d.cross_section(box, 2, 4), 4 * 1.5 * 4.5, 1e-12);
  expect_rel(d.cross_section(box, 0, 1.5), 1.5 * 4.5 * 10.5, 1e-12);
  // Marginal along y at y: (3/2)·(y²/2)·(21/2).
  expect_rel(d.marginal(box, 1, 2), 1.5 * 2 * 10.5, 1e-12);
  const Box sub = Box::of({1.5, 1, 3}, {2, 2, 4});
  expect_rel(d.mass(sub), (4 - 2.25) / 2 * (4 - 1) / 2 * (16 - 9) / 2, 1e-12);
}

// 1-D: rho = 1 + x² on [0,3]: mass = 3 + 9, cross-section = rho itself.
TEST_P(AnalyticDensity, OneDimensional) {
  const Box box = Box::of({0}, {3});
  const Density d = make([](std::span<const double> p) { return 1 + p[0] * p[0]; }, box,
                         [](std::span<const double> p) { return p[0] + p[0] * p[0] * p[0] / 3; });
  EXPECT_EQ(d.dims(), 1);
  expect_rel(d.total(), 12, 1e-12);
  expect_rel(d.marginal(box, 0, 1.5), 1.5 + 1.125, 1e-12);
  EXPECT_DOUBLE_EQ(d.cross_section(box, 0, 2), 5);
}

INSTANTIATE_TEST_SUITE_P(Variants, AnalyticDensity,
                         ::testing::Values(Variant{Quadrature::gauss_kronrod, false},
                                           Variant{Quadrature::gauss_kronrod, true},
                                           Variant{Quadrature::tanh_sinh, false},
                                           Variant{Quadrature::tanh_sinh, true}),
                         [](const auto& info) {
                           return std::string(info.param.quadrature == Quadrature::gauss_kronrod
                                                  ? "GaussKronrod"
                                                  : "TanhSinh") +
                                  (info.param.antiderivative ? "Antiderivative" : "Quadrature");
                         });

// ---------------------------------------------------------------------------
// Accuracy on a non-polynomial integrand: rho = exp(−x² − y²) on
// [−1, 2] × [0, 1.5] has mass (π/4)·(erf 2 + erf 1)·erf 1.5.

TEST(AnalyticDensityAccuracy, ToleranceHonoured) {
  const Box box = Box::of({-1, 0}, {2, 1.5});
  const double exact = std::numbers::pi / 4 * (std::erf(2.0) + std::erf(1.0)) * std::erf(1.5);
  for (Quadrature q : {Quadrature::gauss_kronrod, Quadrature::tanh_sinh}) {
    DensityOptions o = with(q);
    o.tolerance = 1e-10;
    const Density d = analytic_density(
        [](std::span<const double> p) { return std::exp(-p[0] * p[0] - p[1] * p[1]); }, box, o);
    expect_rel(d.total(), exact, 1e-9);
    // A sub-box: (π/4)·(erf 0.5 − erf(−1))·(erf 1 − erf 0.25).
    const double sub =
        std::numbers::pi / 4 * (std::erf(0.5) + std::erf(1.0)) * (std::erf(1.0) - std::erf(0.25));
    expect_rel(d.mass(Box::of({-1, 0.25}, {0.5, 1})), sub, 1e-9);
    // Cross-section along x at x: e^{−x²}·(√π/2)·erf 1.5.
    expect_rel(d.cross_section(box, 0, 0.3),
               std::exp(-0.09) * std::sqrt(std::numbers::pi) / 2 * std::erf(1.5), 1e-9);
  }
}

// A kink (rho = |x − 1/3|) needs adaptive refinement, which Gauss–Kronrod
// does: ∫_0^1 |x − 1/3| dx = (1/3)²/2 + (2/3)²/2 = 5/18, times the y width 2.
// (Tanh-sinh does not subdivide: it stalls near 1e-8 on an interior kink.)
TEST(AnalyticDensityAccuracy, KinkRefinedByGaussKronrod) {
  const Density d = analytic_density(
      [](std::span<const double> p) { return std::abs(p[0] - 1.0 / 3); }, Box::of({0, 0}, {1, 2}));
  expect_rel(d.total(), 10.0 / 18, 1e-9);
}

// An endpoint singularity of the derivative, tanh-sinh's strength:
// ∫_0^1 √x dx · ∫_0^1 (1 + y) dy = (2/3)·(3/2) = 1; the marginal along x at
// x is (2/3)·x^{3/2}·(3/2).
TEST(AnalyticDensityAccuracy, EndpointSingularity) {
  const Box box = Box::of({0, 0}, {1, 1});
  for (Quadrature q : {Quadrature::gauss_kronrod, Quadrature::tanh_sinh}) {
    const Density d = analytic_density(
        [](std::span<const double> p) { return std::sqrt(p[0]) * (1 + p[1]); }, box, with(q));
    expect_rel(d.total(), 1, 1e-9);
    expect_rel(d.marginal(box, 0, 0.01), 1e-3, 1e-9);
  }
}

TEST(AnalyticDensityDescribe, NamesQuadratureOrAntiderivative) {
  const Box box = Box::of({0, 0}, {20, 20});
  const Fn rho = [](std::span<const double> p) { return p[0] + p[1]; };
  EXPECT_EQ(analytic_density(rho, box).describe(),
            "analytic density (gauss_kronrod quadrature) on [0, 20] x [0, 20]");
  EXPECT_EQ(analytic_density(rho, box, with(Quadrature::tanh_sinh)).describe(),
            "analytic density (tanh_sinh quadrature) on [0, 20] x [0, 20]");
  EXPECT_EQ(analytic_density(rho, box, {},
                             [](std::span<const double> p) {
                               return (p[0] * p[0] * p[1] + p[0] * p[1] * p[1]) / 2;
                             })
                .describe(),
            "analytic density (antiderivative) on [0, 20] x [0, 20]");
}

// Several threads may share one density when rho is thread-safe (tanh-sinh
// extends its shared abscissa table under Boost's lock).
TEST(AnalyticDensityThreads, ConcurrentMasses) {
  const Box box = Box::of({0, 0, 0}, {1, 2, 3});
  for (Quadrature q : {Quadrature::gauss_kronrod, Quadrature::tanh_sinh}) {
    const Density d = analytic_density(
        [](std::span<const double> p) { return std::exp(p[0]) * (1 + p[1] * p[2]); }, box, with(q));
    std::vector<double> results(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < results.size(); ++t)
      threads.emplace_back([&, t] {
        double sum = 0;
        for (int k = 0; k < 20; ++k) sum += d.marginal(box, 2, 0.1 * (k + 1));
        results[t] = sum;
      });
    for (auto& t : threads) t.join();
    for (double r : results) EXPECT_EQ(r, results[0]);
  }
}

// ---------------------------------------------------------------------------
// Bad input

// rho = x·y on [0, 2]x[0, 3]: the marginal along x of the piece [0, 2]x[1, 3]
// is ∫_0^x u du · ∫_1^3 v dv = x^2/2 · 4 = 2x^2, its cross-section 4x; the
// model's cut at half the piece's mass (8/2 = 4) is x = sqrt(2).
TEST(AnalyticDensityMarginal, MarginalModelIsTheMarginal) {
  const Density d = analytic_density([](std::span<const double> p) { return p[0] * p[1]; },
                                     Box::of({0, 0}, {2, 3}));
  const Box piece = Box::of({0, 1}, {2, 3});
  const auto t = d.marginal_model(piece, 0);
  EXPECT_EQ(t.lo(), 0);
  EXPECT_EQ(t.hi(), 2);
  EXPECT_NEAR(t.total(), 8, 1e-9);
  for (double x : {0.25, 1.0, 1.5}) {
    EXPECT_NEAR(t.cost(x), 2 * x * x, 1e-9) << x;
    EXPECT_NEAR(t.density(x), 4 * x, 1e-9) << x;
    EXPECT_EQ(t.cost(x), d.marginal(piece, 0, x));
  }
  EXPECT_NEAR(isocost::solve_cut(t, 4).x, std::sqrt(2.0), 1e-9);
  EXPECT_EQ(t.kind(), "marginal");
  expect_error([&] { (void)d.marginal_model(piece, 2); }, {"axis 2"});
  expect_error([&] { (void)d.marginal_model(Box::of({0, 0}, {2, 4}), 0); }, {});
}

TEST(AnalyticDensityErrors, NegativeAtLatticePoint) {
  const Box box = Box::of({0, 0}, {20, 20});
  expect_error([&] { analytic_density([](std::span<const double> p) { return p[0] - 5; }, box); },
               {"rho(0, 0): expected a finite value >= 0, got -5"});
  // Only the centre is negative.
  expect_error(
      [&] {
        analytic_density(
            [](std::span<const double> p) { return p[0] == 10 && p[1] == 10 ? -1.0 : 1.0; }, box);
      },
      {"rho(10, 10): expected a finite value >= 0, got -1"});
  // Negative only between lattice points: found while integrating.
  expect_error(
      [&] {
        analytic_density(
            [](std::span<const double> p) { return p[0] > 1 && p[0] < 2 ? -1.0 : 1.0; }, box);
      },
      {"analytic density: rho(1.", "expected a finite value >= 0, got -1"});
}

TEST(AnalyticDensityErrors, NotFinite) {
  const Box box = Box::of({0, 0}, {20, 20});
  expect_error(
      [&] { analytic_density([](std::span<const double> p) { return std::sqrt(p[0] - 1); }, box); },
      {"rho(0, 0): expected a finite value >= 0, got ", "nan"});
  expect_error(
      [&] { analytic_density([](std::span<const double> p) { return 1 / (20 - p[1]); }, box); },
      {"rho(0, 20): expected a finite value >= 0, got inf"});
}

TEST(AnalyticDensityErrors, WrongAntiderivative) {
  const Box box = Box::of({0, 0}, {20, 20});
  const Fn rho = [](std::span<const double> p) { return p[0] + p[1]; };
  expect_error(
      [&] {
        analytic_density(rho, box, {}, [](std::span<const double> p) { return p[0] * p[1]; });
      },
      {"antiderivative gives 400", "quadrature of rho gives 8000"});
  // Right total (8000 over the box), wrong shape: caught on the half box.
  expect_error(
      [&] {
        analytic_density(rho, box, {}, [](std::span<const double> p) {
          return 8000 * std::pow(p[0] / 20, 2) * std::pow(p[1] / 20, 2);
        });
      },
      {"antiderivative gives 500", "[0, 10] x [0, 10]"});
  expect_error(
      [&] {
        analytic_density(rho, box, {}, [](std::span<const double> p) {
          return p[0] > 19 ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        });
      },
      {"antiderivative F(20, 0) = nan"});
}

TEST(AnalyticDensityErrors, ZeroDensity) {
  expect_error(
      [] { analytic_density([](std::span<const double>) { return 0.0; }, Box::of({0}, {1})); },
      {"total cost", "> 0, got 0"});
}

TEST(AnalyticDensityErrors, BadArguments) {
  const Fn one = [](std::span<const double>) { return 1.0; };
  expect_error([] { analytic_density(Fn{}, Box::of({0}, {1})); }, {"rho callable is empty"});
  expect_error(
      [&] {
        analytic_density(one, Box::of({0, 3}, {1, 3}));
      },
      {"y range needs lo < hi", "lo=3, hi=3"});
  DensityOptions o;
  o.tolerance = 0;
  expect_error([&] { analytic_density(one, Box::of({0}, {1}), o); },
               {"tolerance: expected a number in [1e-13, 1), got 0"});
  o = {};
  o.max_depth = -1;
  expect_error([&] { analytic_density(one, Box::of({0}, {1}), o); },
               {"max_depth: expected an integer in [0, 20], got -1"});
  o = {};
  o.max_evaluations = 999;
  expect_error([&] { analytic_density(one, Box::of({0}, {1}), o); },
               {"max_evaluations: expected an integer >= 1000", "got 999"});
  // A box outside the density's.
  const Density d = analytic_density(one, Box::of({0, 0}, {1, 1}));
  expect_error([&] { d.mass(Box::of({0, 0}, {2, 1})); }, {"not inside"});
}

// rho that jumps along the line y = x/5 (the fuzz finding "x/y >= 5"): the
// inner integrals never reach the tolerance near x = 0, their errors are noise
// to the outer one, and it refines everywhere. The budget turns minutes into
// an Error naming the box and the budget; a smooth rho stays far inside it.
TEST(AnalyticDensityErrors, EvaluationBudgetStopsARunawayIntegral) {
  std::int64_t calls = 0;
  const Fn wedge = [&calls](std::span<const double> p) {
    ++calls;
    return p[0] >= 5 * p[1] ? 1.0 : 0.0;
  };
  DensityOptions o;
  o.max_evaluations = 200000;
  // The lattice check and the total come first: the total already runs out.
  expect_error(
      [&] {
        analytic_density(wedge, Box::of({0, 0}, {2, 3}), o);
      },
      {"[0, 2] x [0, 3]", "budget of 200000 evaluations", "discontinuous"});
  EXPECT_LE(calls, 200000 + 25);  // the 5x5 lattice, then the budget
  const Fn smooth = [](std::span<const double> p) { return 1 + p[0] * p[1]; };
  const Density d = analytic_density(smooth, Box::of({0, 0}, {2, 3}), o);
  EXPECT_NEAR(d.total(), 6 + 2 * 4.5, 1e-12);  // ∫∫ 1 + xy = area + (∫x)(∫y)
  EXPECT_NEAR(d.mass(Box::of({0, 0}, {1, 3})), 3 + 0.5 * 4.5, 1e-12);
}

// rho that throws isocost::Error keeps its message.
TEST(AnalyticDensityErrors, RhoThrows) {
  expect_error(
      [] {
        analytic_density(
            [](std::span<const double>) -> double { throw isocost::Error("my rho failed"); },
            Box::of({0}, {1}));
      },
      {"my rho failed"});
}

}  // namespace
