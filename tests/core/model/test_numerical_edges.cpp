// Numerical edges of cost models and cuts (issue #11): totals near the double
// limit, subnormal spacing, scales of 1e±300, very steep models, domains at the
// edge of a model's valid region, plateaus, long prefix sums and tolerance
// floors. Every result either converges with a residual that backs the claim
// or is an Error; none claims convergence it does not have.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cut_test_support.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/cut.hpp"
#include "isocost/density.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/partition.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::CostModel;
using isocost::CutMethod;
using isocost::CutOptions;
using isocost::CutTermination;
using isocost::Interpolation;
using isocost::Speeds;
using isocost::testing::expect_error;

using isocost::testing::kMethods;
using isocost::testing::with;
constexpr double kDenormMin = std::numeric_limits<double>::denorm_min();
// Exact integer sums for the prefix-sum references (a GCC/Clang extension).
__extension__ using Int128 = __int128;

// Cuts nondecreasing, finite, inside the domain, every one converged with a
// residual that backs its termination.
void expect_sound(const CostModel& t, const isocost::Partition& p, const std::string& what) {
  ASSERT_TRUE(p.converged()) << what << ": " << p.full_report();
  for (std::size_t i = 0; i < p.cuts.size(); ++i) {
    const auto& s = p.summaries[i];
    ASSERT_TRUE(std::isfinite(p.cuts[i])) << what;
    EXPECT_GE(p.cuts[i], t.lo()) << what;
    EXPECT_LE(p.cuts[i], t.hi()) << what;
    if (i > 0) {
      EXPECT_GE(p.cuts[i], p.cuts[i - 1]) << what << " cut " << i;
    }
    EXPECT_EQ(s.residual, t.cost(s.x) - s.target) << what << ": " << s.brief_report();
    if (s.termination == CutTermination::x_tolerance) {
      // The root lies within a few ulps of x: t crosses the target there.
      const double w = 8 * std::numeric_limits<double>::epsilon() * std::abs(s.x) + kDenormMin;
      EXPECT_LE(t.cost(std::max(t.lo(), s.x - w)), s.target) << what << ": " << s.brief_report();
      EXPECT_GE(t.cost(std::min(t.hi(), s.x + w)), s.target) << what << ": " << s.brief_report();
    } else {
      EXPECT_LE(std::abs(s.residual), 1e-12 * t.total()) << what << ": " << s.brief_report();
    }
  }
}

// --------------------------------------------------------------------------
// Totals near the double limit, subnormal x spacing.

TEST(NumericalEdges, PchipWithATotalNearTheDoubleLimitConverges) {
  // Boost's Hermite basis products overflowed here: t(1) was NaN, and the
  // partition reported a residual of TT/3 as "all cuts converged".
  const std::vector<double> x{0, 1, 2, 3, 4};
  const std::vector<double> t{0, 0.2e308, 0.9e308, 1.5e308, 1.79e308};
  const auto big = isocost::tabulated_model(x, t, Interpolation::pchip);
  std::vector<double> small_t;
  for (double v : t) small_t.push_back(std::ldexp(v, -1000));
  const auto small = isocost::tabulated_model(x, small_t, Interpolation::pchip);
  EXPECT_EQ(big.total(), 1.79e308);
  for (double u : {0.5, 1.0, 1.5, 2.5, 3.9}) {
    // Scaling by a power of two is exact: the same curve, bit for bit.
    EXPECT_EQ(big.cost(u), std::ldexp(small.cost(u), 1000)) << u;
    EXPECT_TRUE(std::isfinite(big.density(u))) << u;
  }
  for (auto m : kMethods) {
    const auto s = isocost::solve_cut(big, 0.5 * big.total(), with(m));
    EXPECT_TRUE(s.converged()) << s.brief_report();
    EXPECT_LE(std::abs(s.residual), 1e-12 * big.total()) << s.brief_report();
    EXPECT_NEAR(s.x, isocost::solve_cut(small, 0.5 * small.total(), with(m)).x, 1e-12);
  }
  const auto p = isocost::partition(big, Speeds::uniform(3));
  expect_sound(big, p, "pchip near DBL_MAX");
  EXPECT_GT(p.predicted_le, 99.999999);
}

TEST(NumericalEdges, TotalsBeyondTheDoubleRangeAreErrors) {
  expect_error(
      [] {
        isocost::discrete_model({1e308, 1e308});
      },
      {"total cost is not finite", "inf"});
  expect_error([] { isocost::power_model(1e300, 2, 0, 0, 1e5); }, {"total cost", "inf"});
  expect_error(
      [] {
        isocost::tabulated_model({0, 1, 2, 3}, {-1.5e308, 0, 1e308, 1.5e308});
      },
      {"total cost", "inf"});
}

TEST(NumericalEdges, SubnormalXSpacingGivesTheBestRepresentableCut) {
  // 16 representable points in the whole domain: slopes Δt/Δx overflowed, and
  // every t inside was NaN.
  std::vector<double> x, t;
  for (int k = 0; k < 6; ++k) {
    x.push_back(3 * k * kDenormMin);
    t.push_back(k * k);
  }
  for (auto interpolation : {Interpolation::pchip, Interpolation::makima, Interpolation::linear}) {
    const auto model = isocost::tabulated_model(x, t, interpolation);
    EXPECT_EQ(model.total(), 25);
    for (auto m : kMethods) {
      const auto s = isocost::solve_cut(model, 12.5, with(m));
      ASSERT_TRUE(s.converged()) << s.brief_report();
      // No representable x does better: t crosses the target between x's
      // neighbours, and x is the one of them closer in t.
      const double below = s.x - kDenormMin, above = s.x + kDenormMin;
      EXPECT_TRUE(model.cost(below) <= 12.5 || model.cost(s.x) <= 12.5) << s.brief_report();
      EXPECT_TRUE(model.cost(above) >= 12.5 || model.cost(s.x) >= 12.5) << s.brief_report();
      EXPECT_LE(std::abs(s.residual), std::abs(model.cost(below) - 12.5)) << s.brief_report();
      EXPECT_LE(std::abs(s.residual), std::abs(model.cost(above) - 12.5)) << s.brief_report();
    }
  }
}

TEST(NumericalEdges, NonFiniteCostsInsideTheDomainAreErrors) {
  // A callable whose t is NaN at the bisection's first midpoint.
  auto f = [](double x) {
    return isocost::CostPoint{x == 0.5 ? std::numeric_limits<double>::quiet_NaN() : x, 1.0};
  };
  expect_error([&] { isocost::solve_cut(f, 0.3, 0.0, 1.0, with(CutMethod::bisection)); },
               {"t(0.5) = nan", "not finite"});
}

// --------------------------------------------------------------------------
// Scales of 1e-300 and 1e300: the same cuts.

void expect_same_cuts(const CostModel& a, const CostModel& b, const std::string& what) {
  const auto pa = isocost::partition(a, Speeds::uniform(7));
  const auto pb = isocost::partition(b, Speeds::uniform(7));
  expect_sound(a, pa, what);
  expect_sound(b, pb, what + " scaled");
  for (std::size_t i = 0; i < pa.cuts.size(); ++i)
    EXPECT_NEAR(pa.cuts[i], pb.cuts[i], 1e-9 * (a.hi() - a.lo())) << what << " cut " << i;
}

TEST(NumericalEdges, CostsScaledBy1eMinus300And1e300GiveTheSameCuts) {
  for (double scale : {1e-300, 1e300}) {
    const std::string s = " x" + std::to_string(std::log10(scale));
    expect_same_cuts(isocost::power_model(1, 1.7, 0, 0, 10),
                     isocost::power_model(scale, 1.7, 0, 0, 10), "power" + s);
    isocost::SieveParams sieve, scaled;
    scaled.A = sieve.A * scale;
    expect_same_cuts(isocost::sieve_model(sieve, 6, 1e6), isocost::sieve_model(scaled, 6, 1e6),
                     "sieve" + s);
    expect_same_cuts(isocost::polynomial_model({0, 1, 0.5, 0.25}, 0, 3),
                     isocost::polynomial_model({0, scale, 0.5 * scale, 0.25 * scale}, 0, 3),
                     "polynomial" + s);
    expect_same_cuts(isocost::exponential_model(1, 2, 0, 5),
                     isocost::exponential_model(scale, 2, 0, 5), "exponential" + s);
    const std::vector<double> x{0, 1, 2, 3, 4, 5}, t{0, 1, 3, 3.5, 7, 9};
    std::vector<double> ts;
    for (double v : t) ts.push_back(v * scale);
    expect_same_cuts(isocost::tabulated_model(x, t), isocost::tabulated_model(x, ts), "pchip" + s);
    // Scaled by 2^±997 (≈ 1e±300), exact, so ties between prefix sums stay ties.
    std::vector<double> w{1, 5, 0, 2, 8, 3, 3, 1, 0, 4, 6, 2}, ws;
    for (double v : w) ws.push_back(std::ldexp(v, scale > 1 ? 997 : -997));
    const auto pd = isocost::partition(isocost::discrete_model(w), Speeds::uniform(5));
    const auto ps = isocost::partition(isocost::discrete_model(ws), Speeds::uniform(5));
    EXPECT_EQ(pd.cuts, ps.cuts) << "discrete" << s;
  }
}

// --------------------------------------------------------------------------
// Very steep models and domains at the edge of validity.

TEST(NumericalEdges, VerySteepModelsGiveTheClosedFormCuts) {
  // t = x^50 on [0, 1]: x_i = (i/P)^(1/50); almost all the work sits near 1.
  const auto t = isocost::power_model(1, 50, 0, 0, 1);
  for (auto m : kMethods) {
    isocost::PartitionOptions o;
    o.cut.method = m;
    const auto p = isocost::partition(t, Speeds::uniform(16), o);
    expect_sound(t, p, "x^50 " + std::string(isocost::to_string(m)));
    for (int i = 1; i < 16; ++i) EXPECT_NEAR(p.cuts[i], std::pow(i / 16.0, 1.0 / 50), 1e-12) << i;
  }
  // e^(700 (x − lo)/(hi − lo)): the steepest exponential the model accepts.
  const auto e = isocost::exponential_model(1, 700, 0, 1);
  const auto pe = isocost::partition(e, Speeds::uniform(8));
  expect_sound(e, pe, "exp(700x)");
  for (int i = 1; i < 8; ++i)  // A(e^{bx} − 1) = TT·i/P
    EXPECT_NEAR(pe.cuts[i], std::log1p(std::expm1(700.0) * i / 8) / 700, 1e-12) << i;
}

TEST(NumericalEdges, DomainsAtTheEdgeOfValidityConverge) {
  // x^0.5 from 0: infinite density at lo (Newton's step was 0 there).
  const auto root = isocost::power_model(1, 0.5, 0, 0, 1);
  // x^3 from 0: zero density at lo.
  const auto cube = isocost::power_model(1, 3, 0, 0, 1);
  for (auto m : kMethods) {
    isocost::PartitionOptions o;
    o.cut.method = m;
    const auto pr = isocost::partition(root, Speeds::uniform(10), o);
    const auto pc = isocost::partition(cube, Speeds::uniform(10), o);
    expect_sound(root, pr, "sqrt");
    expect_sound(cube, pc, "cube");
    for (int i = 1; i < 10; ++i) {
      EXPECT_NEAR(pr.cuts[i], (i / 10.0) * (i / 10.0), 1e-12) << i;
      EXPECT_NEAR(pc.cuts[i], std::cbrt(i / 10.0), 1e-12) << i;
    }
    // The first cut of a tiny target next to the singular end.
    const auto s = isocost::solve_cut(root, 1e-10, with(m));
    EXPECT_TRUE(s.converged()) << s.brief_report();
    // |residual| <= 1e-12 = cost tolerance·TT, and dx = 2·sqrt(x)·dt.
    EXPECT_NEAR(s.x, 1e-20, 2.1e-22) << s.brief_report();
  }
  // The sieve model from exactly where it starts to increase (t'(lo) = 0).
  const isocost::SieveParams sp;
  const auto sieve = isocost::sieve_model(sp, isocost::sieve_increasing_from(sp), 1e4);
  const auto reference = isocost::partition(sieve, Speeds::uniform(12), [] {
    isocost::PartitionOptions o;
    o.cut.method = CutMethod::bisection;
    o.cut.cost_tolerance = 0;
    return o;
  }());
  for (auto m : kMethods) {
    isocost::PartitionOptions o;
    o.cut.method = m;
    const auto p = isocost::partition(sieve, Speeds::uniform(12), o);
    expect_sound(sieve, p, "sieve from its increasing edge");
    for (int i = 0; i <= 12; ++i) EXPECT_NEAR(p.cuts[i], reference.cuts[i], 1e-6) << i;
  }
}

// --------------------------------------------------------------------------
// Plateaus: the left end, whatever the method.

TEST(NumericalEdges, ACutOnAPlateauIsItsLeftEnd) {
  const std::vector<double> x{0, 1, 2, 3, 4}, t{0, 1, 1, 1, 2};
  for (auto interpolation : {Interpolation::pchip, Interpolation::linear}) {
    const auto model = isocost::tabulated_model(x, t, interpolation);
    // pchip enters the plateau with slope 0: t(1 − δ) = 1 − O(δ²) rounds to 1
    // for δ below ~1e-8, so in double precision the plateau starts there.
    const double tol = interpolation == Interpolation::pchip ? 1e-7 : 1e-15;
    for (auto m : kMethods) {
      // Flat on [1, 3] at t = 1 = TT/2.
      const auto s = isocost::solve_cut(model, 1.0, with(m));
      EXPECT_TRUE(s.converged()) << s.brief_report();
      EXPECT_EQ(s.residual, 0) << s.brief_report();
      EXPECT_NEAR(s.x, 1.0, tol) << s.brief_report();
      // A bracket ending on the plateau, and a guess on its far end.
      CutOptions o = with(m);
      o.initial_guess = 2.9;
      EXPECT_NEAR(isocost::solve_cut(model, 1.0, 0.5, 3.0, o).x, 1.0, tol);
      // A bracket starting inside it: its lower end.
      EXPECT_EQ(isocost::solve_cut(model, 1.0, 1.5, 3.5, o).x, 1.5);
      const auto p = isocost::partition(model, Speeds::uniform(2), [&] {
        isocost::PartitionOptions po;
        po.cut.method = m;
        return po;
      }());
      EXPECT_NEAR(p.cuts[1], 1.0, tol) << p.full_report();
      EXPECT_EQ(p.cuts[1], s.x);  // the same point, whatever the method
    }
  }
  // Discrete: a run of zero weights; the smallest boundary.
  const auto d = isocost::discrete_model({1, 1, 0, 0, 0, 1, 1});
  EXPECT_EQ(isocost::solve_cut(d, 2.0).x, 2.0);
}

// --------------------------------------------------------------------------
// Long prefix sums.

TEST(NumericalEdges, DiscretePrefixSumsAreCorrectlyRoundedOverMillionsOfCells) {
  // One weight 2^60, then n weights 2^-5: plain double (and x87 long double)
  // accumulation drops every small weight, as each is below half an ulp of
  // the running sum. Exact prefix sums in units of 2^-5: 2^65 + k (Int128).
  const std::size_t n = 2'000'000;
  std::vector<double> w(n + 1, std::ldexp(1.0, -5));
  w[0] = std::ldexp(1.0, 60);
  const auto model = isocost::discrete_model(w);
  const auto prefix = model.prefix_sums();
  ASSERT_EQ(prefix.size(), n + 2);
  auto exact = [](std::int64_t k) {
    const Int128 units = (static_cast<Int128>(1) << 65) + k;
    return std::ldexp(static_cast<double>(units), -5);  // correctly rounded, scaled exactly
  };
  for (std::size_t k : {std::size_t{1000}, n / 3, n / 2 + 7, n})
    EXPECT_EQ(prefix[k + 1], exact(static_cast<std::int64_t>(k))) << k;
  EXPECT_EQ(model.total(), exact(static_cast<std::int64_t>(n)));
  EXPECT_GT(model.total(), std::ldexp(1.0, 60) + 50000);  // the small weights count

  // Alternating 2^40 and 2^-40 (≈ 1e12 and 1e-12): exact sums in units of 2^-40.
  const std::size_t m = 1'000'000;
  std::vector<double> alt(m);
  for (std::size_t k = 0; k < m; ++k) alt[k] = std::ldexp(1.0, k % 2 ? -40 : 40);
  const auto a = isocost::discrete_model(alt);
  for (std::size_t k : {std::size_t{2}, std::size_t{3}, m / 2, m - 1, m}) {
    const auto big = static_cast<Int128>((k + 1) / 2), small = static_cast<Int128>(k / 2);
    const Int128 units = (big << 80) + small;
    // 2^80·big + small needs more than 53 bits: compare with the correctly
    // rounded value, whose error is below half an ulp.
    const double expected = std::ldexp(static_cast<double>(units), -40);
    EXPECT_EQ(a.prefix_sums()[k], expected) << k;
  }
  // The last cell's end is exactly the total, not prefix + 1·w rounded again.
  EXPECT_EQ(a.cost(a.hi()), a.prefix_sums().back());
}

// --------------------------------------------------------------------------
// Tolerance floors.

TEST(NumericalEdges, TolerancesBelowDoublePrecisionAreRejected) {
  CutOptions o;
  o.cost_tolerance = 1e-300;
  std::string why;
  EXPECT_FALSE(o.is_valid(&why));
  EXPECT_NE(why.find("cost_tolerance: expected 0 (solve to the x tolerance) or a value >= "),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("got 1e-300"), std::string::npos) << why;
  EXPECT_NE(why.find(isocost::detail::exact(isocost::kMinCostTolerance)), std::string::npos) << why;
  o.cost_tolerance = 0;  // solve to the x tolerance: allowed
  EXPECT_TRUE(o.is_valid(&why)) << why;
  o.cost_tolerance = isocost::kMinCostTolerance;
  EXPECT_TRUE(o.is_valid(&why)) << why;

  isocost::DensityOptions d;
  d.tolerance = 1e-300;
  EXPECT_FALSE(d.is_valid(&why));
  EXPECT_NE(why.find("tolerance"), std::string::npos) << why;
  EXPECT_NE(why.find("1e-300"), std::string::npos) << why;
  EXPECT_NE(why.find("1e-13"), std::string::npos) << why;  // the floor
  d.tolerance = isocost::kMinQuadratureTolerance;
  EXPECT_TRUE(d.is_valid(&why)) << why;
}

}  // namespace
