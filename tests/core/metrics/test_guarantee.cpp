// Tests for isocost/guarantee.hpp: the balance interval timings guarantee,
// against hand-computed ranges and, over random densities, sample counts,
// part counts and speeds, against the true L_E of the partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "isocost/guarantee.hpp"
#include "isocost/metrics.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::IntervalSample;
using isocost::Samples;
using isocost::Speeds;

Samples three() { return Samples({{0, 1, 1}, {1, 2, 3}, {2, 3, 1}}); }

TEST(Guarantee, ACutInsideAnIntervalMayTakeAllOfItOrNone) {
  const std::vector<double> cuts{0, 1.5, 3};
  const auto g = isocost::guaranteed_balance(three(), cuts, Speeds::uniform(2));
  // Each part holds 1 for sure and up to 4; T = 5, T_avg = 2.5.
  EXPECT_DOUBLE_EQ(g.t_max_hi, 4);
  EXPECT_DOUBLE_EQ(g.t_max_lo, 2.5);
  EXPECT_DOUBLE_EQ(g.le_lo, 100 * (2 - 4 / 2.5));  // 40 %
  EXPECT_DOUBLE_EQ(g.le_hi, 100);
  EXPECT_EQ(g.limiting_part, 0);
  ASSERT_EQ(g.limiting.size(), 1u);
  EXPECT_EQ(g.limiting[0], (std::pair<double, double>{1, 2}));
  // [1, 2] holds 3 > one share (2.5), and the cut lies inside it.
  EXPECT_EQ(g.coarse_cuts, 1);
  EXPECT_DOUBLE_EQ(g.coarse_lo, 1);
  EXPECT_DOUBLE_EQ(g.coarse_hi, 2);
  EXPECT_DOUBLE_EQ(g.coarse_shares, 3 / 2.5);
  EXPECT_NE(g.brief_report().find("guaranteed L_E 40 to 100 %"), std::string::npos)
      << g.brief_report();
}

TEST(Guarantee, CutsOnSampleEndsAreExact) {
  const std::vector<double> cuts{0, 2, 3};
  const auto g = isocost::guaranteed_balance(three(), cuts, Speeds::uniform(2));
  EXPECT_DOUBLE_EQ(g.le_lo, 40);  // T_max = 4 exactly
  EXPECT_DOUBLE_EQ(g.le_hi, 40);
  EXPECT_TRUE(g.limiting.empty());
  EXPECT_EQ(g.coarse_cuts, 0);
  // With every timing within ±10 %: 3.6 <= T_max <= 4.4, 4.5 <= T <= 5.5.
  const auto n = isocost::guaranteed_balance(three(), cuts, Speeds::uniform(2), 0.1);
  EXPECT_DOUBLE_EQ(n.le_lo, 100 * (2 - 4.4 / 2.25));
  EXPECT_DOUBLE_EQ(n.le_hi, 100 * (2 - 3.6 / 2.75));
}

TEST(Guarantee, APartBeyondTheTimedSpanIsUnbounded) {
  const std::vector<double> cuts{-1, 1.5, 3};
  const auto g = isocost::guaranteed_balance(three(), cuts, Speeds::uniform(2));
  EXPECT_FALSE(g.covered);
  EXPECT_TRUE(std::isinf(g.le_lo) && g.le_lo < 0);
  EXPECT_NE(g.brief_report().find("beyond the timed span"), std::string::npos);
}

TEST(Guarantee, BadInput) {
  using isocost::testing::expect_error;
  const std::vector<double> ok{0, 1.5, 3};
  expect_error([&] { isocost::guaranteed_balance(three(), ok, Speeds::uniform(2), 1.0); },
               {"noise", "[0, 1)", "1"});
  expect_error([&] { isocost::guaranteed_balance(three(), ok, Speeds::uniform(3)); },
               {"3 speeds for 2 parts"});
  const std::vector<double> down{0, 2, 1.5};
  expect_error([&] { isocost::guaranteed_balance(three(), down, Speeds::uniform(2)); },
               {"cut 2", "nondecreasing", "1.5"});
  // Two runs, neither timing all of [0, 3]: the total is unknown.
  const Samples two_runs({{0, 2, 1}, {1, 3, 1}});
  expect_error([&] { isocost::guaranteed_balance(two_runs, ok, Speeds::uniform(2)); },
               {"no run times the whole span [0, 3]"});
  const std::vector<Samples> none;
  expect_error([&] { isocost::guaranteed_balance(none, ok, Speeds::uniform(2)); }, {"no runs"});
}

// A piecewise-constant density on F fine cells of [0, F): its cost on [a, b].
struct Fine {
  std::vector<double> prefix;  // prefix[i]: cost of [0, i)
  double cost(double a, double b) const {
    const auto at = [&](double x) {
      const auto i = static_cast<std::size_t>(
          std::clamp(std::floor(x), 0.0, static_cast<double>(prefix.size() - 2)));
      return prefix[i] + (x - static_cast<double>(i)) * (prefix[i + 1] - prefix[i]);
    };
    return at(b) - at(a);
  }
};

// Over random densities (peaks, steps, smooth), 4–32 samples of one run,
// 2–64 parts at random cuts and speeds, exact and noisy timings: the true L_E
// always lies in the guaranteed range.
TEST(Guarantee, TheTrueBalanceIsAlwaysInTheRange) {
  std::mt19937 gen(2026);
  std::uniform_real_distribution<> u(0, 1);
  const int F = 2048;
  int cases = 0, inside_heavy = 0;
  for (int trial = 0; trial < 600; ++trial) {
    // The density.
    std::vector<double> w(F);
    const int shape = trial % 3;
    const double c = u(gen) * F, width = (0.005 + 0.1 * u(gen)) * F;
    for (int i = 0; i < F; ++i) {
      const double x = i + 0.5;
      w[static_cast<std::size_t>(i)] = shape == 0 ? 1 + 40 * std::exp(-std::pow((x - c) / width, 2))
                                       : shape == 1
                                           ? (x < c ? 1 : 1 + 9 * u(gen))
                                           : 1 + std::pow(x / F, 1.5) + 0.3 * std::sin(x / width);
    }
    Fine fine{{0}};
    for (double v : w) fine.prefix.push_back(fine.prefix.back() + v);
    // Samples of one run with timings off by up to ±noise.
    const int n = 4 + static_cast<int>(u(gen) * 29);
    const double noise = trial % 2 == 0 ? 0.0 : 0.02;
    std::vector<double> ends{0};
    for (int k = 1; k < n; ++k) ends.push_back(F * (k + 0.8 * (u(gen) - 0.5)) / n);
    ends.push_back(F);
    std::sort(ends.begin(), ends.end());
    std::vector<IntervalSample> rows;
    for (int k = 0; k < n; ++k) {
      const double truth = fine.cost(ends[k], ends[k + 1]);
      rows.push_back({ends[k], ends[k + 1], truth * (1 + noise * (2 * u(gen) - 1))});
    }
    // Parts.
    const int P = 2 + static_cast<int>(u(gen) * 63);
    std::vector<double> cuts{0};
    for (int k = 1; k < P; ++k) cuts.push_back(u(gen) * F);
    cuts.push_back(F);
    std::sort(cuts.begin(), cuts.end());
    std::vector<double> s(static_cast<std::size_t>(P), 1.0);
    if (trial % 4 == 3)
      for (double& v : s) v = 0.5 + 2 * u(gen);
    const Speeds speeds = Speeds::from_values(s);
    const auto g = isocost::guaranteed_balance(Samples(rows), cuts, speeds, noise);
    std::vector<double> times;
    for (int k = 0; k < P; ++k)
      times.push_back(
          fine.cost(cuts[static_cast<std::size_t>(k)], cuts[static_cast<std::size_t>(k) + 1]) /
          s[static_cast<std::size_t>(k)]);
    const auto stats = isocost::load_stats(times);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + g.brief_report());
    EXPECT_GE(stats.le, g.le_lo - 1e-9);
    EXPECT_LE(stats.le, g.le_hi + 1e-9);
    EXPECT_GE(stats.max, g.t_max_lo * (1 - 1e-12));
    EXPECT_LE(stats.max, g.t_max_hi * (1 + 1e-12));
    ++cases;
    inside_heavy += g.coarse_cuts > 0 ? 1 : 0;
  }
  EXPECT_EQ(cases, 600);
  EXPECT_GT(inside_heavy, 0);  // the coarse case occurs among them
}

// A second run timed on other ends resolves what the first could not: its
// parts hold, for sure, what its intervals inside them hold.
TEST(Guarantee, ASecondRunNarrowsTheRange) {
  const std::vector<double> cuts{0, 1.5, 3};
  const auto one = isocost::guaranteed_balance(three(), cuts, Speeds::uniform(2));
  // The same cost (1, 3, 1 on unit intervals, with [1, 2] split 1.5 + 1.5)
  // timed on [0, 1.5] and [1.5, 3]: each part is timed exactly.
  const std::vector<Samples> runs{three(), Samples({{0, 1.5, 2.5}, {1.5, 3, 2.5}})};
  const auto two = isocost::guaranteed_balance(runs, cuts, Speeds::uniform(2));
  EXPECT_DOUBLE_EQ(one.le_lo, 40);
  EXPECT_DOUBLE_EQ(two.le_lo, 100);
  EXPECT_DOUBLE_EQ(two.t_max_hi, 2.5);
  EXPECT_EQ(two.coarse_cuts, 0);  // the second run has an end at the cut
  // Given as rows of one file, the runs are found (split_runs()) alike.
  const Samples rows({{0, 1, 1}, {1, 2, 3}, {2, 3, 1}, {0, 1.5, 2.5}, {1.5, 3, 2.5}});
  EXPECT_DOUBLE_EQ(isocost::guaranteed_balance(rows, cuts, Speeds::uniform(2)).le_lo, 100);
}

// Over random densities, a first run and one to three more on other ends
// (each timed within ±noise): the true L_E lies in the range of every set of
// runs, and each run added keeps the range inside the one before.
TEST(Guarantee, TheRangeHoldsAndNarrowsAsRunsAreAdded) {
  std::mt19937 gen(77);
  std::uniform_real_distribution<> u(0, 1);
  const int F = 1024;
  int narrowed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> w(F);
    const double c = u(gen) * F, width = (0.01 + 0.1 * u(gen)) * F;
    for (int i = 0; i < F; ++i)
      w[static_cast<std::size_t>(i)] = 1 + 30 * std::exp(-std::pow((i + 0.5 - c) / width, 2));
    Fine fine{{0}};
    for (double v : w) fine.prefix.push_back(fine.prefix.back() + v);
    const double noise = trial % 2 == 0 ? 0.0 : 0.01;
    const auto timed_run = [&](int n) {
      std::vector<double> ends{0};
      for (int k = 1; k < n; ++k) ends.push_back(u(gen) * F);
      ends.push_back(F);
      std::sort(ends.begin(), ends.end());
      std::vector<IntervalSample> rows;
      for (int k = 0; k < n; ++k)
        if (ends[k + 1] > ends[k])
          rows.push_back({ends[k], ends[k + 1],
                          fine.cost(ends[k], ends[k + 1]) * (1 + noise * (2 * u(gen) - 1))});
      return Samples(rows);
    };
    const int P = 2 + static_cast<int>(u(gen) * 30);
    std::vector<double> cuts{0};
    for (int k = 1; k < P; ++k) cuts.push_back(u(gen) * F);
    cuts.push_back(F);
    std::sort(cuts.begin(), cuts.end());
    std::vector<double> times;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
      times.push_back(fine.cost(cuts[k], cuts[k + 1]));
    const double truth = isocost::load_stats(times).le;
    std::vector<Samples> runs{timed_run(4 + static_cast<int>(u(gen) * 20))};
    auto before = isocost::guaranteed_balance(runs, cuts, Speeds::uniform(P), noise);
    const int more = 1 + trial % 3;
    for (int r = 0; r < more; ++r) {
      runs.push_back(timed_run(4 + static_cast<int>(u(gen) * 20)));
      const auto g = isocost::guaranteed_balance(runs, cuts, Speeds::uniform(P), noise);
      SCOPED_TRACE("trial " + std::to_string(trial) + ", runs " + std::to_string(runs.size()) +
                   ": " + g.brief_report());
      EXPECT_GE(truth, g.le_lo - 1e-9);
      EXPECT_LE(truth, g.le_hi + 1e-9);
      EXPECT_GE(g.le_lo, before.le_lo - 1e-9);
      EXPECT_LE(g.le_hi, before.le_hi + 1e-9);
      narrowed += g.le_lo > before.le_lo + 1e-6 ? 1 : 0;
      before = g;
    }
  }
  EXPECT_GT(narrowed, 100);  // adding runs does narrow it, not just keep it
}

}  // namespace
