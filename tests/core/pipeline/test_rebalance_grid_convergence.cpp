// Repeated global repartition of a grid from per-part loads alone, on static
// loads (issue #12): the 2-D counterpart of test_rebalance_convergence.cpp.
// Each round measures the exact cost of every part of a fixed per-cell cost
// and plans from it and the earlier rounds (rebalance_grid_global()'s
// history, as the GridBalancer keeps it). Deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/rebalance_grid.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::GridRound;
using isocost::GridShape;
using isocost::Speeds;
using isocost::testing::expect_error;

const std::int64_t n = 128;

std::vector<double> shape2d(const std::string& name) {
  std::vector<double> w(static_cast<std::size_t>(n * n));
  std::mt19937 g(5);
  std::uniform_real_distribution<> u(0, 1);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      const double x = (static_cast<double>(i) + 0.5) / n, y = (static_cast<double>(j) + 0.5) / n;
      double v = 1;
      if (name == "hot spot")
        v = 1 + 50 * std::exp(-(std::pow(x - 0.63, 2) + std::pow(y - 0.4, 2)) / (0.05 * 0.05));
      if (name == "step") v = x + y < 1.2 ? 1 : 5;
      if (name == "spikes") v = u(g) < 0.01 ? 10 : 1;
      w[static_cast<std::size_t>(i + n * j)] = v;
    }
  return w;
}

// max/avg of the parts' exact costs.
std::vector<double> part_costs(const isocost::Decomposition& d, const std::vector<double>& w) {
  std::vector<double> c;
  for (const auto& p : d.parts) {
    double s = 0;
    for (std::int64_t j = p.cell_lo[1]; j < p.cell_hi[1]; ++j)
      for (std::int64_t i = p.cell_lo[0]; i < p.cell_hi[0]; ++i)
        s += w[static_cast<std::size_t>(i + n * j)];
    c.push_back(s);
  }
  return c;
}

// As the GridBalancer keeps its history: a round on the same parts as a kept
// one replaces it (identical rounds would crowd out the informative ones).
void keep_round(std::vector<GridRound>& past, GridRound round, int history) {
  if (history == 0) return;
  for (auto it = past.begin(); it != past.end(); ++it) {
    bool same = true;
    for (std::size_t r = 0; r < round.parts.parts.size() && same; ++r)
      same = it->parts.parts[r].cell_lo == round.parts.parts[r].cell_lo &&
             it->parts.parts[r].cell_hi == round.parts.parts[r].cell_hi;
    if (same) {
      past.erase(it);
      break;
    }
  }
  past.push_back(std::move(round));
  if (static_cast<int>(past.size()) > history) past.erase(past.begin());
}

// The best jagged split on grid lines: decompose() of the exact costs.
double optimum(const std::string& name, int px, int py) {
  const GridShape shape{2, {n, n, 1}};
  const std::vector<double> w = shape2d(name);
  const auto d = isocost::decompose(isocost::grid_density(w, shape), {{px, py}, {0, 1}},
                                    Speeds::uniform(px * py));
  const auto c = part_costs(d, w);
  return *std::max_element(c.begin(), c.end()) /
         (std::accumulate(c.begin(), c.end(), 0.0) / c.size());
}

std::vector<double> trace_of(const std::string& name, int px, int py, int history, int rebalances,
                             std::vector<int>* used = nullptr) {
  const GridShape shape{2, {n, n, 1}};
  const std::vector<double> w = shape2d(name);
  const int P = px * py;
  isocost::Decomposition d =
      isocost::decompose(isocost::grid_density(std::vector<double>(w.size(), 1.0), shape),
                         {{px, py}, {0, 1}}, Speeds::uniform(P));
  std::vector<GridRound> past;
  std::vector<double> ratio;
  for (int k = 0; k <= rebalances; ++k) {
    const std::vector<double> loads = part_costs(d, w);
    const double avg = std::accumulate(loads.begin(), loads.end(), 0.0) / P;
    ratio.push_back(*std::max_element(loads.begin(), loads.end()) / avg);
    if (k == rebalances) break;
    const auto plan = isocost::rebalance_grid_global(shape, d, loads, Speeds::uniform(P), {}, past);
    if (used) used->push_back(plan.history_used);
    keep_round(past, {d, loads}, history);
    d = plan.decomposition;
  }
  return ratio;
}

std::string text(const std::vector<double>& r) {
  std::string s;
  for (double v : r) s += (s.empty() ? "" : " -> ") + std::to_string(v);
  return s;
}

// The target on a grid of cells: within 4 rebalances, max/avg within
// 2 % of the best jagged split on grid lines (decompose() of the exact costs;
// a 128² grid cannot do better than its cells allow), and staying there.
TEST(RebalanceGridConvergence, StaticLoadsWithinFourRebalances) {
  for (const char* name : {"hot spot", "step", "spikes"})
    for (auto [px, py] : {std::pair{2, 1}, std::pair{2, 2}, std::pair{4, 2}}) {
      std::vector<int> used;
      const auto r = trace_of(name, px, py, 4, 8, &used);
      const double best = optimum(name, px, py);
      SCOPED_TRACE(std::string(name) + " " + std::to_string(px) + "x" + std::to_string(py) + ": " +
                   text(r) + "; optimum " + std::to_string(best));
      int first = -1;
      for (std::size_t k = 0; k < r.size(); ++k)
        if (first < 0 && r[k] <= 1.02 * best) first = static_cast<int>(k);
      ASSERT_GE(first, 0);
      EXPECT_LE(first, 4);
      for (std::size_t k = static_cast<std::size_t>(first); k < r.size(); ++k)
        EXPECT_LE(r[k], 1.02 * best) << "round " << k;
      for (std::size_t k = 2; k < r.size(); ++k)
        EXPECT_LE(r[k], std::max(1.02 * best, 1.02 * r[k - 1])) << "round " << k;
      // Every plan after the first used the earlier rounds it had.
      for (std::size_t k = 1; k < used.size(); ++k) EXPECT_GE(used[k], 1) << "plan " << k;
    }
}

TEST(RebalanceGridConvergence, WithoutHistoryAHotSpotCycles) {
  // One load per part places all of a part's cost evenly in it; the plan
  // from that alone keeps misplacing the cuts around a hot spot.
  const auto r = trace_of("hot spot", 2, 2, 0, 8);
  SCOPED_TRACE(text(r));
  for (std::size_t k = 4; k < r.size(); ++k) EXPECT_GT(r[k], 1.2) << "round " << k;
}

TEST(RebalanceGridConvergence, DriftedRoundsAreLeftOut) {
  // A round measured on another load (all the cost in the left half, where
  // the current round finds a quarter of it) cannot be met with the current
  // one: it is left out, and the plan is the current round's alone.
  const GridShape shape{2, {8, 8, 1}};
  const std::vector<double> ones(64, 1.0);
  const auto d =
      isocost::decompose(isocost::grid_density(ones, shape), {{2}, {0}}, Speeds::uniform(2));
  const std::vector<double> now{1, 3}, then{4, 0};
  const std::vector<GridRound> stale{{d, then}};
  const auto plan = isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), {}, stale);
  EXPECT_EQ(plan.history_used, 0);
  EXPECT_EQ(plan.history_dropped, 1);
  EXPECT_NE(plan.brief_report().find("1 drifted rounds left out"), std::string::npos)
      << plan.brief_report();
  const auto alone = isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2));
  EXPECT_EQ(plan.decomposition.parts[0].cell_hi[0], alone.decomposition.parts[0].cell_hi[0]);
  // The same round measured on the same load is merged.
  const std::vector<GridRound> fresh{{d, now}};
  EXPECT_EQ(
      isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), {}, fresh).history_used, 1);
  // The options' history count is how many of the newest rounds are used.
  const std::vector<GridRound> three{{d, now}, {d, now}, {d, now}};
  isocost::GridGlobalRebalanceOptions options;
  options.history = 2;
  EXPECT_EQ(isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), options, three)
                .history_used,
            2);
  options.history = 0;
  EXPECT_EQ(isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), options, three)
                .history_used,
            0);
}

TEST(RebalanceGridConvergence, HistoryRoundsMustTileTheGrid) {
  const GridShape shape{2, {8, 8, 1}};
  const std::vector<double> ones(64, 1.0);
  const auto d =
      isocost::decompose(isocost::grid_density(ones, shape), {{2}, {0}}, Speeds::uniform(2));
  const std::vector<double> now{1, 3};
  auto overlap = d;
  overlap.parts[0].cell_hi[0] += 1;  // part 0 reaches into part 1's first column
  expect_error(
      [&] {
        isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), {}, {{{overlap, now}}});
      },
      {"history round 0 does not tile the grid: parts holding cell (4, 0): expected 1, got 2"});
  auto outside = d;
  outside.parts[1].cell_hi[0] = 9;
  expect_error(
      [&] {
        isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), {}, {{{outside, now}}});
      },
      {"history round 0: cells of part 1 along axis 0: expected a range within [0, 8], got [4, "
       "9)"});
  const std::vector<GridRound> wrong_count{{d, {1, 2, 3}}};
  expect_error(
      [&] { isocost::rebalance_grid_global(shape, d, now, Speeds::uniform(2), {}, wrong_count); },
      {"history round 0: expected 2 parts and 2 loads, got 2 parts and 3 loads"});
}

}  // namespace
