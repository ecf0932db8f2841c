// fit() on several runs (merge_runs() for the interpolants) and the held-out
// verdict of an interpolant, on issue #25's case: a kernel whose cost density
// is 1 + 20·exp(−((x − 700)/50)²) µs on [0, 1000], timed with ±1 % noise,
// cut into 8 parts by pchip; each round times the cuts the last one printed
// ("measure, cut, measure the new cuts, merge").
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "support/peak_kernel.hpp"

namespace fit_runs_test {
namespace {

using isocost::testing::peak_cumulative;

// The ranges between `ends` timed within ±1 %.
isocost::Samples timed(const std::vector<double>& ends, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<> noise(-0.01, 0.01);
  std::vector<isocost::IntervalSample> rows;
  for (std::size_t k = 0; k + 1 < ends.size(); ++k)
    if (ends[k + 1] > ends[k])
      rows.push_back({ends[k], ends[k + 1],
                      (peak_cumulative(ends[k + 1]) - peak_cumulative(ends[k])) * (1 + noise(g))});
  return isocost::Samples(rows);
}

std::vector<double> equal_ends(int n) {
  std::vector<double> x;
  for (int k = 0; k <= n; ++k) x.push_back(1000.0 * k / n);
  return x;
}

isocost::FitResult pchip_fit(const std::vector<isocost::Samples>& runs) {
  isocost::FitSpec pchip;
  pchip.form = isocost::FitForm::pchip;
  isocost::FitOptions o;
  o.ranks = 8;
  o.noise = 0.01;
  return isocost::fit(runs, pchip, o);
}

std::vector<double> cuts_of(const isocost::FitResult& f) {
  return isocost::partition(*f.model, isocost::Speeds::uniform(8)).cuts;
}

double true_le(const std::vector<double>& cuts) {
  std::vector<double> t;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    t.push_back(peak_cumulative(cuts[k + 1]) - peak_cumulative(cuts[k]));
  return isocost::load_stats(t).le;
}

// Round 1 is not trusted, by its held-out check; timing its cuts and merging
// both runs reaches L_E >= 97 % in truth, with a narrower guaranteed range,
// and a held-out check that now passes; a third round keeps it.
TEST(FitRuns, MeasureCutMeasureTheNewCutsMerge) {
  std::vector<isocost::Samples> runs{timed(equal_ends(16), 1)};
  const auto first = pchip_fit(runs);
  const auto& s1 = first.summary;
  ASSERT_TRUE(s1.le_held_out.has_value());
  const double truth1 = true_le(cuts_of(first));
  EXPECT_LT(truth1, 80);                                // the issue measured 73.3 %
  EXPECT_LT(*s1.le_held_out, truth1 + 10);              // held out: near the truth,
  EXPECT_LT(*s1.le_held_out, *s1.le_model_claim - 10);  // far below the claim
  EXPECT_FALSE(s1.trusted());
  EXPECT_NE(s1.untrusted_reason().find("held out"), std::string::npos) << s1.untrusted_reason();
  EXPECT_FALSE(s1.merged.has_value());
  ASSERT_TRUE(s1.guaranteed.has_value());
  EXPECT_LE(s1.guaranteed->le_lo, truth1);
  EXPECT_GE(s1.guaranteed->le_hi, truth1);

  runs.push_back(timed(cuts_of(first), 2));
  const auto second = pchip_fit(runs);
  const auto& s2 = second.summary;
  ASSERT_TRUE(s2.merged.has_value());
  EXPECT_EQ(s2.merged->runs_used, 2);
  EXPECT_LT(s2.merged->run_misfit[1], 1e-9);  // the newest run holds exactly
  const double truth2 = true_le(cuts_of(second));
  EXPECT_GE(truth2, 97);
  ASSERT_TRUE(s2.guaranteed.has_value());
  EXPECT_GT(s2.guaranteed->le_lo, s1.guaranteed->le_lo + 100);  // −299 → −37 %
  EXPECT_LE(s2.guaranteed->le_lo, truth2);
  EXPECT_GE(s2.guaranteed->le_hi, truth2);
  EXPECT_TRUE(s2.trusted()) << s2.untrusted_reason();
  EXPECT_NEAR(*s2.le_held_out, truth2, 5);

  runs.push_back(timed(cuts_of(second), 3));
  const auto third = pchip_fit(runs);
  EXPECT_GE(true_le(cuts_of(third)), 97);
  EXPECT_TRUE(third.summary.trusted()) << third.summary.untrusted_reason();
  EXPECT_GE(third.summary.guaranteed->le_lo, s2.guaranteed->le_lo);
}

// Runs given apart or as the rows of one file are the same fit.
TEST(FitRuns, RowsOfSeveralRunsAreSplitIntoThem) {
  const auto a = timed(equal_ends(16), 1);
  const auto b = timed({0, 350, 630, 665, 690, 710, 727, 760, 1000}, 2);
  const auto apart = pchip_fit({a, b});
  isocost::FitSpec pchip;
  pchip.form = isocost::FitForm::pchip;
  isocost::FitOptions o;
  o.ranks = 8;
  o.noise = 0.01;
  const auto rows = isocost::fit(a.merged(b), pchip, o);
  EXPECT_EQ(cuts_of(apart), cuts_of(rows));
  EXPECT_EQ(*apart.summary.le_held_out, *rows.summary.le_held_out);
}

// The held-out check can pass and fail: on a smooth kernel (x^1.5, 16
// intervals, 16 parts) it stays within a point of the truth and passes.
TEST(FitRuns, TheHeldOutCheckPassesWhereTheInterpolantIsRight) {
  const auto T = [](double x) { return std::pow(x, 1.5); };
  std::vector<isocost::IntervalSample> rows;
  for (int k = 0; k < 16; ++k) {
    const double lo = 100.0 * k, hi = 100.0 * (k + 1);
    rows.push_back({lo, hi, T(hi) - T(lo)});
  }
  isocost::FitSpec pchip;
  pchip.form = isocost::FitForm::pchip;
  const auto f = isocost::fit(isocost::Samples(rows), pchip);
  ASSERT_TRUE(f.summary.le_held_out.has_value());
  const auto cuts = isocost::partition(*f.model, isocost::Speeds::uniform(16)).cuts;
  std::vector<double> t;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) t.push_back(T(cuts[k + 1]) - T(cuts[k]));
  const double truth = isocost::load_stats(t).le;
  EXPECT_GT(truth, 98);
  EXPECT_NEAR(*f.summary.le_held_out, truth, 2);
  EXPECT_TRUE(f.summary.trusted()) << f.summary.untrusted_reason();
}

// Runs that time the span only together (none alone): the fit and its
// balance check stand on their merge; no run bounds the total, so there is
// no guarantee, and no error either.
TEST(FitRuns, RunsThatCoverTheSpanOnlyTogetherHaveNoGuarantee) {
  const auto T = [](double x) { return std::pow(x, 1.5); };
  std::vector<isocost::IntervalSample> rows;
  // split_runs(): [1, 4), [4, 6) and [8, 10) one run (with a gap), [5, 8)
  // the newest, which tiles its own span.
  for (const auto& [lo, hi] :
       std::vector<std::pair<double, double>>{{1, 4}, {4, 6}, {5, 8}, {8, 10}})
    rows.push_back({lo, hi, T(hi) - T(lo)});
  isocost::FitSpec power;
  power.form = isocost::FitForm::power;
  isocost::FitOptions o;
  o.ranks = 2;
  const auto f = isocost::fit(isocost::Samples(rows), power, o);
  ASSERT_TRUE(f.converged()) << f.summary.message;
  EXPECT_NEAR(f.summary.parameter("p"), 1.5, 1e-6);
  EXPECT_TRUE(f.summary.le_on_samples.has_value());
  EXPECT_FALSE(f.summary.guaranteed.has_value());
}

// --model auto on two runs: the interpolants compete on the merge's chain.
TEST(FitRuns, AutoLetsTheInterpolantsCompeteOnSeveralRuns) {
  const auto a = timed(equal_ends(16), 1);
  const auto b = timed({0, 350, 630, 665, 690, 710, 727, 760, 1000}, 2);
  isocost::FitOptions o;
  o.ranks = 8;
  const auto sel = isocost::select_model(a.merged(b), isocost::SelectOptions{}, o);
  bool interpolant_ok = false;
  for (const auto& c : sel.candidates)
    if (c.model == "pchip" || c.model == "makima") interpolant_ok = interpolant_ok || c.ok;
  EXPECT_TRUE(interpolant_ok);
  // No parametric form describes a peak on a floor: an interpolant wins.
  EXPECT_TRUE(sel.best.summary.model == "pchip" || sel.best.summary.model == "makima")
      << sel.reason;
  EXPECT_GE(true_le(cuts_of(sel.best)), 95);
}

}  // namespace
}  // namespace fit_runs_test
