// isocost/mpi/balancer.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 8).
// Loads are synthetic and deterministic: element i costs w(i, step) seconds,
// and every rank computes every rank's step time from the distribution in
// force, feeding its own to LoadMonitor::record_step(). So each test knows
// the numbers the balancer must decide on:
//   - Drift (Swartz §6): from step 6 the elements rank 0 first owned cost 1.5
//     instead of 1, so with k = 2 and a window of 1 the check at step 6 is
//     the first to see T_max/T_min = 1.5, drift 0.5/T_avg·T_min > 0.1.
//   - A factor 1.05 gives drift <= 0.05 < 0.1: never fires.
//   - α = 1e9 s makes any migration cost more than it saves: refused.
//   - The Pearce choice equals choose_strategy() on the same loads and
//     element counts, computed here independently.
// Every element carries its global index, so after any number of rebalances
// each rank's data must be exactly [begin, end) of the final distribution.
#include "isocost/mpi/balancer.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/error.hpp"

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::rank_of;
using isocost::testing::size_of;

using isocost::Strategy;
using isocost::mpi::BalanceEvent;
using isocost::mpi::BalancePolicy;
using isocost::mpi::Balancer;
using isocost::mpi::BalancerOptions;
using isocost::mpi::BlockDistribution;

// Element cost: w(i, step) seconds.
using Weight = std::function<double(std::int64_t, int)>;

// Every rank's step time under distribution `d`.
std::vector<double> step_loads(const BlockDistribution& d, const Weight& w, int step) {
  std::vector<double> t(static_cast<std::size_t>(d.parts()), 0.0);
  for (int r = 0; r < d.parts(); ++r)
    for (std::int64_t i = d.begin(r); i < d.end(r); ++i) t[r] += w(i, step);
  return t;
}

// Settings that make decisions reproducible: no calibration, fixed costs.
BalancerOptions quiet_options() {
  BalancerOptions o;
  o.calibrate = false;
  o.measure_decision = false;
  o.monitor.window = 1;
  o.trigger.every = 2;
  o.trigger.drift_threshold = 0.1;
  o.profit.steps_ahead = 100;
  o.policy = BalancePolicy::global;
  return o;
}

struct LoopRun {
  std::vector<BalanceEvent> checks;  // every event with checked = true
  std::vector<BalanceEvent> calls;   // every event
  double mean_efficiency = 0;        // mean over steps of T_avg/T_max
  double total_time = 0;             // Σ_steps T_max + Σ rebalance seconds
  BlockDistribution final;
};

// The application loop: `steps` steps, loads from `w`, maybe_rebalance() after
// every step when `balance`. Checks the data at the end.
LoopRun run_loop(const BalancerOptions& o, std::int64_t N, int steps, const Weight& w,
                 bool balance) {
  const int rank = rank_of(), P = size_of();
  Balancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), o);
  std::vector<double> data;
  for (std::int64_t i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i)
    data.push_back(static_cast<double>(i));
  LoopRun run;
  for (int s = 0; s < steps; ++s) {
    const auto t = step_loads(b.distribution(), w, s);
    const double max = *std::max_element(t.begin(), t.end());
    const double avg = std::accumulate(t.begin(), t.end(), 0.0) / P;
    run.mean_efficiency += max > 0 ? avg / max : 1;
    run.total_time += max;
    b.monitor().record_step(t[rank]);
    if (!balance) continue;
    const BalanceEvent e = b.maybe_rebalance(data);
    run.calls.push_back(e);
    if (e.checked) run.checks.push_back(e);
    run.total_time += e.seconds;
  }
  run.mean_efficiency /= steps;
  run.final = b.distribution();
  // Nothing lost, nothing out of place.
  EXPECT_EQ(static_cast<std::int64_t>(data.size()), b.distribution().count(rank));
  for (std::size_t k = 0; k < data.size(); ++k)
    if (data[k] !=
        static_cast<double>(b.distribution().begin(rank) + static_cast<std::int64_t>(k))) {
      ADD_FAILURE() << "element " << k << " holds " << data[k];
      break;
    }
  return run;
}

// From step 6 (the 6th recorded step, index 5) the first N/P elements cost
// `factor`.
Weight step_change(std::int64_t N, int P, double factor) {
  return [=](std::int64_t i, int step) { return step >= 5 && i < N / P ? factor : 1.0; };
}

const BalanceEvent* first_fired(const LoopRun& r) {
  for (const auto& e : r.checks)
    if (e.check.fired) return &e;
  return nullptr;
}

TEST(Balancer, DriftFiresAtTheFirstCheckThatSeesIt) {
  const int P = size_of();
  const std::int64_t N = 100 * P;
  const LoopRun r = run_loop(quiet_options(), N, 10, step_change(N, P, 1.5), true);
  // Checks at steps 2, 4, 6, 8, 10.
  ASSERT_EQ(r.checks.size(), 5u);
  for (std::size_t k = 0; k < r.checks.size(); ++k)
    EXPECT_EQ(r.checks[k].check.step, 2 * static_cast<long long>(k + 1));
  const BalanceEvent* e = first_fired(r);
  if (P == 1) {
    EXPECT_EQ(e, nullptr) << "one rank has no drift";
    return;
  }
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->check.step, 6);
  EXPECT_EQ(e->check.t_max, 150.0);
  EXPECT_EQ(e->check.t_min, 100.0);
  EXPECT_DOUBLE_EQ(e->check.t_avg, (150.0 + 100.0 * (P - 1)) / P);
  EXPECT_TRUE(e->check.drift_fired);
  EXPECT_EQ(e->action, Strategy::global);
  EXPECT_EQ(e->reason, "rebalanced");
  // The plan is the global repartition of the measured loads, and the
  // migration moved exactly the elements whose owner changed.
  std::vector<std::int64_t> before = BlockDistribution::uniform(N, P).offsets;
  std::vector<double> loads(P, 100.0);
  loads[0] = 150;
  const auto plan = isocost::rebalance_global(before, loads);
  EXPECT_EQ(e->plan.offsets, plan.offsets);
  EXPECT_EQ(e->migration.global_elements_moved, plan.elements_moved);
  EXPECT_EQ(r.final.offsets, plan.offsets);
  // The check after it records the gain.
  ASSERT_TRUE(r.checks[3].gain.has_value());
  EXPECT_EQ(r.checks[3].gain->rebalance_step, 6);
  EXPECT_EQ(r.checks[3].gain->t_max_before, 150.0);
  EXPECT_LT(r.checks[3].gain->t_max_after, 150.0);
}

TEST(Balancer, BelowTheThresholdNothingFires) {
  const int P = size_of();
  const std::int64_t N = 100 * P;
  const LoopRun r = run_loop(quiet_options(), N, 10, step_change(N, P, 1.05), true);
  ASSERT_EQ(r.checks.size(), 5u);
  for (const auto& e : r.checks) {
    EXPECT_FALSE(e.check.fired) << e.check.step;
    EXPECT_EQ(e.reason, "below the trigger");
  }
  EXPECT_EQ(r.final.offsets, BlockDistribution::uniform(N, P).offsets);
}

TEST(Balancer, RefusedWhenTheCostExceedsTheGain) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 100 * P;
  BalancerOptions o = quiet_options();
  o.profit.comm = {1e9, 0};  // a rebalance would take 1e9 s
  const LoopRun r = run_loop(o, N, 10, step_change(N, P, 1.5), true);
  const BalanceEvent* e = first_fired(r);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->profit.has_value());
  EXPECT_FALSE(e->profit->profitable);
  // Saving (T_max − T_avg)·steps_ahead, against α = 1e9.
  EXPECT_DOUBLE_EQ(e->profit->saving, (150.0 - e->check.t_avg) * 100);
  EXPECT_EQ(e->profit->cost, 1e9);
  EXPECT_EQ(e->action, Strategy::none);
  EXPECT_EQ(e->reason, "not profitable");
  EXPECT_EQ(r.final.offsets, BlockDistribution::uniform(N, P).offsets);
}

TEST(Balancer, ChoiceIsPearcesPredictionOnTheSameNumbers) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 100 * P;
  BalancerOptions o = quiet_options();
  o.policy = BalancePolicy::choose;
  o.profit.comm = {1e-3, 1e-6};
  o.strategy.global_decision_seconds = 0.5;
  o.strategy.diffusion_decision_seconds = 0.01;
  const LoopRun r = run_loop(o, N, 10, step_change(N, P, 1.5), true);
  const BalanceEvent* e = first_fired(r);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->choice.has_value());
  std::vector<double> loads(P, 100.0), counts(P);
  loads[0] = 150;
  const auto d = BlockDistribution::uniform(N, P);
  for (int k = 0; k < P; ++k) counts[k] = static_cast<double>(d.count(k));
  isocost::StrategyOptions so = o.strategy;
  so.steps = o.profit.steps_ahead;
  so.comm = o.profit.comm;
  so.element_bytes = sizeof(double);
  const auto expect = isocost::choose_strategy(isocost::mesh_graph({P}, false), loads, counts, so);
  EXPECT_EQ(e->choice->choice, expect.choice);
  EXPECT_EQ(e->choice->time_none, expect.time_none);
  EXPECT_EQ(e->choice->time_global, expect.time_global);
  EXPECT_EQ(e->choice->time_diffusion, expect.time_diffusion);
  if (expect.choice != Strategy::none) {
    EXPECT_EQ(e->action, expect.choice);
  } else {
    EXPECT_EQ(e->reason, "the cost model predicts no gain");
  }
}

TEST(Balancer, OverlappedCheckDecidesAsTheBlockingOneOneStepLater) {
  const int P = size_of();
  const std::int64_t N = 100 * P;
  BalancerOptions o = quiet_options();
  o.trigger.every = 3;
  const Weight w = step_change(N, P, 1.5);
  const LoopRun blocking = run_loop(o, N, 12, w, true);
  o.overlap = true;
  const LoopRun overlapped = run_loop(o, N, 12, w, true);
  // Compare every check up to and including the first rebalance (later
  // windows differ: the overlapped run moved one step later).
  ASSERT_FALSE(blocking.checks.empty());
  for (const auto& b : blocking.checks) {
    if (b.step >= static_cast<long long>(overlapped.calls.size())) break;  // decided after the run
    const auto& v =
        overlapped.calls[static_cast<std::size_t>(b.step)];  // the call after step b.step + 1
    ASSERT_TRUE(v.checked) << "step " << b.step;
    EXPECT_EQ(v.step, b.step + 1);
    EXPECT_EQ(v.check.step, b.check.step);
    EXPECT_EQ(v.check.t_min, b.check.t_min);
    EXPECT_EQ(v.check.t_max, b.check.t_max);
    EXPECT_EQ(v.check.t_avg, b.check.t_avg);
    EXPECT_EQ(v.check.fired, b.check.fired);
    EXPECT_EQ(v.action, b.action);
    EXPECT_EQ(v.plan.offsets, b.plan.offsets);
    if (b.action != Strategy::none) break;
  }
}

// Eijkhout §4's moving bell: w(x, t) = 1 + 9·exp(−((x − s(t))/0.08)²) with the
// peak s moving from 0.15 to 0.85 over the run.
TEST(Balancer, MovingBellEndsMoreEfficientThanNoBalancing) {
  const int P = size_of();
  const std::int64_t N = 256 * P;
  const int steps = 120;
  const Weight bell = [=](std::int64_t i, int step) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(N);
    const double s = 0.15 + 0.7 * step / steps;
    return 1e-3 * (1 + 9 * std::exp(-((x - s) / 0.08) * ((x - s) / 0.08)));
  };
  BalancerOptions o;
  o.calibrate = false;
  o.profit.comm = {1e-4, 1e-9};
  o.trigger.every = 4;
  o.monitor.window = 2;
  const LoopRun without = run_loop(o, N, steps, bell, false);
  const LoopRun with = run_loop(o, N, steps, bell, true);
  int rebalances = 0;
  for (const auto& e : with.checks) rebalances += e.action != Strategy::none;
  if (rank_of() == 0)
    std::printf(
        "[ bell ] P = %d: mean efficiency %.3f -> %.3f, total time %.4f -> %.4f s "
        "(%d rebalances)\n",
        P, without.mean_efficiency, with.mean_efficiency, without.total_time, with.total_time,
        rebalances);
  if (P == 1) {
    EXPECT_EQ(with.mean_efficiency, 1.0);
    return;
  }
  EXPECT_GT(rebalances, 0);
  EXPECT_GT(with.mean_efficiency, without.mean_efficiency);
  EXPECT_LT(with.total_time, 0.97 * without.total_time);
  // DESIGN.md's goal for the bell, ≥ 25 % less time, from 3 ranks: with 2,
  // one cut placed from 3 cumulative points overshoots the narrow bell.
  if (P >= 3) {
    EXPECT_LT(with.total_time, 0.75 * without.total_time);
  }
}

// Grids: a 24 x 16 grid of cells with a hot spot moving along the diagonal,
// decomposed jagged (px x py = P). Each cell carries its global index
// i + 24·j, so after every rebalance each rank's box must hold exactly its
// cells, x fastest.
struct GridRun {
  std::vector<BalanceEvent> checks;
  double mean_efficiency = 0;
  isocost::Decomposition first;
};

GridRun run_grid(bool balance, int steps) {
  const int P = size_of(), rank = rank_of();
  isocost::GridShape shape;
  shape.dims = 2;
  shape.cells = {24, 16, 1};
  const int px = P % 2 == 0 && P > 2 ? P / 2 : P, py = P / px;
  isocost::ProcessGrid pg{{px, py}, {0, 1}};
  const auto uniform = isocost::grid_density(std::vector<double>(24 * 16, 1.0), shape);
  const auto start = isocost::decompose(uniform, pg, isocost::Speeds::uniform(P));
  BalancerOptions o;
  o.calibrate = false;
  o.profit.comm = {1e-4, 1e-9};
  o.trigger.every = 4;
  o.monitor.window = 2;
  Balancer b(MPI_COMM_WORLD, shape, start, o);
  auto cell_cost = [](std::int64_t i, std::int64_t j, int step) {
    const double x = (i + 0.5) / 24, y = (j + 0.5) / 16, s = 0.2 + 0.6 * step / 60.0;
    return 1e-3 * (1 + 9 * std::exp(-((x - s) * (x - s) + (y - s) * (y - s)) / 0.02));
  };
  auto fill = [&](const isocost::mpi::CellBox& box) {
    std::vector<double> v;
    for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
      for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i) v.push_back(double(i + 24 * j));
    return v;
  };
  std::vector<double> data = fill(b.boxes().boxes[rank]);
  GridRun run;
  run.first = start;
  for (int s = 0; s < steps; ++s) {
    std::vector<double> t(P, 0.0);
    for (int r = 0; r < P; ++r) {
      const auto& box = b.boxes().boxes[r];
      for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
        for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i) t[r] += cell_cost(i, j, s);
    }
    const double max = *std::max_element(t.begin(), t.end());
    run.mean_efficiency += std::accumulate(t.begin(), t.end(), 0.0) / P / max;
    b.monitor().record_step(t[rank]);
    if (!balance) continue;
    const auto e = b.maybe_rebalance(data);
    if (e.checked) run.checks.push_back(e);
  }
  run.mean_efficiency /= steps;
  EXPECT_EQ(data, fill(b.boxes().boxes[rank])) << "cells lost or misplaced";
  return run;
}

TEST(Balancer, GridHotSpotIsFollowedAndNoCellIsLost) {
  const int P = size_of();
  const GridRun without = run_grid(false, 60);
  const GridRun with = run_grid(true, 60);
  if (rank_of() == 0)
    std::printf("[ grid ] P = %d: mean efficiency %.3f -> %.3f\n", P, without.mean_efficiency,
                with.mean_efficiency);
  if (P == 1) return;
  EXPECT_GT(with.mean_efficiency, without.mean_efficiency);
  // The first rebalance is rebalance_grid_global() of the measured loads
  // (a global plan) or rebalance_grid_diffusive() (a diffusive one).
  const BalanceEvent* e = nullptr;
  for (const auto& c : with.checks)
    if (c.action != Strategy::none) {
      e = &c;
      break;
    }
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->grid_plan.method, e->action == Strategy::global ? "global" : "diffusion");
  EXPECT_EQ(e->migration.global_elements_moved, e->grid_plan.elements_moved);
}

TEST(Balancer, PhaseSynchronisedPlans) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 100 * P;
  BalancerOptions o = quiet_options();
  o.balance_phases = true;
  const int rank = rank_of();
  Balancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), o);
  const auto a = b.add_phase("a");
  const auto c = b.add_phase("c");
  std::vector<double> data(static_cast<std::size_t>(b.distribution().count(rank)), 0.0);
  BalanceEvent fired;
  for (int s = 0; s < 2; ++s) {
    // Phase a grows with the element index, phase c shrinks.
    double ta = 0, tc = 0;
    for (std::int64_t i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i) {
      ta += 1e-3 * static_cast<double>(i);
      tc += 1e-3 * static_cast<double>(N - i) * (i < N / P ? 3 : 1);
    }
    std::vector<double> phases(2);
    phases[a.index] = ta;
    phases[c.index] = tc;
    b.monitor().record_step(ta + tc, phases);
    const auto e = b.maybe_rebalance(data);
    if (e.checked && e.check.fired) fired = e;
  }
  ASSERT_EQ(fired.action, Strategy::global);
  EXPECT_EQ(fired.plan.method, "phases");
  EXPECT_LT(fired.plan.predicted_synchronised, fired.plan.measured_synchronised);
}

TEST(Balancer, LogHasOneJsonLinePerCheck) {
  const int P = size_of(), rank = rank_of();
  // One path for all ranks: rank 0's pid.
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string path =
      ::testing::TempDir() + "isocost_balancer_" + std::to_string(pid) + ".jsonl";
  BalancerOptions o = quiet_options();
  o.log_path = path;
  const std::int64_t N = 100 * P;
  int observed = 0;
  {
    Balancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), o);
    b.set_observer([&](const BalanceEvent& e) {
      EXPECT_TRUE(e.checked);
      ++observed;
    });
    std::vector<double> data(static_cast<std::size_t>(b.distribution().count(rank)), 0.0);
    const Weight w = step_change(N, P, 1.5);
    for (int s = 0; s < 10; ++s) {
      b.monitor().record_step(step_loads(b.distribution(), w, s)[rank]);
      b.maybe_rebalance(data);
    }
  }
  EXPECT_EQ(observed, 5);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::ifstream in(path);
    std::vector<nlohmann::json> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(lines.size(), 5u);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      EXPECT_EQ(lines[k].at("check").at("step").get<long long>(),
                2 * static_cast<long long>(k + 1));
      EXPECT_TRUE(lines[k].contains("action"));
      EXPECT_TRUE(lines[k].contains("reason"));
    }
    if (P > 1) {
      EXPECT_EQ(lines[2].at("action"), "global");
      EXPECT_TRUE(lines[2].contains("plan"));
      EXPECT_TRUE(lines[3].contains("gain"));
    }
    std::remove(path.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Balancer, BadInputThrowsTheSameErrorOnEveryRank) {
  const int P = size_of(), rank = rank_of();
  const std::int64_t N = 10 * P;
  const auto uniform = BlockDistribution::uniform(N, P);
  // Options that differ on the last rank.
  BalancerOptions differ = quiet_options();
  if (rank == P - 1) differ.trigger.every = 3;
  std::string msg = error_of([&] { Balancer b(MPI_COMM_WORLD, uniform, differ); });
  if (P > 1) {
    EXPECT_NE(msg.find("rank " + std::to_string(P - 1) +
                       ": options differ from rank 0's: trigger.every 3 (rank 0: 2)"),
              std::string::npos)
        << msg;
  } else {
    EXPECT_EQ(msg, "");
  }
  // Invalid options and distributions, on every rank.
  BalancerOptions window = quiet_options();
  window.monitor.window = 0;
  msg = error_of([&] { Balancer b(MPI_COMM_WORLD, uniform, window); });
  EXPECT_NE(msg.find("window"), std::string::npos) << msg;
  BalancerOptions every = quiet_options();
  every.trigger.every = 0;
  msg = error_of([&] { Balancer b(MPI_COMM_WORLD, uniform, every); });
  EXPECT_NE(msg.find("every"), std::string::npos) << msg;
  BlockDistribution bad = uniform;
  if (P > 1) bad.offsets[1] = bad.offsets[2] + 1;  // offsets decrease
  msg = error_of([&] { Balancer b(MPI_COMM_WORLD, bad, quiet_options()); });
  if (P > 1) {
    EXPECT_NE(msg.find("distribution"), std::string::npos) << msg;
  }
  msg = error_of(
      [&] { Balancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P + 1), quiet_options()); });
  EXPECT_NE(msg.find("parts for a communicator of"), std::string::npos) << msg;
  // Data of the wrong size on the last rank: caught at the check, everywhere.
  Balancer b(MPI_COMM_WORLD, uniform, quiet_options());
  std::vector<double> data(static_cast<std::size_t>(uniform.count(rank)) + (rank == P - 1 ? 1 : 0));
  b.monitor().record_step(1.0);
  EXPECT_EQ(error_of([&] { b.maybe_rebalance(data); }), "") << "step 1 is not a check";
  b.monitor().record_step(1.0);
  msg = error_of([&] { b.maybe_rebalance(data); });
  EXPECT_NE(msg.find("rank " + std::to_string(P - 1) + ": holds"), std::string::npos) << msg;
  // Every rank has the same message.
  int length = static_cast<int>(msg.size()), lo = 0, hi = 0;
  MPI_Allreduce(&length, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&length, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
}

}  // namespace
