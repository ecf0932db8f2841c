// Tests for isocost/metrics.hpp: load statistics (Swartz eqs 2–3, Pearce eq. 1
// and Fig. 1), rank correlation (Pearce eq. 13) and vector loads (Watts §4.2).
// Every expected value is derived by hand in a comment from the papers' worked
// examples or from closed forms; none is copied from the library's output.
#include "isocost/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "isocost/error.hpp"

namespace {

using isocost::load_stats;
using isocost::LoadStats;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// what() of the isocost::Error that `f` throws; records a failure if it throws
// nothing (any other exception type escapes and fails the test on its own).
template <class F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const isocost::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected isocost::Error, nothing was thrown";
  return {};
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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
  const std::string msg = ErrorOf([] { load_stats(std::vector<double>{}); });
  EXPECT_TRUE(Has(msg, "expected at least one load")) << msg;
  EXPECT_TRUE(Has(msg, "none")) << msg;
}

TEST(LoadStatsErrors, NegativeTimeNamesRankAndValue) {
  const std::vector<double> t{1, -2.5, 3};
  const std::string msg = ErrorOf([&] { load_stats(t); });
  EXPECT_TRUE(Has(msg, "rank 1")) << msg;
  EXPECT_TRUE(Has(msg, "-2.5")) << msg;
  EXPECT_TRUE(Has(msg, ">= 0")) << msg;
}

TEST(LoadStatsErrors, NaNTimeNamesRankAndValue) {
  const std::vector<double> t{1, 2, kNaN};
  const std::string msg = ErrorOf([&] { load_stats(t); });
  EXPECT_TRUE(Has(msg, "rank 2")) << msg;
  EXPECT_TRUE(Has(msg, "nan")) << msg;
  EXPECT_TRUE(Has(msg, "finite")) << msg;
}

TEST(LoadStatsErrors, InfiniteTimeNamesRankAndValue) {
  const std::vector<double> t{kInf, 2};
  const std::string msg = ErrorOf([&] { load_stats(t); });
  EXPECT_TRUE(Has(msg, "rank 0")) << msg;
  EXPECT_TRUE(Has(msg, "inf")) << msg;
  EXPECT_TRUE(Has(msg, "finite")) << msg;
}

TEST(LoadStatsErrors, AllZeroTimes) {
  // T_avg = 0 would make L_I = 0/0 (Swartz eq. 2).
  const std::vector<double> t{0, 0, 0};
  const std::string msg = ErrorOf([&] { load_stats(t); });
  EXPECT_TRUE(Has(msg, "zero")) << msg;
  EXPECT_TRUE(Has(msg, "positive")) << msg;
}

// ---------------------------------------------------------------------------
// Fractional ranks: ties share the mean of the ranks they span.

TEST(FractionalRanks, TiesShareMeanRank) {
  // 20 and 20 span ranks 2 and 3 → (2+3)/2 = 2.5 each.
  const std::vector<double> v{10, 20, 20, 30};
  EXPECT_EQ(isocost::fractional_ranks(v), (std::vector<double>{1, 2.5, 2.5, 4}));
}

TEST(FractionalRanks, UnsortedInputKeepsPositions) {
  // Sorted: 10(r1) 20 20(r2.5) 30(r4); write back at the original positions.
  const std::vector<double> v{30, 20, 10, 20};
  EXPECT_EQ(isocost::fractional_ranks(v), (std::vector<double>{4, 2.5, 1, 2.5}));
}

TEST(FractionalRanks, AllEqualAndTripleTies) {
  // Three equal values span ranks 1..3 → 2 each.
  EXPECT_EQ(isocost::fractional_ranks(std::vector<double>{5, 5, 5}),
            (std::vector<double>{2, 2, 2}));
  // {1, 3, 3, 3, 0}: 0 → 1, 1 → 2, the three 3s span 3..5 → 4.
  EXPECT_EQ(isocost::fractional_ranks(std::vector<double>{1, 3, 3, 3, 0}),
            (std::vector<double>{2, 4, 4, 4, 1}));
  EXPECT_TRUE(isocost::fractional_ranks(std::vector<double>{}).empty());
}

TEST(FractionalRanks, SumIsTriangularNumber) {
  // Averaging within ties preserves Σ ranks = n(n+1)/2; here n = 9 → 45.
  const std::vector<double> v{2, 7, 2, 2, 9, 7, 1, 0, 9};
  const auto r = isocost::fractional_ranks(v);
  ASSERT_EQ(r.size(), v.size());
  EXPECT_DOUBLE_EQ(std::accumulate(r.begin(), r.end(), 0.0), 45.0);
  // 0 → 1, 1 → 2, three 2s → 4, two 7s → 6.5, two 9s → 8.5.
  EXPECT_EQ(r, (std::vector<double>{4, 6.5, 4, 4, 8.5, 6.5, 2, 1, 8.5}));
}

// ---------------------------------------------------------------------------
// Rank correlation (Pearce eq. 13): Pearson's r of the fractional ranks.

TEST(RankCorrelation, PerfectAgreementAndReversal) {
  const std::vector<double> a{1, 2, 3, 4}, same{10, 20, 30, 40}, reversed{4, 3, 2, 1};
  const auto up = isocost::rank_correlation(a, same);
  const auto down = isocost::rank_correlation(a, reversed);
  ASSERT_TRUE(up.has_value());
  ASSERT_TRUE(down.has_value());
  EXPECT_NEAR(*up, 1, 1e-15);
  EXPECT_NEAR(*down, -1, 1e-15);
}

TEST(RankCorrelation, InvariantUnderMonotoneTransform) {
  // Only ranks matter: measured = exp(modelled) has the same order → r = 1,
  // though Pearson's r of the raw values would be well below 1.
  const std::vector<double> m{0.5, 3, 1, 8, 2};
  std::vector<double> l;
  for (double x : m) l.push_back(std::exp(x));
  const auto r = isocost::rank_correlation(m, l);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(*r, 1, 1e-15);
}

TEST(RankCorrelation, TieInOneVector) {
  // modelled {1, 2, 2, 3} → ranks m = {1, 2.5, 2.5, 4}, mean 2.5
  // measured {1, 2, 3, 4} → ranks l = {1, 2, 3, 4},     mean 2.5
  //   dm = {−1.5, 0, 0, 1.5}, dl = {−1.5, −0.5, 0.5, 1.5}
  //   Σ dm·dl = 2.25 + 0 + 0 + 2.25 = 4.5, Σ dm² = 4.5, Σ dl² = 5
  //   r = 4.5/√(4.5·5) = √0.9 = 0.948683…
  const std::vector<double> m{1, 2, 2, 3}, l{1, 2, 3, 4};
  const auto r = isocost::rank_correlation(m, l);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(*r, std::sqrt(0.9), 1e-14);
  // Pearson's r is symmetric in its arguments.
  const auto back = isocost::rank_correlation(l, m);
  ASSERT_TRUE(back.has_value());
  EXPECT_NEAR(*back, *r, 1e-15);
}

TEST(RankCorrelation, TiesInBothVectors) {
  // modelled {1, 1, 2, 3, 3} → m = {1.5, 1.5, 3, 4.5, 4.5}, mean 3
  // measured {5, 4, 4, 1, 2} → l = {5, 3.5, 3.5, 1, 2},     mean 3
  //   dm = {−1.5, −1.5, 0, 1.5, 1.5}, dl = {2, 0.5, 0.5, −2, −1}
  //   Σ dm·dl = −3 − 0.75 + 0 − 3 − 1.5 = −8.25
  //   Σ dm² = 4·2.25 = 9, Σ dl² = 4 + 0.25 + 0.25 + 4 + 1 = 9.5
  //   r = −8.25/√(9·9.5) = −0.8922178…
  const std::vector<double> m{1, 1, 2, 3, 3}, l{5, 4, 4, 1, 2};
  const auto r = isocost::rank_correlation(m, l);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(*r, -8.25 / std::sqrt(9 * 9.5), 1e-14);
  EXPECT_NEAR(*r, -0.892218, 5e-7);
}

TEST(RankCorrelation, ConstantVectorIsUndefined) {
  // All ranks tie → Σ dm² = 0 → eq. (13) is 0/0.
  const std::vector<double> flat{2, 2, 2}, rising{1, 2, 3};
  EXPECT_FALSE(isocost::rank_correlation(flat, rising).has_value());
  EXPECT_FALSE(isocost::rank_correlation(rising, flat).has_value());
  EXPECT_FALSE(isocost::rank_correlation(flat, flat).has_value());
}

TEST(RankCorrelationErrors, SizeMismatch) {
  const std::vector<double> a{1, 2}, b{1, 2, 3};
  const std::string msg = ErrorOf([&] { isocost::rank_correlation(a, b); });
  EXPECT_TRUE(Has(msg, "2 modelled")) << msg;
  EXPECT_TRUE(Has(msg, "3 measured")) << msg;
}

TEST(RankCorrelationErrors, FewerThanTwoValues) {
  const std::vector<double> one{1};
  const std::string msg = ErrorOf([&] { isocost::rank_correlation(one, one); });
  EXPECT_TRUE(Has(msg, "at least 2")) << msg;
  EXPECT_TRUE(Has(msg, "got 1")) << msg;
  const std::vector<double> none;
  const std::string msg0 = ErrorOf([&] { isocost::rank_correlation(none, none); });
  EXPECT_TRUE(Has(msg0, "got 0")) << msg0;
}

TEST(RankCorrelationErrors, NonFinite) {
  const std::vector<double> ok{1, 2, 3}, bad_measured{1, 2, kNaN}, bad_modelled{kInf, 2, 3};
  const std::string msg = ErrorOf([&] { isocost::rank_correlation(ok, bad_measured); });
  EXPECT_TRUE(Has(msg, "rank 2")) << msg;
  EXPECT_TRUE(Has(msg, "nan")) << msg;
  const std::string msg2 = ErrorOf([&] { isocost::rank_correlation(bad_modelled, ok); });
  EXPECT_TRUE(Has(msg2, "rank 0")) << msg2;
  EXPECT_TRUE(Has(msg2, "inf")) << msg2;
}

// ---------------------------------------------------------------------------
// Vector loads (Watts §4.2).

TEST(PhaseStats, WattsFig411TwoComputersTwoPhases) {
  // Watts Fig. 4.11: computer 0 has 50 units of phase one and 100 of phase two,
  // computer 1 has 100 and 50. Totals are 150 each (perfect in total: E = 1), yet
  // with a synchronisation between phases each phase takes its max:
  //   synchronised time = max(50,100) + max(100,50) = 200
  //   synchronised efficiency = mean total / 200 = 150/200 = 0.75
  // and each phase alone has E = 75/100 = 0.75, L_I = 25/75·100 = 33.3…%.
  isocost::PhaseLoads loads;
  loads.phases = {"one", "two"};
  loads.ranks = 2;
  loads.times = {50, 100,   // rank 0: phase one, phase two
                 100, 50};  // rank 1
  ASSERT_DOUBLE_EQ(loads.at(0, 1), 100);
  ASSERT_DOUBLE_EQ(loads.at(1, 0), 100);
  const isocost::PhaseStats s = isocost::phase_stats(loads);
  EXPECT_EQ(s.phases, loads.phases);
  ASSERT_EQ(s.per_phase.size(), 2u);
  for (const auto& p : s.per_phase) {
    EXPECT_EQ(p.ranks, 2u);
    EXPECT_DOUBLE_EQ(p.mean, 75);
    EXPECT_DOUBLE_EQ(p.max, 100);
    EXPECT_NEAR(p.efficiency, 0.75, 1e-15);
    EXPECT_NEAR(p.li, 100.0 / 3, 1e-12);
  }
  EXPECT_EQ(s.per_phase[0].argmax, 1u);
  EXPECT_EQ(s.per_phase[1].argmax, 0u);
  EXPECT_EQ(s.total.ranks, 2u);
  EXPECT_DOUBLE_EQ(s.total.mean, 150);
  EXPECT_DOUBLE_EQ(s.total.efficiency, 1);
  EXPECT_DOUBLE_EQ(s.total.li, 0);
  EXPECT_DOUBLE_EQ(s.synchronised_time, 200);
  EXPECT_NEAR(s.synchronised_efficiency, 0.75, 1e-15);
}

TEST(PhaseStats, ThreeRanksUnevenTotals) {
  // rank 0: (1, 4), rank 1: (3, 2), rank 2: (2, 0)
  //   totals {5, 5, 2}: mean 4, max 5 → E = 0.8 (first max at rank 0)
  //   phase p: {1, 3, 2} mean 2, max 3 → E = 2/3
  //   phase q: {4, 2, 0} mean 2, max 4 → E = 1/2
  //   synchronised time = 3 + 4 = 7 → synchronised E = 4/7 ≤ 0.8
  isocost::PhaseLoads loads{{"p", "q"}, 3, {1, 4, 3, 2, 2, 0}};
  const auto s = isocost::phase_stats(loads);
  EXPECT_NEAR(s.total.efficiency, 0.8, 1e-15);
  EXPECT_EQ(s.total.argmax, 0u);
  EXPECT_EQ(s.total.argmin, 2u);
  EXPECT_NEAR(s.per_phase[0].efficiency, 2.0 / 3, 1e-15);
  EXPECT_NEAR(s.per_phase[1].efficiency, 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(s.synchronised_time, 7);
  EXPECT_NEAR(s.synchronised_efficiency, 4.0 / 7, 1e-15);
  EXPECT_LE(s.synchronised_efficiency, s.total.efficiency);
}

TEST(PhaseStats, AllZeroPhaseIsBalanced) {
  // Phase "idle" does nothing on any rank: it is perfectly balanced (E = 1,
  // L_E = 100, L_I = 0) and adds 0 to the synchronised time.
  //   totals {3, 5}: mean 4, max 5 → E = 0.8; synchronised time = 5 + 0 = 5,
  //   synchronised E = 4/5 = 0.8.
  isocost::PhaseLoads loads{{"work", "idle"}, 2, {3, 0, 5, 0}};
  const auto s = isocost::phase_stats(loads);
  ASSERT_EQ(s.per_phase.size(), 2u);
  const LoadStats& idle = s.per_phase[1];
  EXPECT_DOUBLE_EQ(idle.max, 0);
  EXPECT_DOUBLE_EQ(idle.sum, 0);
  EXPECT_DOUBLE_EQ(idle.efficiency, 1);
  EXPECT_DOUBLE_EQ(idle.le, 100);
  EXPECT_DOUBLE_EQ(idle.li, 0);
  EXPECT_FALSE(idle.skewness.has_value());
  EXPECT_FALSE(idle.kurtosis.has_value());
  EXPECT_NEAR(s.total.efficiency, 0.8, 1e-15);
  EXPECT_DOUBLE_EQ(s.synchronised_time, 5);
  EXPECT_NEAR(s.synchronised_efficiency, 0.8, 1e-15);
}

TEST(PhaseStats, SinglePhaseSynchronisesForFree) {
  // With one phase the synchronised time is just T_max, so both efficiencies
  // equal T_avg/T_max = 2/4 = 0.5 for loads {1, 4, 1}.
  isocost::PhaseLoads loads{{"only"}, 3, {1, 4, 1}};
  const auto s = isocost::phase_stats(loads);
  EXPECT_DOUBLE_EQ(s.synchronised_time, 4);
  EXPECT_NEAR(s.synchronised_efficiency, 0.5, 1e-15);
  EXPECT_NEAR(s.total.efficiency, 0.5, 1e-15);
  EXPECT_NEAR(s.per_phase[0].efficiency, 0.5, 1e-15);
}

TEST(PhaseStatsErrors, WrongTimesSize) {
  isocost::PhaseLoads loads{{"a", "b"}, 2, {1, 2, 3}};
  const std::string msg = ErrorOf([&] { isocost::phase_stats(loads); });
  EXPECT_TRUE(Has(msg, "expected 4")) << msg;
  EXPECT_TRUE(Has(msg, "got 3")) << msg;
}

TEST(PhaseStatsErrors, NoRanksOrNoPhases) {
  isocost::PhaseLoads no_ranks{{"a"}, 0, {}};
  EXPECT_THROW(isocost::phase_stats(no_ranks), isocost::Error);
  isocost::PhaseLoads no_phases{{}, 2, {}};
  EXPECT_THROW(isocost::phase_stats(no_phases), isocost::Error);
}

TEST(PhaseStatsErrors, BadTimeNamesPhaseRankAndValue) {
  // Rank 1, phase "solve" holds −1.
  isocost::PhaseLoads loads{{"push", "solve"}, 2, {1, 2, 3, -1}};
  const std::string msg = ErrorOf([&] { isocost::phase_stats(loads); });
  EXPECT_TRUE(Has(msg, "solve")) << msg;
  EXPECT_TRUE(Has(msg, "rank 1")) << msg;
  EXPECT_TRUE(Has(msg, "-1")) << msg;

  isocost::PhaseLoads nan_loads{{"push", "solve"}, 2, {kNaN, 2, 3, 1}};
  const std::string msg2 = ErrorOf([&] { isocost::phase_stats(nan_loads); });
  EXPECT_TRUE(Has(msg2, "push")) << msg2;
  EXPECT_TRUE(Has(msg2, "rank 0")) << msg2;
  EXPECT_TRUE(Has(msg2, "nan")) << msg2;
}

TEST(PhaseStatsErrors, AllPhasesZero) {
  // Each phase may be all zero, but the grand total may not (T_avg = 0).
  isocost::PhaseLoads loads{{"a", "b"}, 2, {0, 0, 0, 0}};
  const std::string msg = ErrorOf([&] { isocost::phase_stats(loads); });
  EXPECT_TRUE(Has(msg, "zero")) << msg;
}

// ---------------------------------------------------------------------------
// The one load-vector check and the one imbalance

TEST(CheckLoads, CountsValuesAndTotal) {
  const std::vector<double> ok{1, 0, 2.5};
  EXPECT_EQ(isocost::check_loads(ok, "x"), 3.5);
  EXPECT_EQ(isocost::check_loads(ok, "x", 3), 3.5);
  EXPECT_EQ(ErrorOf([&] { isocost::check_loads(ok, "plan", 4); }),
            "plan: 3 loads for 4 ranks; expected one per rank");
  EXPECT_EQ(ErrorOf([&] { isocost::check_loads(ok, "diffusion", 2, "node"); }),
            "diffusion: 3 loads for 2 nodes; expected one per node");
  const std::vector<double> bad{1, -0.5, 2};
  EXPECT_EQ(ErrorOf([&] { isocost::check_loads(bad, "shift"); }),
            "shift: load of rank 1 = -0.5, expected a finite number >= 0");
  const std::vector<double> nan{1, 1, kNaN};
  EXPECT_EQ(ErrorOf([&] { isocost::check_loads(nan, "g", 0, "part"); }),
            "g: load of part 2 = nan, expected a finite number >= 0");
  const std::vector<double> zero{0, 0};
  EXPECT_EQ(ErrorOf([&] { isocost::check_loads(zero, "z"); }),
            "z: all loads are zero; expected a positive total");
  EXPECT_EQ(isocost::check_loads(zero, "z", 2, "rank", true), 0.0);
  EXPECT_EQ(ErrorOf([&] { isocost::check_loads({}, "e"); }),
            "e: expected at least one load, got none");
}

TEST(Imbalance, MaxOverMeanMinusOne) {
  EXPECT_EQ(isocost::imbalance(std::vector<double>{1, 1, 1, 1}), 0.0);
  EXPECT_DOUBLE_EQ(isocost::imbalance(std::vector<double>{3, 1, 1, 3}), 0.5);  // 3/2 - 1
  EXPECT_DOUBLE_EQ(isocost::imbalance(std::vector<double>{4, 0, 0, 0}), 3.0);
  EXPECT_EQ(isocost::imbalance(std::vector<double>{0, 0}), 0.0);
  EXPECT_EQ(isocost::imbalance(std::vector<double>{}), 0.0);
  // A given mean: the conserved mean of earlier loads.
  EXPECT_DOUBLE_EQ(isocost::imbalance(std::vector<double>{3, 1}, 1.5), 1.0);
  // λ = 100·imbalance (Pearce eq. 1), as load_stats() reports it.
  const std::vector<double> t{2, 3, 7, 4};
  EXPECT_NEAR(100 * isocost::imbalance(t), isocost::load_stats(t).lambda, 1e-12);
}

}  // namespace
