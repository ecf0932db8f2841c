// Tests for isocost/metrics.hpp, the rest of it: rank correlation (Pearce
// eq. 13), vector loads of phases (Watts §4.2), the load-vector check and
// imbalance(). load_stats() and its JSON form are in test_metrics.cpp.
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
  const std::string msg = error_of([&] { isocost::rank_correlation(a, b); });
  EXPECT_TRUE(has(msg, "2 modelled")) << msg;
  EXPECT_TRUE(has(msg, "3 measured")) << msg;
}

TEST(RankCorrelationErrors, FewerThanTwoValues) {
  const std::vector<double> one{1};
  const std::string msg = error_of([&] { isocost::rank_correlation(one, one); });
  EXPECT_TRUE(has(msg, "at least 2")) << msg;
  EXPECT_TRUE(has(msg, "got 1")) << msg;
  const std::vector<double> none;
  const std::string msg0 = error_of([&] { isocost::rank_correlation(none, none); });
  EXPECT_TRUE(has(msg0, "got 0")) << msg0;
}

TEST(RankCorrelationErrors, NonFinite) {
  const std::vector<double> ok{1, 2, 3}, bad_measured{1, 2, kNaN}, bad_modelled{kInf, 2, 3};
  const std::string msg = error_of([&] { isocost::rank_correlation(ok, bad_measured); });
  EXPECT_TRUE(has(msg, "rank 2")) << msg;
  EXPECT_TRUE(has(msg, "nan")) << msg;
  const std::string msg2 = error_of([&] { isocost::rank_correlation(bad_modelled, ok); });
  EXPECT_TRUE(has(msg2, "rank 0")) << msg2;
  EXPECT_TRUE(has(msg2, "inf")) << msg2;
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
  const std::string msg = error_of([&] { isocost::phase_stats(loads); });
  EXPECT_TRUE(has(msg, "expected 4")) << msg;
  EXPECT_TRUE(has(msg, "got 3")) << msg;
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
  const std::string msg = error_of([&] { isocost::phase_stats(loads); });
  EXPECT_TRUE(has(msg, "solve")) << msg;
  EXPECT_TRUE(has(msg, "rank 1")) << msg;
  EXPECT_TRUE(has(msg, "-1")) << msg;

  isocost::PhaseLoads nan_loads{{"push", "solve"}, 2, {kNaN, 2, 3, 1}};
  const std::string msg2 = error_of([&] { isocost::phase_stats(nan_loads); });
  EXPECT_TRUE(has(msg2, "push")) << msg2;
  EXPECT_TRUE(has(msg2, "rank 0")) << msg2;
  EXPECT_TRUE(has(msg2, "nan")) << msg2;
}

TEST(PhaseStatsErrors, AllPhasesZero) {
  // Each phase may be all zero, but the grand total may not (T_avg = 0).
  isocost::PhaseLoads loads{{"a", "b"}, 2, {0, 0, 0, 0}};
  const std::string msg = error_of([&] { isocost::phase_stats(loads); });
  EXPECT_TRUE(has(msg, "zero")) << msg;
}

// ---------------------------------------------------------------------------
// The one load-vector check and the one imbalance

TEST(CheckLoads, CountsValuesAndTotal) {
  const std::vector<double> ok{1, 0, 2.5};
  EXPECT_EQ(isocost::check_loads(ok, "x"), 3.5);
  EXPECT_EQ(isocost::check_loads(ok, "x", 3), 3.5);
  EXPECT_EQ(error_of([&] { isocost::check_loads(ok, "plan", 4); }),
            "plan: 3 loads for 4 ranks; expected one per rank");
  EXPECT_EQ(error_of([&] { isocost::check_loads(ok, "diffusion", 2, "node"); }),
            "diffusion: 3 loads for 2 nodes; expected one per node");
  const std::vector<double> bad{1, -0.5, 2};
  EXPECT_EQ(error_of([&] { isocost::check_loads(bad, "shift"); }),
            "shift: load of rank 1: expected a finite number >= 0, got -0.5");
  const std::vector<double> nan{1, 1, kNaN};
  EXPECT_EQ(error_of([&] { isocost::check_loads(nan, "g", 0, "part"); }),
            "g: load of part 2: expected a finite number >= 0, got nan");
  const std::vector<double> zero{0, 0};
  EXPECT_EQ(error_of([&] { isocost::check_loads(zero, "z"); }),
            "z: all loads are zero; expected a positive total");
  EXPECT_EQ(isocost::check_loads(zero, "z", 2, "rank", true), 0.0);
  EXPECT_EQ(error_of([&] { isocost::check_loads({}, "e"); }),
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
