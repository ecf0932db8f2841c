// Tests for isocost/merge.hpp: several runs' timings merged into one
// cumulative cost, against costs known in closed form, and split_runs().
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "isocost/merge.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::IntervalSample;
using isocost::MergeOptions;
using isocost::Samples;

// Cumulative cost of the density 1 + 3x on [0, 10]: T(x) = x + 1.5x².
double T(double x) { return x + 1.5 * x * x; }

Samples timed(const std::vector<double>& ends, double noise = 0, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<> u(-1, 1);
  std::vector<IntervalSample> rows;
  for (std::size_t k = 0; k + 1 < ends.size(); ++k)
    rows.push_back({ends[k], ends[k + 1], (T(ends[k + 1]) - T(ends[k])) * (1 + noise * u(gen))});
  return Samples(rows);
}

TEST(MergeRuns, AgreeingRunsGiveTheTrueCumulativeAtEveryEnd) {
  // Three partitions of [0, 10]: every end of every run is an atom end, and
  // there the merge equals T, though no run timed [0, x) for most of them.
  const std::vector<Samples> runs{timed({0, 2.5, 5, 7.5, 10}), timed({0, 1, 4, 9, 10}),
                                  timed({0, 3.3, 6.1, 10})};
  const auto m = isocost::merge_runs(runs);
  const std::vector<double> ends{0, 1, 2.5, 3.3, 4, 5, 6.1, 7.5, 9, 10};
  ASSERT_EQ(m.x, ends);
  for (std::size_t i = 0; i < ends.size(); ++i) EXPECT_NEAR(m.t[i], T(ends[i]), 1e-9 * T(10));
  EXPECT_TRUE(m.converged()) << m.brief_report();
  EXPECT_EQ(m.runs_used, 3);
  EXPECT_EQ(m.runs_dropped, 0);
  for (const double miss : m.run_misfit) EXPECT_LT(miss, 1e-9);
  // As one run: the atoms tile [0, 10] with the true costs.
  const Samples one = m.samples();
  EXPECT_TRUE(one.tiles());
  EXPECT_EQ(one.size(), ends.size() - 1);
  EXPECT_NEAR(one.intervals()[2].dt, T(3.3) - T(2.5), 1e-9 * T(10));
}

TEST(MergeRuns, RunsThatDoNotStartTogetherAreFittedByProportions) {
  // [0, 4) and [4, 10) of one run, [2, 6) alone and [0, 2) alone: no chain
  // from 0 ends at 6, so the start is each atom's density and the sweeps do
  // the work. Four atoms, four independent sums: T at every end is fixed.
  const Samples a({{0, 4, T(4)}, {4, 10, T(10) - T(4)}});
  const Samples c({{2, 6, T(6) - T(2)}});
  const Samples d({{0, 2, T(2)}});
  const std::vector<Samples> runs{a, c, d};
  const auto m = isocost::merge_runs(runs);
  EXPECT_TRUE(m.converged()) << m.brief_report();
  EXPECT_GT(m.sweeps, 1);
  ASSERT_EQ(m.x, (std::vector<double>{0, 2, 4, 6, 10}));
  for (std::size_t i = 0; i < m.x.size(); ++i) EXPECT_NEAR(m.t[i], T(m.x[i]), 1e-8 * T(10));
}

TEST(MergeRuns, DisagreeingRunsKeepTheNewestExactly) {
  // The same partitions timed with ±2 % noise: they cannot all hold. The
  // newest holds exactly; the others are missed by about the noise; the
  // merge stays within a few noise widths of the truth.
  const std::vector<Samples> runs{timed({0, 2.5, 5, 7.5, 10}, 0.02, 1),
                                  timed({0, 1, 4, 9, 10}, 0.02, 2)};
  const auto m = isocost::merge_runs(runs);
  EXPECT_EQ(m.termination, isocost::Termination::iteration_limit) << m.brief_report();
  EXPECT_EQ(m.sweeps, MergeOptions{}.max_sweeps);
  ASSERT_EQ(m.run_misfit.size(), 2u);
  EXPECT_LT(m.run_misfit[1], 1e-12);
  EXPECT_GT(m.run_misfit[0], 1e-4);
  EXPECT_LT(m.run_misfit[0], 0.1);
  for (std::size_t i = 0; i < m.x.size(); ++i)
    EXPECT_NEAR(m.t[i], T(m.x[i]), 0.06 * T(m.x[i]) + 1e-12) << "at " << m.x[i];
  for (std::size_t i = 1; i < m.t.size(); ++i) EXPECT_GE(m.t[i], m.t[i - 1]);
  EXPECT_NE(m.brief_report().find("merged 2 runs into"), std::string::npos) << m.brief_report();
}

TEST(MergeRuns, AToleranceDropsADriftedRunAndItsEnds) {
  // The older run timed another cost (all of it in [0, 3)): with a tolerance
  // it is left out, and its end 3 is no point of the merge.
  const Samples old({{0, 3, 100}, {3, 10, 1}});
  const Samples now = timed({0, 5, 10});
  const std::vector<Samples> runs{old, now};
  MergeOptions o;
  o.tolerance = 0.05;
  const auto m = isocost::merge_runs(runs, o);
  EXPECT_EQ(m.runs_used, 1);
  EXPECT_EQ(m.runs_dropped, 1);
  EXPECT_EQ(m.x, (std::vector<double>{0, 5, 10}));
  EXPECT_TRUE(std::isnan(m.run_misfit[0]));
  // Without one, both are merged (as well as they can be).
  EXPECT_EQ(isocost::merge_runs(runs).runs_used, 2);
}

TEST(MergeRuns, BadInputIsNamed) {
  using isocost::testing::expect_error;
  const std::vector<Samples> gap{Samples({{0, 1, 1}, {2, 3, 1}})};
  expect_error([&] { isocost::merge_runs(gap); }, {"no run times [1, 2]", "[0, 3]"});
  const std::vector<Samples> overlap{Samples({{0, 2, 1}, {1, 3, 1}})};
  expect_error([&] { isocost::merge_runs(overlap); }, {"run 0 has overlapping samples"});
  expect_error([&] { isocost::merge_runs(std::vector<Samples>{}); }, {"no runs"});
  MergeOptions o;
  o.max_sweeps = 0;
  expect_error([&] { isocost::merge_runs(gap, o); }, {"merge options", "max_sweeps"});
}

TEST(SplitRuns, RowsOfTwoPartitionsComeBackAsThem) {
  const Samples rows({{0, 5, 1}, {5, 10, 1}, {0, 2, 1}, {2, 7, 1}, {7, 10, 1}, {3, 4, 1}});
  const auto runs = isocost::split_runs(rows);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].size(), 2u);
  EXPECT_TRUE(runs[0].tiles());
  EXPECT_EQ(runs[1].size(), 3u);
  EXPECT_TRUE(runs[1].tiles());
  EXPECT_EQ(runs[2].size(), 1u);  // [3, 4) overlaps both
  // One run, and cumulative samples, are one run.
  EXPECT_EQ(isocost::split_runs(timed({0, 1, 2})).size(), 1u);
  EXPECT_EQ(isocost::split_runs(Samples::from_cumulative({0, 1, 2, 3}, {0, 1, 3, 6})).size(), 1u);
}

TEST(MergedRuns, AtomsOfNoCostJoinANeighbour) {
  // [2, 3) costs nothing: as samples it joins [0, 2), and a free start joins
  // the first costly atom.
  isocost::MergedRuns m;
  m.x = {0, 1, 2, 3, 4};
  m.t = {0, 0, 2, 2, 5};
  const Samples s = m.samples();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.intervals()[0].lo, 0);
  EXPECT_EQ(s.intervals()[0].hi, 3);
  EXPECT_EQ(s.intervals()[0].dt, 2);
  EXPECT_EQ(s.intervals()[1].lo, 3);
  EXPECT_EQ(s.intervals()[1].dt, 3);
}

}  // namespace
