// Tests for isocost/metrics.hpp: load statistics (Swartz eqs 2–3, Pearce eq. 1
// and Fig. 1) and their JSON form. Rank correlation, vector loads and the
// load-vector checks are in test_metrics_phases.cpp.
// Every expected value is derived by hand in a comment from the papers' worked
// examples or from closed forms; none is copied from the library's output.
#include "isocost/metrics.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "support/expect_error.hpp"
#include "support/values.hpp"

namespace {

using isocost::load_stats;
using isocost::LoadStats;

using isocost::testing::kInf;
using isocost::testing::kNaN;

using isocost::testing::error_of;
using isocost::testing::has;

// ---------------------------------------------------------------------------
// Swartz §3, Cray T3D run on 16 PEs: T_avg = 1494.0, T_max = 1507.9, and the
// paper reports L_I = 0.93 %, L_E = 99.07 %.
// Load vector: 14 ranks at exactly T_avg, one at T_avg + 13.9 = 1507.9 (rank 5)
// and one at T_avg − 13.9 = 1480.1 (rank 11); the sum is 16·1494 = 23904, so the
// mean is 1494.0 and the max 1507.9 as in the paper.
std::vector<double> CrayLoads() {
  std::vector<double> t(16, 1494.0);
  t[5] = 1507.9;
  t[11] = 1480.1;
  return t;
}

TEST(LoadStats, SwartzCrayRunMatchesPaper) {
  const auto t = CrayLoads();
  const LoadStats s = load_stats(t);
  EXPECT_EQ(s.ranks, 16u);
  EXPECT_NEAR(s.mean, 1494.0, 1e-9);
  EXPECT_NEAR(s.sum, 23904.0, 1e-8);
  EXPECT_DOUBLE_EQ(s.max, 1507.9);
  EXPECT_DOUBLE_EQ(s.min, 1480.1);
  EXPECT_EQ(s.argmax, 5u);
  EXPECT_EQ(s.argmin, 11u);

  // Swartz eq. (2): L_I = 13.9/1494·100 = 0.930388…%, which the paper rounds to 0.93.
  EXPECT_NEAR(s.li, 13.9 / 1494.0 * 100, 1e-9);
  EXPECT_NEAR(s.li, 0.930, 0.0005);
  // Swartz eq. (3): L_E = 100 − 0.930388… = 99.0696…%, the paper's 99.07.
  EXPECT_NEAR(s.le, 100 - 13.9 / 1494.0 * 100, 1e-9);
  EXPECT_NEAR(s.le, 99.07, 0.005);
  // Pearce eq. (1): λ = (T_max/T_avg − 1)·100 is algebraically L_I.
  EXPECT_NEAR(s.lambda, s.li, 1e-9);
  // Watts: E = T_avg/T_max = 1494/1507.9 = 0.990782…
  EXPECT_NEAR(s.efficiency, 1494.0 / 1507.9, 1e-12);
  EXPECT_NEAR(s.efficiency, 0.990782, 5e-7);
  // Fig. 2 arithmetic: (T_max − T_avg)/T_max·100 = 13.9/1507.9·100 = 0.92181…%.
  EXPECT_NEAR(s.li_fig2, 13.9 / 1507.9 * 100, 1e-9);
  EXPECT_NEAR(s.li_fig2, 0.92181, 5e-6);
  // Drift (Swartz §6): (T_max − T_min)/T_avg = 27.8/1494 = 0.0186077…
  EXPECT_NEAR(s.drift, 27.8 / 1494.0, 1e-12);
}

TEST(LoadStats, SwartzCrayRunMoments) {
  // Deviations from the mean are +a, −a and fourteen zeros, a = 13.9, n = 16:
  //   m2 = 2a²/16 = a²/8 → σ = a/√8 = 4.91439…      (Pearce eq. 2, population 1/n)
  //   m3 = 0 → g1 = 0                                 (Pearce eq. 3)
  //   m4 = 2a⁴/16 = a⁴/8 → m4/m2² = (a⁴/8)/(a⁴/64) = 8 → g2 = 8 − 3 = 5  (eq. 4)
  const LoadStats s = load_stats(CrayLoads());
  EXPECT_NEAR(s.sigma, 13.9 / std::sqrt(8.0), 1e-9);
  ASSERT_TRUE(s.skewness.has_value());
  ASSERT_TRUE(s.kurtosis.has_value());
  EXPECT_NEAR(*s.skewness, 0.0, 1e-9);
  EXPECT_NEAR(*s.kurtosis, 5.0, 1e-9);
}

// ---------------------------------------------------------------------------
// Swartz §3, Fig. 2: 32 nodes, Σ T = 2055.52, T_avg = 2055.52/32 = 64.235 (the
// paper prints 64.24), T_max = 89.92, node 0 takes 22.2 s. The paper's own
// arithmetic is (89.92 − 64.24)/89.92 = 28.56 %, i.e. it divides by T_max.
// Load vector: rank 0 = 22.2, rank 31 = 89.92, and the 30 ranks between share
// 2055.52 − 22.2 − 89.92 = 1943.4 equally, 64.78 each.
std::vector<double> Fig2Loads() {
  std::vector<double> t(32, 64.78);
  t[0] = 22.2;
  t[31] = 89.92;
  return t;
}

TEST(LoadStats, SwartzFig2DividesByTmax) {
  const LoadStats s = load_stats(Fig2Loads());
  EXPECT_EQ(s.ranks, 32u);
  EXPECT_NEAR(s.sum, 2055.52, 1e-9);
  EXPECT_NEAR(s.mean, 2055.52 / 32, 1e-12);
  EXPECT_DOUBLE_EQ(s.max, 89.92);
  EXPECT_EQ(s.argmax, 31u);
  EXPECT_EQ(s.argmin, 0u);
  // li_fig2 = 25.685/89.92·100 = 28.5643…%, the paper's 28.56 %.
  EXPECT_NEAR(s.li_fig2, (89.92 - 64.235) / 89.92 * 100, 1e-9);
  EXPECT_NEAR(s.li_fig2, 28.56, 0.005);
  // The paper's L_E = 100 − 28.56 = 71.44 % is 100·E under that arithmetic.
  EXPECT_NEAR(s.efficiency * 100, 71.44, 0.005);
  EXPECT_NEAR(s.efficiency, 1 - s.li_fig2 / 100, 1e-12);
  // Eq. (2) as written divides by T_avg: 25.685/64.235·100 = 39.986…%, and
  // L_E = 100 − 39.986… = 60.014…% — not the numbers printed under Fig. 2.
  EXPECT_NEAR(s.li, (89.92 - 64.235) / 64.235 * 100, 1e-9);
  EXPECT_NEAR(s.li, 39.986, 0.0005);
  EXPECT_NEAR(s.le, 100 - (89.92 - 64.235) / 64.235 * 100, 1e-9);
  EXPECT_NEAR(s.lambda, s.li, 1e-9);
}

// ---------------------------------------------------------------------------
// Pearce Fig. 1 on loads {1, 2, 3, 4, 10}: n = 5, Σ = 20, mean = 4.
// Deviations −3, −2, −1, 0, 6:
//   Σd² = 9+4+1+0+36 = 50      → m2 = 10,   σ = √10 = 3.16228…
//   Σd³ = −27−8−1+0+216 = 180  → m3 = 36,   g1 = 36/10^1.5 = 1.138420…
//   Σd⁴ = 81+16+1+0+1296 = 1394 → m4 = 278.8, g2 = 278.8/100 − 3 = −0.212
// max 10, min 1: L_I = 6/4·100 = 150, L_E = −50 (eq. 3 goes negative past 100 %
// imbalance), E = 0.4, li_fig2 = 60, drift = 9/4 = 2.25.
TEST(LoadStats, PearceMomentsHandComputed) {
  const std::vector<double> t{1, 2, 3, 4, 10};
  const LoadStats s = load_stats(t);
  EXPECT_EQ(s.ranks, 5u);
  EXPECT_DOUBLE_EQ(s.sum, 20);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_EQ(s.argmin, 0u);
  EXPECT_EQ(s.argmax, 4u);
  EXPECT_NEAR(s.sigma, std::sqrt(10.0), 1e-12);
  ASSERT_TRUE(s.skewness.has_value());
  ASSERT_TRUE(s.kurtosis.has_value());
  EXPECT_NEAR(*s.skewness, 36 / std::pow(10.0, 1.5), 1e-12);
  EXPECT_NEAR(*s.skewness, 1.138420, 5e-7);
  EXPECT_NEAR(*s.kurtosis, -0.212, 1e-12);
  EXPECT_NEAR(s.li, 150, 1e-12);
  EXPECT_NEAR(s.le, -50, 1e-12);
  EXPECT_NEAR(s.lambda, 150, 1e-12);
  EXPECT_NEAR(s.efficiency, 0.4, 1e-15);
  EXPECT_NEAR(s.li_fig2, 60, 1e-12);
  EXPECT_NEAR(s.drift, 2.25, 1e-15);
}

TEST(LoadStats, NegativeSkewnessForOneLightRank) {
  // Reflect {1, 2, 3, 4, 10} as 11 − x = {10, 9, 8, 7, 1}: mean 7, deviations
  // 3, 2, 1, 0, −6 — the same magnitudes with opposite signs, so σ = √10,
  // g1 = −36/10^1.5 = −1.138420… and g2 = −0.212 (even moments unchanged).
  // Pearce: negative skewness = a few processes well below average.
  const std::vector<double> r{10, 9, 8, 7, 1};
  const LoadStats s = load_stats(r);
  EXPECT_DOUBLE_EQ(s.mean, 7);
  EXPECT_NEAR(s.sigma, std::sqrt(10.0), 1e-12);
  ASSERT_TRUE(s.skewness.has_value());
  EXPECT_NEAR(*s.skewness, -36 / std::pow(10.0, 1.5), 1e-12);
  ASSERT_TRUE(s.kurtosis.has_value());
  EXPECT_NEAR(*s.kurtosis, -0.212, 1e-12);
  EXPECT_EQ(s.argmin, 4u);
  EXPECT_EQ(s.argmax, 0u);
}

TEST(LoadStats, SigmaIsPopulationNotSample) {
  // {0, 4}: mean 2, deviations ±2 → population σ = √((4+4)/2) = 2; the sample
  // (1/(n−1)) version would be √8 = 2.83. E = 2/4 = 0.5, L_I = 100 %, drift 2.
  // Two-point symmetric distribution: g1 = 0, m4/m2² = 16/16 = 1 → g2 = −2.
  const std::vector<double> t{0, 4};
  const LoadStats s = load_stats(t);
  EXPECT_NEAR(s.sigma, 2, 1e-15);
  EXPECT_NEAR(s.efficiency, 0.5, 1e-15);
  EXPECT_NEAR(s.li, 100, 1e-12);
  EXPECT_NEAR(s.drift, 2, 1e-15);
  ASSERT_TRUE(s.skewness.has_value());
  EXPECT_NEAR(*s.skewness, 0, 1e-15);
  ASSERT_TRUE(s.kurtosis.has_value());
  EXPECT_NEAR(*s.kurtosis, -2, 1e-12);
}

TEST(LoadStats, ConstantLoadsHaveNoSkewnessOrKurtosis) {
  // σ = 0: g1 and g2 divide by 0 (Pearce eqs 3–4), so both are undefined.
  const std::vector<double> t{7, 7, 7};
  const LoadStats s = load_stats(t);
  EXPECT_DOUBLE_EQ(s.sigma, 0);
  EXPECT_FALSE(s.skewness.has_value());
  EXPECT_FALSE(s.kurtosis.has_value());
  EXPECT_DOUBLE_EQ(s.li, 0);
  EXPECT_DOUBLE_EQ(s.le, 100);
  EXPECT_DOUBLE_EQ(s.lambda, 0);
  EXPECT_DOUBLE_EQ(s.li_fig2, 0);
  EXPECT_DOUBLE_EQ(s.efficiency, 1);
  EXPECT_DOUBLE_EQ(s.drift, 0);
  EXPECT_EQ(s.argmin, 0u);  // all tie: the first rank holds both
  EXPECT_EQ(s.argmax, 0u);
}

TEST(LoadStats, ConstantInexactLoadsStillHaveNoSkewness) {
  // 0.1 is not representable, so a running mean of ten copies may round away
  // from 0.1 by an ulp; σ is still mathematically 0 and g1, g2 stay undefined
  // rather than becoming ratios of rounding noise.
  const std::vector<double> t(10, 0.1);
  const LoadStats s = load_stats(t);
  EXPECT_NEAR(s.sigma, 0, 1e-15);
  EXPECT_FALSE(s.skewness.has_value());
  EXPECT_FALSE(s.kurtosis.has_value());
  EXPECT_NEAR(s.efficiency, 1, 1e-14);
  EXPECT_NEAR(s.li, 0, 1e-12);
}

TEST(LoadStats, SingleRankIsBalanced) {
  const std::vector<double> t{3.5};
  const LoadStats s = load_stats(t);
  EXPECT_EQ(s.ranks, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 3.5);
  EXPECT_DOUBLE_EQ(s.efficiency, 1);
  EXPECT_DOUBLE_EQ(s.li, 0);
  EXPECT_FALSE(s.skewness.has_value());
}

TEST(LoadStats, ArgMinArgMaxAreFirstOccurrence) {
  // The header promises "first rank holding the min / max". Min 1 at ranks 1
  // and 3, max 5 at ranks 2 and 4 → argmin 1, argmax 2.
  const std::vector<double> t{3, 1, 5, 1, 5};
  const LoadStats s = load_stats(t);
  EXPECT_EQ(s.argmin, 1u);
  EXPECT_EQ(s.argmax, 2u);
}

TEST(LoadStats, ZeroLoadRanksAreAllowed) {
  // Idle ranks are legal as long as the total is positive: {0, 0, 6} → mean 2,
  // E = 2/6 = 1/3, drift = 6/2 = 3, argmin = 0 (first zero), argmax = 2.
  const std::vector<double> t{0, 0, 6};
  const LoadStats s = load_stats(t);
  EXPECT_NEAR(s.efficiency, 1.0 / 3, 1e-15);
  EXPECT_NEAR(s.drift, 3, 1e-15);
  EXPECT_EQ(s.argmin, 0u);
  EXPECT_EQ(s.argmax, 2u);
}

TEST(LoadStats, InvariantsOnAnIrregularVector) {
  // Whatever the loads: L_E = 100 − L_I, λ = L_I, E = T_avg/T_max,
  // li_fig2 = (1 − E)·100, L_I = (1/E − 1)·100, and min ≤ mean ≤ max.
  const std::vector<double> t{3.25, 0.5, 17.0, 9.75, 2.0, 11.5, 0.0, 6.0};
  const LoadStats s = load_stats(t);
  const double sum = std::accumulate(t.begin(), t.end(), 0.0);  // 50.0, exact
  EXPECT_DOUBLE_EQ(s.sum, 50.0);
  EXPECT_NEAR(s.mean, sum / 8, 1e-14);
  EXPECT_NEAR(s.le, 100 - s.li, 1e-12);
  EXPECT_NEAR(s.lambda, s.li, 1e-12);
  EXPECT_NEAR(s.efficiency, 6.25 / 17.0, 1e-15);
  EXPECT_NEAR(s.li_fig2, (1 - s.efficiency) * 100, 1e-12);
  EXPECT_NEAR(s.li, (1 / s.efficiency - 1) * 100, 1e-10);
  EXPECT_NEAR(s.drift, 17.0 / 6.25, 1e-14);
  EXPECT_LE(s.min, s.mean);
  EXPECT_LE(s.mean, s.max);
  EXPECT_EQ(s.argmin, 6u);
  EXPECT_EQ(s.argmax, 2u);
}

// --- load_stats errors -----------------------------------------------------

TEST(LoadStatsErrors, EmptyTimes) {
  const std::string msg = error_of([] { load_stats(std::vector<double>{}); });
  EXPECT_TRUE(has(msg, "expected at least one load")) << msg;
  EXPECT_TRUE(has(msg, "none")) << msg;
}

TEST(LoadStatsErrors, NegativeTimeNamesRankAndValue) {
  const std::vector<double> t{1, -2.5, 3};
  const std::string msg = error_of([&] { load_stats(t); });
  EXPECT_TRUE(has(msg, "rank 1")) << msg;
  EXPECT_TRUE(has(msg, "-2.5")) << msg;
  EXPECT_TRUE(has(msg, ">= 0")) << msg;
}

TEST(LoadStatsErrors, NaNTimeNamesRankAndValue) {
  const std::vector<double> t{1, 2, kNaN};
  const std::string msg = error_of([&] { load_stats(t); });
  EXPECT_TRUE(has(msg, "rank 2")) << msg;
  EXPECT_TRUE(has(msg, "nan")) << msg;
  EXPECT_TRUE(has(msg, "finite")) << msg;
}

TEST(LoadStatsErrors, InfiniteTimeNamesRankAndValue) {
  const std::vector<double> t{kInf, 2};
  const std::string msg = error_of([&] { load_stats(t); });
  EXPECT_TRUE(has(msg, "rank 0")) << msg;
  EXPECT_TRUE(has(msg, "inf")) << msg;
  EXPECT_TRUE(has(msg, "finite")) << msg;
}

TEST(LoadStatsErrors, AllZeroTimes) {
  // T_avg = 0 would make L_I = 0/0 (Swartz eq. 2).
  const std::vector<double> t{0, 0, 0};
  const std::string msg = error_of([&] { load_stats(t); });
  EXPECT_TRUE(has(msg, "zero")) << msg;
  EXPECT_TRUE(has(msg, "positive")) << msg;
}

// --- the JSON form -----------------------------------------------------------

// times {1, 2, 3}: mean 2, L_I = (3 − 2)/2·100 = 50 %, L_E = 50 %, E = 2/3,
// σ = sqrt(2/3); symmetric, so g1 = 0; {4, 4}: σ = 0, no g1 or g2 (null).
TEST(LoadStatsJson, EveryFieldUnderItsKey) {
  const nlohmann::json j = load_stats(std::vector<double>{1, 2, 3});
  EXPECT_EQ(j.size(), 16u);
  EXPECT_EQ(j["ranks"], 3);
  EXPECT_EQ(j["min"], 1.0);
  EXPECT_EQ(j["max"], 3.0);
  EXPECT_EQ(j["mean"], 2.0);
  EXPECT_EQ(j["sum"], 6.0);
  EXPECT_EQ(j["argmin"], 0);
  EXPECT_EQ(j["argmax"], 2);
  EXPECT_DOUBLE_EQ(j["li"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j["le"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j["li_fig2"].get<double>(), 100.0 / 3);
  EXPECT_DOUBLE_EQ(j["efficiency"].get<double>(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(j["lambda"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j["drift"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["sigma"].get<double>(), std::sqrt(2.0 / 3));
  EXPECT_NEAR(j["skewness"].get<double>(), 0.0, 1e-12);
  EXPECT_TRUE(j["kurtosis"].is_number());
  const nlohmann::json flat = load_stats(std::vector<double>{4, 4});
  EXPECT_TRUE(flat["skewness"].is_null());
  EXPECT_TRUE(flat["kurtosis"].is_null());
}

// Loads whose sum overflows (3e308): max/mean − 1 is still 1e308/7.5e307 − 1
// = 1/3, not the −1 an inf mean gives. A sum just short of the limit keeps the
// direct formula: 1.7e308/4.25e307 − 1 = 3.
TEST(Imbalance, LoadsNearTheDoubleLimit) {
  const std::vector<double> loads = {1e308, 1e308, 1e308, 0};
  EXPECT_NEAR(isocost::imbalance(loads), 4.0 / 3.0 - 1, 1e-15);
  const std::vector<double> one = {1.7e308, 0, 0, 0};
  EXPECT_NEAR(isocost::imbalance(one), 3.0, 1e-15);
}

}  // namespace
