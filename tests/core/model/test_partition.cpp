// Tests for isocost/partition.hpp: Swartz's worked examples, the sieve over
// P = 1…1024, a randomized property test over many monotone models,
// discrete/integer cuts against brute force, and partition_from_cuts().
// bottleneck_cuts() and partition_optimal(): test_bottleneck_cuts.cpp.
#include "isocost/partition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>

#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::CostModel;
using isocost::CutMethod;
using isocost::PartitionOptions;
using isocost::Speeds;

using isocost::testing::expect_error;

// ---------------------------------------------------------------------------
TEST(Speeds, UniformAndExplicit) {
  const auto u = Speeds::uniform(4);
  EXPECT_TRUE(u.is_uniform());
  EXPECT_EQ(u.ranks(), 4);
  EXPECT_EQ(u.total(), 4);
  EXPECT_EQ(u.fraction_before(1), 0.25);
  EXPECT_EQ(u.fraction_before(4), 1.0);
  const auto s = Speeds::from_values({1, 3});
  EXPECT_FALSE(s.is_uniform());
  EXPECT_EQ(s.speed(1), 3);
  EXPECT_EQ(s.total(), 4);
  EXPECT_EQ(s.fraction_before(1), 0.25);
  EXPECT_EQ(s.fraction_before(2), 1.0);
  EXPECT_EQ(s.values(), (std::vector<double>{1, 3}));
}

TEST(Speeds, BadValuesAreErrors) {
  expect_error([] { Speeds::uniform(0); }, {"ranks", ">= 1", "got 0"});
  expect_error([] { Speeds::from_values({}); }, {"at least one speed"});
  expect_error([] { Speeds::from_values({1, 0}); }, {"rank 1", "> 0", "got 0"});
  expect_error([] { Speeds::from_values({1, -2}); }, {"got -2"});
  expect_error([] { Speeds::from_values({std::nan("")}); }, {"rank 0", "nan"});
  expect_error([] { Speeds::from_node_types({{0, 1}}); }, {"node type 1", "count", "got 0"});
  expect_error(
      [] {
        Speeds::from_node_types({{1, 1}, {2, -3}});
      },
      {"node type 2", "time ratio", "-3"});
  expect_error([] { Speeds::uniform(3).speed(3); }, {"rank 3"});
  expect_error([] { Speeds::from_times(std::vector<double>{}); }, {"at least one time"});
  expect_error(
      [] {
        Speeds::from_times(std::vector<double>{1, 0});
      },
      {"time of rank 1: expected a finite time > 0, got 0 s"});
  expect_error([] { Speeds::from_times(std::vector<double>{1, 2, INFINITY}); }, {"rank 2", "inf"});
}

// Swartz §4's 7 + 4 nodes with R = 3, as a calibration run measures them: the
// fast nodes take a third of the time for the same work.
TEST(Speeds, FromCalibrationTimesMatchTheNodeTypes) {
  std::vector<double> seconds(11, 0.6);
  for (int r = 7; r < 11; ++r) seconds[r] = 0.2;
  const auto s = Speeds::from_times(seconds);
  const auto types = Speeds::from_node_types({{7, 1.0}, {4, 3.0}});
  ASSERT_EQ(s.ranks(), 11);
  for (int r = 0; r < 11; ++r) EXPECT_DOUBLE_EQ(s.speed(r), types.speed(r)) << r;
  EXPECT_DOUBLE_EQ(s.total(), 7 + 4 * 3);
  // Only ratios matter: one rank alone has speed 1.
  EXPECT_EQ(Speeds::from_times(std::vector<double>{5e-3}).speed(0), 1);
}

// ---------------------------------------------------------------------------
// Swartz §4: 7 type-1 nodes and 4 type-2 nodes that run R = 3 times faster,
// TT = 100 on one type-1 node. Then t_int = TT/(N1 + N2·R) = 100/19 = 5.263…,
// T_all = 11·t_int = 57.89…, T_1 = 7·t_int = 36.84…, speedup = 19.0.
TEST(SwartzSection4, HeterogeneousNodesWithLinearCost) {
  const auto t = isocost::power_model(1, 1, 0, 0, 100);  // t(x) = x, TT = 100
  const auto speeds = Speeds::from_node_types({{7, 1.0}, {4, 3.0}});
  ASSERT_EQ(speeds.ranks(), 11);
  const auto part = isocost::partition(t, speeds);
  const double t_int = 100.0 / 19;
  EXPECT_NEAR(t_int, 5.263, 5e-4);
  double T_all = 0, T_1 = 0, makespan = 0;
  for (int i = 0; i < 11; ++i) {
    EXPECT_NEAR(part.time[i], t_int, 1e-12) << i;  // every node finishes together
    T_all += part.time[i];
    if (i < 7) T_1 += part.time[i];
    makespan = std::max(makespan, part.time[i]);
  }
  EXPECT_NEAR(T_all, 57.89, 5e-3);
  EXPECT_NEAR(T_1, 36.84, 5e-3);
  EXPECT_NEAR(100 / makespan, 19.0, 1e-9);  // speedup
  // With t(x) = x the cuts are the cumulative targets: i·t_int for type 1,
  // then steps of R·t_int = 15.79 for type 2.
  for (int i = 0; i <= 7; ++i) EXPECT_NEAR(part.cuts[i], i * t_int, 1e-10) << i;
  for (int j = 1; j <= 4; ++j) EXPECT_NEAR(part.cuts[7 + j], (7 + 3 * j) * t_int, 1e-10) << j;
  EXPECT_EQ(part.cuts[11], 100);
  EXPECT_NEAR(part.predicted_le, 100, 1e-9);
}

// Swartz §2: each rank finds its own range with two root finds and no
// communication; neighbours agree bit for bit.
TEST(RankRange, NeighboursAgreeBitForBitAndMatchTheIndependentPartition) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> speed(0.2, 5);
  std::vector<double> s(37);
  for (auto& v : s) v = speed(rng);
  const auto speeds = Speeds::from_values(s);
  PartitionOptions cold;
  cold.warm_start = false;
  const auto part = isocost::partition(t, speeds, cold);
  const auto warm = isocost::partition(t, speeds);
  for (int i = 0; i < 37; ++i) {
    const auto r = isocost::rank_range(t, i, speeds);
    EXPECT_EQ(r.lo, part.cuts[i]) << i;
    EXPECT_EQ(r.hi, part.cuts[i + 1]) << i;
    if (i + 1 < 37) {
      EXPECT_EQ(r.hi, isocost::rank_range(t, i + 1, speeds).lo) << i;
    }
    EXPECT_NEAR(r.time, t.total() / speeds.total(), 1e-11 * t.total()) << i;
    // Warm-started cuts are the same roots to within the tolerance.
    EXPECT_NEAR(warm.cuts[i], part.cuts[i], 1e-9 * part.cuts[i]) << i;
  }
  EXPECT_EQ(isocost::rank_range(t, 0, speeds).lo, 6);
  EXPECT_EQ(isocost::rank_range(t, 36, speeds).hi, 268435456);
  expect_error([&] { isocost::rank_range(t, 37, speeds); }, {"rank 37", "[0, 37)"});
  expect_error([&] { isocost::rank_range(t, -1, speeds); }, {"rank -1"});
}

// The acceptance test: sieve model on [6, 2^28], every P from 1 to 1024,
// Newton from the linear guess; every cut within 1e-10·TT of its target when t
// is re-evaluated independently (long double, Swartz eq. 4).
TEST(SieveModel, EveryCutForEveryPUpTo1024) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  auto T = [](long double x) { return 3.9098e-7L * std::pow(x, 1.43L) / (std::log(x) - 1.08366L); };
  const long double TT = T(268435456.0L) - T(6.0L);
  PartitionOptions options;
  options.warm_start = false;  // each cut from the linear guess, as each rank would
  int max_iterations = 0;
  double worst = 0;
  for (int P = 1; P <= 1024; ++P) {
    const auto part = isocost::partition(t, Speeds::uniform(P), options);
    ASSERT_EQ(part.cuts.front(), 6);
    ASSERT_EQ(part.cuts.back(), 268435456);
    for (int i = 1; i < P; ++i) {
      const long double target = TT * i / P;
      const double error = static_cast<double>(std::abs(T(part.cuts[i]) - T(6.0L) - target) / TT);
      worst = std::max(worst, error);
      ASSERT_LE(error, 1e-10) << "P=" << P << " i=" << i;
      ASSERT_GT(part.cuts[i], part.cuts[i - 1]);
    }
    ASSERT_TRUE(part.converged());
    max_iterations = std::max(max_iterations, part.max_iterations);
  }
  std::cout << "[ sieve P=1..1024 ] max Newton iterations " << max_iterations
            << ", worst |t(x_i) - target_i|/TT " << worst << "\n";
  RecordProperty("max_newton_iterations", max_iterations);
  EXPECT_LE(max_iterations, 12);
}

// ---------------------------------------------------------------------------
// Property test: random monotone models, random speeds, all four methods.
struct RandomCase {
  CostModel model;
  std::string what;
};

RandomCase random_model(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  switch (rng() % 5) {
    case 0: {  // power law
      const double A = 0.1 + 10 * u(rng), p = 0.2 + 4 * u(rng), lo = 10 * u(rng);
      const double hi = lo + 0.1 + 1000 * u(rng);
      return {isocost::power_model(A, p, 0, lo, hi), "power"};
    }
    case 1: {  // polynomial with nonnegative coefficients on x >= 0: increasing
      std::vector<double> c{u(rng)};
      const int degree = 1 + static_cast<int>(rng() % 5);
      for (int k = 1; k <= degree; ++k) c.push_back(u(rng) * u(rng));
      c[1] += 0.01;
      const double lo = 5 * u(rng);
      return {isocost::polynomial_model(c, lo, lo + 0.5 + 20 * u(rng)), "polynomial"};
    }
    case 2: {  // sieve with random shape
      isocost::SieveParams sp{1e-3 + u(rng), 1.1 + u(rng), 0.5 + u(rng)};
      const double lo = isocost::sieve_increasing_from(sp) * (1.01 + 10 * u(rng));
      return {isocost::sieve_model(sp, lo, lo * (2 + std::pow(10.0, 1 + 7 * u(rng)))), "sieve"};
    }
    case 3: {  // pchip through random positive increments
      const int n = 4 + static_cast<int>(rng() % 40);
      std::vector<double> x{0}, t{0};
      for (int k = 1; k < n; ++k) {
        x.push_back(x.back() + 0.1 + u(rng));
        t.push_back(t.back() + 0.01 + 5 * u(rng) * u(rng));
      }
      return {isocost::tabulated_model(x, t), "pchip"};
    }
    default: {  // analytic with wiggles: t = x + a·sin(bx)/b, t' = 1 + a·cos(bx) > 0
      const double a = 0.9 * u(rng), b = 0.5 + 20 * u(rng);
      return {isocost::analytic_model([a, b](double x) { return x + a * std::sin(b * x) / b; },
                                      [a, b](double x) { return 1 + a * std::cos(b * x); }, 0,
                                      1 + 10 * u(rng)),
              "analytic"};
    }
  }
}

TEST(Partition, PropertiesHoldForRandomModelsSpeedsAndMethods) {
  std::mt19937_64 rng(20261121);
  std::uniform_real_distribution<double> u(0, 1);
  constexpr double eps = std::numeric_limits<double>::epsilon();
  for (int trial = 0; trial < 1000; ++trial) {
    const auto c = random_model(rng);
    const CostModel& t = c.model;
    const double TT = t.total();
    const int P = 1 + static_cast<int>(rng() % 32);
    std::vector<double> s(static_cast<std::size_t>(P), 1.0);
    if (rng() % 2)
      for (auto& v : s) v = 0.1 + 10 * u(rng);
    const auto speeds = Speeds::from_values(s);
    std::vector<double> reference;
    for (auto method :
         {CutMethod::newton, CutMethod::secant, CutMethod::bisection, CutMethod::toms748}) {
      PartitionOptions options;
      options.cut.method = method;
      const auto part = isocost::partition(t, speeds, options);
      const std::string where = c.what + " trial " + std::to_string(trial) +
                                " P=" + std::to_string(P) + " " + std::string(to_string(method));
      ASSERT_EQ(part.cuts.front(), t.lo()) << where;
      ASSERT_EQ(part.cuts.back(), t.hi()) << where;
      ASSERT_TRUE(part.converged()) << where;
      // Each cut's residual is within the cost tolerance, or within what one
      // machine-precision step in x can change t (x_tolerance termination).
      std::vector<double> t_at(static_cast<std::size_t>(P) + 1);
      for (int i = 0; i <= P; ++i) {
        const double x = part.cuts[i];
        if (i > 0) {
          ASSERT_GT(x, part.cuts[i - 1]) << where << " i=" << i;
        }
        t_at[i] = t.cost(x);
        const double target = TT * speeds.fraction_before(i);
        const double allowed =
            std::max(1e-12 * TT, 8 * eps * std::abs(x) * t.density(x)) + 4 * eps * TT;
        ASSERT_LE(std::abs(t_at[i] - target), allowed) << where << " i=" << i;
      }
      // Each part's cost matches its share of the work.
      for (int i = 0; i < P; ++i) {
        const double expected = TT * s[i] / speeds.total();
        const double allowed = std::abs(part.summaries[i].residual) +
                               std::abs(part.summaries[i + 1].residual) + 8 * eps * TT;
        ASSERT_NEAR(t_at[i + 1] - t_at[i], expected, allowed) << where << " rank " << i;
        ASSERT_NEAR(part.cost[i], t_at[i + 1] - t_at[i], 4 * eps * TT) << where;
      }
      // All methods agree on where the cost lies.
      if (reference.empty()) {
        reference = t_at;
      } else {
        for (int i = 0; i <= P; ++i)
          ASSERT_NEAR(t_at[i], reference[i], 3e-12 * TT + 16 * eps * TT) << where << " i=" << i;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Discrete cuts against brute force: boundary b minimising |P[b] − target|,
// ties to the smaller b.
std::vector<double> prefix_of(const std::vector<double>& w) {
  std::vector<double> p{0};
  for (double v : w) p.push_back(p.back() + v);
  return p;
}

// Optimal contiguous bottleneck max_i cost_i/s_i by dynamic programming
// (chains-on-chains, brute force over all split points).
double optimal_bottleneck(const std::vector<double>& w, const std::vector<double>& s) {
  const auto p = prefix_of(w);
  const std::size_t n = w.size(), P = s.size();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> dp(P + 1, std::vector<double>(n + 1, inf));
  dp[0][0] = 0;
  for (std::size_t k = 1; k <= P; ++k)
    for (std::size_t j = 0; j <= n; ++j)
      for (std::size_t m = 0; m <= j; ++m)
        dp[k][j] = std::min(dp[k][j], std::max(dp[k - 1][m], (p[j] - p[m]) / s[k - 1]));
  return dp[P][n];
}

TEST(DiscretePartition, EqualsBruteForceAndIsWithinOneCellOfOptimal) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t n = 1 + rng() % 12;
    std::vector<double> w(n);
    for (auto& v : w) v = static_cast<double>(rng() % 10);  // integers, zeros included
    if (std::all_of(w.begin(), w.end(), [](double v) { return v == 0; })) w[0] = 1;
    const int P = 1 + static_cast<int>(rng() % 8);
    std::vector<double> s(static_cast<std::size_t>(P), 1.0);
    if (trial % 2)
      for (auto& v : s) v = 0.5 + 2 * u(rng);
    const auto speeds = Speeds::from_values(s);
    const auto model = isocost::discrete_model(w);
    const auto part = isocost::partition(model, speeds);
    const auto p = prefix_of(w);
    ASSERT_TRUE(part.integer);
    for (int i = 0; i <= P; ++i) {
      const double target = model.total() * speeds.fraction_before(i);
      std::size_t best = 0;
      for (std::size_t b = 1; b <= n; ++b)
        if (std::abs(p[b] - target) < std::abs(p[best] - target)) best = b;
      if (i == 0) best = 0;
      if (i == P) best = n;
      ASSERT_EQ(part.cuts[i], static_cast<double>(best)) << "trial " << trial << " i=" << i;
      if (i < P) {
        const auto r = isocost::rank_range(model, i, speeds);
        ASSERT_EQ(r.lo, part.cuts[i]);
        ASSERT_EQ(r.hi, part.cuts[i + 1]);
      }
    }
    // Bottleneck within one cell's weight (over the slowest speed) of optimal.
    const double w_max = *std::max_element(w.begin(), w.end());
    const double s_min = *std::min_element(s.begin(), s.end());
    const double bottleneck = *std::max_element(part.time.begin(), part.time.end());
    ASSERT_LE(bottleneck, optimal_bottleneck(w, s) + w_max / s_min + 1e-12) << "trial " << trial;
  }
}

TEST(DiscretePartition, MoreRanksThanCellsLeavesEmptyRangesButCoversAll) {
  const auto model = isocost::discrete_model({5, 1, 5});
  const auto part = isocost::partition(model, Speeds::uniform(8));
  EXPECT_EQ(part.cuts.front(), 0);
  EXPECT_EQ(part.cuts.back(), 3);
  double sum = 0;
  for (int i = 0; i < 8; ++i) {
    EXPECT_LE(part.cuts[i], part.cuts[i + 1]);
    sum += part.cost[i];
  }
  EXPECT_EQ(sum, 11);
}

TEST(DiscretePartition, EveryCutsVerdictIsForItsOwnTarget) {
  // Weights {3, 1} on 4 ranks: targets 1, 2, 3, boundaries at t = 0, 3, 4.
  // Cut 1 is the boundary t = 0 (residual -1), cut 2 the boundary t = 3
  // (residual 1), and cut 3 is that same boundary, which meets its target 3
  // exactly: exact, not the nearest_integer of the cut it repeats.
  const auto part = isocost::partition(isocost::discrete_model({3, 1}), Speeds::uniform(4));
  ASSERT_EQ(part.cuts, (std::vector<double>{0, 0, 1, 1, 2}));
  EXPECT_EQ(part.summaries[1].residual, -1);
  EXPECT_EQ(part.summaries[1].termination, isocost::CutTermination::nearest_integer);
  EXPECT_EQ(part.summaries[2].residual, 1);
  EXPECT_EQ(part.summaries[2].termination, isocost::CutTermination::nearest_integer);
  EXPECT_EQ(part.summaries[3].residual, 0);
  EXPECT_EQ(part.summaries[3].termination, isocost::CutTermination::exact);
}

TEST(DiscretePartition, FromItsCutsIsThePartitionWithoutRootFinding) {
  // partition_from_cuts() of partition()'s own cuts of a discrete model
  // (the form of mpi::partition_weights()) reports what partition() does,
  // field for field, except how the cuts were found.
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> w(1 + rng() % 12);
    for (auto& v : w) v = static_cast<double>(rng() % 10);
    w[0] += 1;  // a total > 0
    const int P = 1 + static_cast<int>(rng() % 8);
    std::vector<double> s(static_cast<std::size_t>(P), 1.0);
    if (trial % 2)
      for (auto& v : s) v = static_cast<double>(1 + rng() % 3);
    const auto speeds = Speeds::from_values(s);
    const auto model = isocost::discrete_model(w, trial % 3);
    const auto want = isocost::partition(model, speeds);
    std::vector<std::int64_t> cells;
    std::vector<double> t;
    for (const double x : want.cuts) {
      cells.push_back(std::llround(x - model.lo()));
      t.push_back(model.prefix_sums()[static_cast<std::size_t>(cells.back())]);
    }
    const auto got = isocost::partition_from_cuts(
        cells, t, speeds, isocost::CutTermination::nearest_integer, {}, model.lo());
    ASSERT_EQ(got.cuts, want.cuts) << "trial " << trial;
    EXPECT_EQ(got.cost, want.cost) << "trial " << trial;
    EXPECT_EQ(got.time, want.time) << "trial " << trial;
    EXPECT_EQ(got.total_cost, want.total_cost);
    EXPECT_EQ(got.speed_total, want.speed_total);
    EXPECT_EQ(got.max_abs_residual, want.max_abs_residual);
    EXPECT_EQ(got.predicted_le, want.predicted_le);
    EXPECT_TRUE(got.integer && got.converged());
    EXPECT_EQ(got.max_iterations, 0);
    for (int i = 0; i <= P; ++i) {
      const auto &g = got.summaries[i], &e = want.summaries[i];
      EXPECT_EQ(g.x, e.x) << "trial " << trial << " cut " << i;
      EXPECT_EQ(g.target, e.target) << "trial " << trial << " cut " << i;
      EXPECT_EQ(g.residual, e.residual) << "trial " << trial << " cut " << i;
      // Where an earlier cut already meets this target, partition() copies
      // that cut's summary, nearest_integer even where the residual is 0.
      EXPECT_EQ(g.termination, e.residual == 0 ? isocost::CutTermination::exact : e.termination)
          << "trial " << trial << " cut " << i;
      EXPECT_EQ(g.used, CutMethod::binary_search);
      EXPECT_EQ(g.iterations, 0);
    }
  }
}

TEST(DiscretePartition, FromCutsChecksItsInput) {
  using isocost::CutTermination;
  using V = std::vector<double>;
  using C = std::vector<std::int64_t>;
  const auto two = Speeds::uniform(2);
  const auto near = CutTermination::nearest_integer;
  expect_error(
      [&] {
        isocost::partition_from_cuts(C{0, 4}, V{0, 10}, two, near);
      },
      {"partition_from_cuts", "expected P + 1 = 3 cuts and values for 2 ranks",
       "got 2 cuts and 2 values"});
  expect_error(
      [&] {
        isocost::partition_from_cuts(C{0, 3, 2}, V{0, 6, 10}, two, near);
      },
      {"cut 2: expected a value >= 3 (cut 1; nondecreasing cuts), got 2"});
  expect_error(
      [&] {
        isocost::partition_from_cuts(C{0, 3, 4}, V{0, 6, 5}, two, near);
      },
      {"t at cut 2: expected a finite value >= 6", "got 5"});
  expect_error(
      [&] {
        isocost::partition_from_cuts(C{0, 3, 4}, V{1, 6, 10}, two, near);
      },
      {"t at the first cut: expected 0", "got 1"});
  expect_error(
      [&] {
        isocost::partition_from_cuts(C{0, 3, 4}, V{0, 6, 10}, two, CutTermination::exact);
      },
      {"nearest_integer or optimum", "got exact"});
}

// ---------------------------------------------------------------------------
TEST(IntegerPartition, SieveRangesAreClosestIntegersAndTile) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  PartitionOptions options;
  options.integer = true;
  const auto speeds = Speeds::from_node_types({{7, 1}, {4, 3}});
  const auto part = isocost::partition(t, speeds, options);
  ASSERT_EQ(part.cuts.front(), 6);
  ASSERT_EQ(part.cuts.back(), 268435456);
  double sum = 0;
  for (int i = 1; i < speeds.ranks(); ++i) {
    const double b = part.cuts[i], target = t.total() * speeds.fraction_before(i);
    EXPECT_EQ(b, std::floor(b));
    EXPECT_GT(b, part.cuts[i - 1]);
    // No neighbouring integer is closer to the target.
    EXPECT_LE(std::abs(t.cost(b) - target), std::abs(t.cost(b - 1) - target)) << i;
    EXPECT_LE(std::abs(t.cost(b) - target), std::abs(t.cost(b + 1) - target)) << i;
    const auto r = isocost::rank_range(t, i, speeds, options);
    EXPECT_EQ(r.lo, b);  // each rank rounds the same way on its own
  }
  for (double c : part.cost) sum += c;
  EXPECT_NEAR(sum, t.total(), 1e-9 * t.total());
  EXPECT_GT(part.predicted_le, 99.999);
}

TEST(IntegerPartition, TinyDomainStillCoversEveryCellOnce) {
  const auto t = isocost::power_model(1, 1, 0, 0, 5);  // 5 unit cells
  PartitionOptions options;
  options.integer = true;
  const auto part = isocost::partition(t, Speeds::uniform(8), options);
  int covered = 0;
  for (int i = 0; i < 8; ++i) {
    EXPECT_LE(part.cuts[i], part.cuts[i + 1]);
    covered += static_cast<int>(part.cuts[i + 1] - part.cuts[i]);
  }
  EXPECT_EQ(covered, 5);
}

TEST(IntegerPartition, NonIntegerDomainIsAnError) {
  const auto t = isocost::power_model(1, 1, 0, 0.5, 5);
  PartitionOptions options;
  options.integer = true;
  expect_error([&] { isocost::partition(t, Speeds::uniform(2), options); }, {"integers", "0.5"});
  expect_error([&] { isocost::rank_range(t, 0, Speeds::uniform(2), options); }, {"0.5"});
}

TEST(Partition, BadOptionsAreErrors) {
  const auto t = isocost::power_model(1, 1, 0, 0, 5);
  PartitionOptions options;
  options.cut.cost_tolerance = -1;
  expect_error([&] { isocost::partition(t, Speeds::uniform(2), options); }, {"cost_tolerance"});
}

TEST(Partition, BriefReportStatesTheNumbers) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  const auto part = isocost::partition(t, Speeds::uniform(16));
  const auto report = part.brief_report();
  EXPECT_NE(report.find("16 ranks"), std::string::npos) << report;
  EXPECT_NE(report.find("all cuts converged"), std::string::npos) << report;
  EXPECT_NEAR(part.predicted_le, 100, 1e-8);
}

}  // namespace

namespace {

// A budget too small to converge is reported, and the cuts still tile the
// domain in order (each is the best point its solve evaluated).
TEST(Partition, UnconvergedCutsAreReportedAndStillOrdered) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  for (bool warm : {true, false}) {
    PartitionOptions options;
    options.warm_start = warm;
    options.cut.method = CutMethod::bisection;
    options.cut.max_iterations = 1;  // one midpoint per cut
    const auto part = isocost::partition(t, Speeds::uniform(8), options);
    EXPECT_FALSE(part.converged());
    EXPECT_NE(part.brief_report().find("NOT all cuts converged"), std::string::npos);
    for (int i = 0; i < 8; ++i) EXPECT_LE(part.cuts[i], part.cuts[i + 1]) << i;
    int limited = 0;
    for (const auto& s : part.summaries)
      limited += s.termination == isocost::CutTermination::iteration_limit ? 1 : 0;
    EXPECT_GT(limited, 0);
  }
}

}  // namespace

namespace {

// Repartitioning starts each cut from the current one: from the exact cuts a
// Newton solve has nothing left to do.
TEST(Partition, InitialCutsWarmStartEachCut) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  const auto speeds = Speeds::uniform(16);
  const auto first = isocost::partition(t, speeds);
  PartitionOptions options;
  options.initial_cuts = first.cuts;
  for (bool warm : {true, false}) {
    options.warm_start = warm;
    const auto again = isocost::partition(t, speeds, options);
    for (int i = 0; i <= 16; ++i) {
      EXPECT_NEAR(again.cuts[i], first.cuts[i], 1e-9 * first.cuts[i]) << i;
      EXPECT_LE(again.summaries[i].iterations, 1) << i;
    }
    const auto r = isocost::rank_range(t, 5, speeds, options);
    EXPECT_EQ(r.lo, again.cuts[5]);
  }
  options.initial_cuts = {1, 2, 3};
  expect_error([&] { isocost::partition(t, speeds, options); }, {"initial_cuts", "17", "got 3"});
  options.initial_cuts = first.cuts;
  options.initial_cuts[3] = std::nan("");
  expect_error([&] { isocost::partition(t, speeds, options); },
               {"initial_cuts[3]: expected a finite number, got nan"});
}

}  // namespace

namespace {

// The most parts partition() accepts (limits.hpp): above it an Error names the
// count and the limit before anything is allocated; one rank's range needs no
// such memory and has no such limit.
TEST(Partition, PartsAboveTheLimitAreAnError) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  expect_error([&] { isocost::partition(t, Speeds::uniform(1'000'000'000)); },
               {"partition: 1000000000 is above the limit of 10000000 parts"});
  expect_error(
      [] {
        Speeds::from_node_types({{9'000'000, 1.0}, {1'000'001, 3.0}});
      },
      {"node types: 10000001 is above the limit of 10000000 ranks in total"});
  EXPECT_EQ(Speeds::from_node_types({{9'000'000, 1.0}, {1'000'000, 3.0}}).ranks(),
            isocost::kMaxParts);
  const auto mine = isocost::rank_range(t, 999'999'999, Speeds::uniform(1'000'000'000));
  EXPECT_EQ(mine.hi, 268435456);
  EXPECT_LT(mine.lo, mine.hi);
}

}  // namespace

namespace {

// Warm start guesses each cut from the cuts before it, as a quadratic in the
// target once there are three: on a smooth model Newton then mostly needs two
// evaluations per cut (a guess within O(h^3), one step), where the linear
// extrapolation of two cuts often needed three. The cuts stay the same roots.
TEST(Partition, WarmStartOnASmoothModelTakesAboutTwoEvaluationsPerCut) {
  const auto t = isocost::sieve_model({}, 6, 268435456);
  const int P = 4096;
  const auto warm = isocost::partition(t, Speeds::uniform(P));
  PartitionOptions cold;
  cold.warm_start = false;
  const auto part = isocost::partition(t, Speeds::uniform(P), cold);
  int most = 0;
  double total = 0;
  for (int i = 4; i < P; ++i) {
    most = std::max(most, warm.summaries[i].evaluations);
    total += warm.summaries[i].evaluations;
    EXPECT_TRUE(warm.summaries[i].converged()) << i;
    EXPECT_NEAR(warm.cuts[i], part.cuts[i], 1e-10 * part.cuts[i]) << i;
  }
  // Measured: 2 evaluations for 3985 of the 4092 cuts, 2.03 on average; the
  // linear guess took 2 for 2378 of them, 2.42 on average.
  EXPECT_LE(total, 2.1 * (P - 4));
  EXPECT_LE(most, 6);
}

}  // namespace
