// The balance a fit's samples guarantee (FitSummary::guaranteed) and the
// verdict an interpolant gets from it, on issue #25's case: a kernel whose
// cost density is 1 + 20·exp(−((x − 700)/50)²) µs on [0, 1000], timed over
// 16 equal intervals with ±1 % noise, cut into 8 parts by pchip.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "support/peak_kernel.hpp"

namespace {

using isocost::testing::peak_cumulative;
double cumulative(double x) { return peak_cumulative(x); }

isocost::Samples timings(int n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<> noise(-0.01, 0.01);
  std::vector<isocost::IntervalSample> rows;
  for (int k = 0; k < n; ++k) {
    const double lo = 1000.0 * k / n, hi = 1000.0 * (k + 1) / n;
    rows.push_back({lo, hi, (cumulative(hi) - cumulative(lo)) * (1 + noise(g))});
  }
  return isocost::Samples(rows);
}

// pchip on n timings, cut for 8 parts, each timing within ±1 %.
isocost::FitResult pchip_fit(int n, unsigned seed) {
  isocost::FitSpec pchip;
  pchip.form = isocost::FitForm::pchip;
  isocost::FitOptions o;
  o.ranks = 8;
  o.noise = 0.01;
  return isocost::fit(timings(n, seed), pchip, o);
}

// The true L_E of the fitted model's cuts for 8 parts.
double true_le(const isocost::FitResult& f) {
  const auto part = isocost::partition(*f.model, isocost::Speeds::uniform(8));
  std::vector<double> t;
  for (std::size_t k = 0; k + 1 < part.cuts.size(); ++k)
    t.push_back(cumulative(part.cuts[k + 1]) - cumulative(part.cuts[k]));
  return isocost::load_stats(t).le;
}

TEST(FitGuarantee, CoarseSamplesMakeAnInterpolantsCutsUntrusted) {
  const auto f = pchip_fit(16, 5);
  const auto& s = f.summary;
  // Costed on its own samples the interpolant looks perfect: that check is circular.
  ASSERT_TRUE(s.le_on_samples.has_value());
  EXPECT_GT(*s.le_on_samples, 99.9);
  const double truth = true_le(f);
  EXPECT_LT(truth, 80);  // the issue measured 73.3 %
  ASSERT_TRUE(s.guaranteed.has_value());
  EXPECT_LE(s.guaranteed->le_lo, truth);
  EXPECT_GE(s.guaranteed->le_hi, truth);
  EXPECT_GT(s.guaranteed->coarse_cuts, 1);
  EXPECT_GT(s.guaranteed->coarse_shares, 2);
  EXPECT_FALSE(s.trusted());
  EXPECT_NE(s.untrusted_reason().find("too coarse for 8 parts"), std::string::npos)
      << s.untrusted_reason();
}

// Fine samples of the same kernel (128 intervals): every interval holds less
// than a part's share, so no cut falls where the samples cannot resolve it,
// and the interpolant is trusted. The guaranteed range still contains the
// truth (each cut may split an interval either way: the bound is loose).
TEST(FitGuarantee, FineSamplesKeepTheVerdict) {
  const auto f = pchip_fit(128, 6);
  ASSERT_TRUE(f.summary.guaranteed.has_value());
  EXPECT_EQ(f.summary.guaranteed->coarse_cuts, 0);
  const double truth = true_le(f);
  EXPECT_GT(truth, 97);
  EXPECT_LE(f.summary.guaranteed->le_lo, truth);
  EXPECT_GE(f.summary.guaranteed->le_hi, truth);
  EXPECT_TRUE(f.summary.trusted()) << f.summary.untrusted_reason();
}

// A million parts on four sieve samples (issue #25): the samples cannot cost
// parts finer than their intervals, so the check is over four parts and the
// good sieve fit is trusted; the guarantee is for the million parts asked.
TEST(FitGuarantee, MorePartsThanSamplesAreCheckedAtTheSamplesResolution) {
  const auto T = [](double x) { return 3.9e-7 * std::pow(x, 1.43) * (std::log(x) - 1.08366); };
  const std::vector<double> x{100, 1e4, 1e5, 5e5, 1e6};
  std::vector<isocost::IntervalSample> rows;
  for (std::size_t k = 0; k + 1 < x.size(); ++k)
    rows.push_back({x[k], x[k + 1], T(x[k + 1]) - T(x[k])});
  isocost::FitSpec sieve;
  sieve.form = isocost::FitForm::sieve;
  isocost::FitOptions o;
  o.ranks = 1000000;
  const auto f = isocost::fit(isocost::Samples(rows), sieve, o);
  EXPECT_EQ(f.summary.balance_ranks, 4);
  ASSERT_TRUE(f.summary.le_on_samples.has_value());
  EXPECT_GT(*f.summary.le_on_samples, *f.summary.le_of_samples);
  EXPECT_TRUE(f.summary.trusted()) << f.summary.untrusted_reason();
  ASSERT_TRUE(f.summary.guaranteed.has_value());
  EXPECT_LT(f.summary.guaranteed->le_lo, 0);  // a million cuts in four intervals
  EXPECT_GT(f.summary.guaranteed->coarse_cuts, 1000);
}

}  // namespace
