// The GridBalancer learning the ranks' speeds (learn_speeds) under mpiexec
// (CTest: 2, 3 and 4 ranks): exact loads of a broad bump on a grid, each
// rank's time divided by a speed the balancer is not told. It must end as
// balanced as with the true speeds given, learn them, normalise per-cell
// costs timed on their ranks, and log what it learned.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "isocost/mpi/grid_balancer.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::GridBalancer;
using isocost::mpi::GridBalancerOptions;
using isocost::testing::rank_of;
using isocost::testing::size_of;

constexpr std::int64_t kBumpCells = 96;

// Cell (i, j)'s cost: a bump half the grid wide on a floor.
double bump_cost(std::int64_t i, std::int64_t j) {
  const double x = (static_cast<double>(i) + 0.5) / kBumpCells,
               y = (static_cast<double>(j) + 0.5) / kBumpCells;
  return 1e-4 * (1 + 20 * std::exp(-((x - 0.63) * (x - 0.63) + (y - 0.4) * (y - 0.4)) / 0.25));
}

// The last rank 3× as fast as the others.
std::vector<double> fast_last(int P) {
  std::vector<double> s(static_cast<std::size_t>(P), 1.0);
  s.back() = 3;
  return s;
}

GridBalancerOptions grid_every_step() {
  GridBalancerOptions o;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.monitor.window = 1;
  o.pipeline.trigger.every = 1;
  o.pipeline.trigger.drift_threshold = 1e-9;
  o.pipeline.policy = isocost::mpi::BalancePolicy::global;
  return o;
}

struct LearnRun {
  std::vector<double> ratio;  // max/avg of the times, each step
  std::vector<std::string> logs, reports;
};

// What the code gives set_costs(): nothing, each cell's cost, or each
// cell's time as measured on its rank (cost / that rank's speed).
enum class CellCosts { none, exact, timed };

// `steps` steps of exact times on a jagged grid from uniform cuts.
LearnRun run_learning(const GridBalancerOptions& o, int steps, CellCosts costs = CellCosts::none) {
  const int P = size_of(), rank = rank_of();
  const isocost::GridShape shape{2, {kBumpCells, kBumpCells, 1}};
  const int px = P == 4 ? 2 : P, py = P / px;
  GridBalancer b(MPI_COMM_WORLD, shape,
                 isocost::decompose(isocost::grid_density(
                                        std::vector<double>(kBumpCells * kBumpCells, 1.0), shape),
                                    {{px, py}, {0, 1}}, isocost::Speeds::uniform(P)),
                 o);
  const std::vector<double> s = fast_last(P);
  std::vector<double> data(static_cast<std::size_t>(b.local_count()), 1.0);
  LearnRun out;
  for (int step = 0; step < steps; ++step) {
    std::vector<double> t(static_cast<std::size_t>(P), 0.0);
    for (int r = 0; r < P; ++r) {
      const auto& box = b.boxes().boxes[static_cast<std::size_t>(r)];
      for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
        for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i)
          t[static_cast<std::size_t>(r)] += bump_cost(i, j) / s[static_cast<std::size_t>(r)];
    }
    out.ratio.push_back(*std::max_element(t.begin(), t.end()) /
                        (std::accumulate(t.begin(), t.end(), 0.0) / P));
    b.record_step(t[static_cast<std::size_t>(rank)]);
    if (costs != CellCosts::none) {
      std::vector<double> mine;
      const auto& box = b.boxes().boxes[static_cast<std::size_t>(rank)];
      for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
        for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i)
          mine.push_back(bump_cost(i, j) /
                         (costs == CellCosts::timed ? s[static_cast<std::size_t>(rank)] : 1.0));
      b.set_costs(mine);
    }
    const auto event = b.maybe_rebalance(data);
    out.logs.push_back(event.to_json());
    out.reports.push_back(event.full_report());
  }
  EXPECT_EQ(static_cast<std::int64_t>(data.size()), b.local_count());
  return out;
}

std::string ratios_text(const std::vector<double>& ratio) {
  std::string s;
  for (double r : ratio) s += std::to_string(r).substr(0, 6) + " ";
  return s;
}

TEST(GridBalancerSpeeds, UnknownSpeedsBalanceAsGivenWithinFourRebalances) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank has nothing to learn";
  GridBalancerOptions given = grid_every_step();
  given.speeds = isocost::Speeds::from_values(fast_last(P));
  GridBalancerOptions learning = grid_every_step();
  learning.learn_speeds = true;
  const int steps = 8;
  const LearnRun known = run_learning(given, steps), learned = run_learning(learning, steps),
                 equal = run_learning(grid_every_step(), steps);
  if (rank_of() == 0)
    std::printf("[ grid speeds ] P = %d: given %s| learned %s| assumed equal %s\n", P,
                ratios_text(known.ratio).c_str(), ratios_text(learned.ratio).c_str(),
                ratios_text(equal.ratio).c_str());
  // On a grid the loads-only plan absorbs the speeds into its per-cell
  // estimate and converges on a static load even with speeds assumed equal;
  // learning them gets there too, by the sixth rebalance (P = 3: its
  // speeds on 3 knots along x are 18 % off until the rounds settle).
  for (std::size_t k = 6; k < learned.ratio.size(); ++k)
    EXPECT_LE(learned.ratio[k], 1.02 * known.ratio.back()) << "step " << k;
  // Every check that planned logged what it learned; where it pinned the
  // speeds down they are near the truth (a bump on a few knots along each
  // axis biases them: the balance is what the plan needs, and it is above).
  for (std::size_t k = 0; k < learned.logs.size(); ++k) {
    const auto j = nlohmann::json::parse(learned.logs[k]);
    if (!j.contains("plan")) continue;
    ASSERT_TRUE(j.contains("learned_speeds")) << learned.logs[k];
    const auto& l = j["learned_speeds"];
    EXPECT_NE(learned.reports[k].find(l["identifiable"].get<bool>() ? "learned speeds "
                                                                    : "speeds not learned: "),
              std::string::npos)
        << learned.reports[k];
    if (!l["identifiable"].get<bool>()) continue;
    EXPECT_NE(learned.reports[k].find(l["used"].get<bool>() ? ", used"
                                                            : ", not used until the next check"),
              std::string::npos)
        << learned.reports[k];
    const auto speeds = l["speeds"].get<std::vector<double>>();
    const double mean = (P - 1 + 3.0) / P;
    for (int r = 0; r < P; ++r) {
      const double want = fast_last(P)[static_cast<std::size_t>(r)] / mean;
      EXPECT_NEAR(speeds[static_cast<std::size_t>(r)], want, 0.25 * want) << r << ": " << l.dump();
    }
  }
  EXPECT_FALSE(nlohmann::json::parse(known.logs.back()).contains("learned_speeds"));
}

TEST(GridBalancerSpeeds, CostsTimedOnTheirRanksAreNormalised) {
  // set_costs() of each cell's time on its rank, multiplied by the learned
  // speeds: the plan balances as one with the true costs and speeds given.
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank has nothing to learn";
  GridBalancerOptions given = grid_every_step();
  given.speeds = isocost::Speeds::from_values(fast_last(P));
  GridBalancerOptions learning = grid_every_step();
  learning.learn_speeds = true;
  const LearnRun known = run_learning(given, 8, CellCosts::exact),
                 learned = run_learning(learning, 8, CellCosts::timed);
  if (rank_of() == 0)
    std::printf("[ grid speeds, costs ] P = %d: given %s| learned %s\n", P,
                ratios_text(known.ratio).c_str(), ratios_text(learned.ratio).c_str());
  for (std::size_t k = 5; k < learned.ratio.size(); ++k)
    EXPECT_LE(learned.ratio[k], 1.02 * known.ratio.back()) << "step " << k;
  // The true costs with the speeds assumed equal: the fast rank is given
  // only its share of the cost, and waits.
  const LearnRun blind = run_learning(grid_every_step(), 8, CellCosts::exact);
  EXPECT_GT(blind.ratio.back(), 1.2) << ratios_text(blind.ratio);
}

TEST(GridBalancerSpeeds, LearningNeedsNoGivenSpeedsAndAHistory) {
  const int P = size_of();
  const isocost::GridShape shape{2, {8, 8, 1}};
  const auto start = isocost::decompose(isocost::grid_density(std::vector<double>(64, 1.0), shape),
                                        {{P}, {0}}, isocost::Speeds::uniform(P));
  GridBalancerOptions o = grid_every_step();
  o.learn_speeds = true;
  o.speeds = isocost::Speeds::uniform(P);
  isocost::testing::expect_agreed_error(
      [&] {
        try {
          GridBalancer b(MPI_COMM_WORLD, shape, start, o);
        } catch (const isocost::Error& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      "learn_speeds: expected no given speeds (they are learned), got speeds");
  o.speeds.reset();
  o.global.history = 0;
  EXPECT_FALSE(o.is_valid(nullptr));
}

}  // namespace
