// isocost/mpi/block_balancer.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 8).
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
#include "isocost/mpi/block_balancer.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/error.hpp"

#include "block_loop.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::LoopRun;
using isocost::testing::moving_bell;
using isocost::testing::quiet_options;
using isocost::testing::rank_of;
using isocost::testing::run_loop;
using isocost::testing::size_of;
using isocost::testing::step_loads;
using isocost::testing::Weight;

using isocost::Speeds;
using isocost::Strategy;
using isocost::mpi::BalancePolicy;
using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BlockEvent;

// From step 6 (the 6th recorded step, index 5) the first N/P elements cost
// `factor`.
Weight step_change(std::int64_t N, int P, double factor) {
  return [=](std::int64_t i, int step) { return step >= 5 && i < N / P ? factor : 1.0; };
}

const BlockEvent* first_fired(const LoopRun& r) {
  for (const auto& e : r.checks)
    if (e.check.fired) return &e;
  return nullptr;
}

// The comm model is measured once per set of processes: a second balancer
// over the same ranks takes the first's to the bit (a new measurement of
// timings would differ), a communicator over other ranks gets its own, and
// each is a usable model (latency and per-byte cost > 0 with two ranks or
// more, zero on one).
TEST(BlockBalancer, CommModelIsMeasuredOncePerSetOfProcesses) {
  const int P = size_of(), rank = rank_of();
  const auto d = BlockDistribution::uniform(1000, P);
  const BlockBalancer first(MPI_COMM_WORLD, d), second(MPI_COMM_WORLD, d);
  EXPECT_EQ(first.comm_model().latency, second.comm_model().latency);
  EXPECT_EQ(first.comm_model().per_byte, second.comm_model().per_byte);
  if (P > 1) {
    EXPECT_GT(first.comm_model().latency + first.comm_model().per_byte, 0.0);
  } else {
    EXPECT_EQ(first.comm_model().latency, 0.0);
    EXPECT_EQ(first.comm_model().per_byte, 0.0);
  }
  // The even ranks alone (a duplicate of the world is the same processes).
  MPI_Comm evens = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &evens);
  int n = 0;
  MPI_Comm_size(evens, &n);
  {
    const BlockBalancer part(evens, BlockDistribution::uniform(1000, n));
    if (n == 1) {
      EXPECT_EQ(part.comm_model().per_byte, 0.0);
    } else {
      EXPECT_GT(part.comm_model().latency + part.comm_model().per_byte, 0.0);
    }
  }
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  {
    const BlockBalancer again(dup, d);
    EXPECT_EQ(again.comm_model().latency, first.comm_model().latency);
    EXPECT_EQ(again.comm_model().per_byte, first.comm_model().per_byte);
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&evens);
}

TEST(BlockBalancer, DriftFiresAtTheFirstCheckThatSeesIt) {
  const int P = size_of();
  const std::int64_t N = 100 * P;
  const LoopRun r = run_loop(quiet_options(), N, 10, step_change(N, P, 1.5), true);
  // Checks at steps 2, 4, 6, 8, 10.
  ASSERT_EQ(r.checks.size(), 5u);
  for (std::size_t k = 0; k < r.checks.size(); ++k)
    EXPECT_EQ(r.checks[k].check.step, 2 * static_cast<long long>(k + 1));
  const BlockEvent* e = first_fired(r);
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
  const auto plan = isocost::rebalance_global(before, loads, Speeds::uniform(P));
  EXPECT_EQ(e->rebalance.offsets, plan.offsets);
  ASSERT_TRUE(e->migration.has_value());
  EXPECT_EQ(e->migration->global_elements_moved, plan.elements_moved);
  EXPECT_EQ(r.final.offsets, plan.offsets);
  // The check after it records the gain.
  ASSERT_TRUE(r.checks[3].gain.has_value());
  EXPECT_EQ(r.checks[3].gain->rebalance_step, 6);
  EXPECT_EQ(r.checks[3].gain->t_max_before, 150.0);
  EXPECT_LT(r.checks[3].gain->t_max_after, 150.0);
}

TEST(BlockBalancer, BelowTheThresholdNothingFires) {
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

TEST(BlockBalancer, BelowTheThresholdARebalanceThatPaysIsPlanned) {
  // The same 5 % below the drift threshold, with the profit trigger (the
  // default): removing T_max − T_avg over steps_ahead steps pays for a
  // rebalance that costs nothing here, so the first check that sees it plans.
  const int P = size_of();
  const std::int64_t N = 100 * P;
  BlockBalancerOptions o = quiet_options();
  o.pipeline.profit_trigger = true;
  const LoopRun r = run_loop(o, N, 10, step_change(N, P, 1.05), true);
  ASSERT_EQ(r.checks.size(), 5u);
  const BlockEvent* moved = nullptr;
  for (const auto& e : r.checks) {
    EXPECT_FALSE(e.check.fired) << e.check.step;
    if (!moved && e.moves()) moved = &e;
  }
  if (P == 1) {
    EXPECT_EQ(moved, nullptr) << "one rank is balanced";
    return;
  }
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->check.step, 6);
  EXPECT_TRUE(moved->pays);
  EXPECT_EQ(moved->reason, "rebalanced");
  EXPECT_NE(moved->brief_report().find("planned below the trigger: a rebalance would pay"),
            std::string::npos);
  EXPECT_NE(moved->to_json().find("\"pays\":true"), std::string::npos);
  EXPECT_NE(r.final.offsets, BlockDistribution::uniform(N, P).offsets);
}

TEST(BlockBalancer, APlanPredictedNoBetterIsNotCarriedOut) {
  // P + 1 elements of equal cost: some rank holds two whatever the cuts. The
  // plan moves which one (its predicted T_max is the measured one), so it is
  // kept, instead of shuffling an element at every check.
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = P + 1;
  const LoopRun r = run_loop(
      quiet_options(), N, 10, [](std::int64_t, int) { return 1.0; }, true);
  ASSERT_EQ(r.checks.size(), 5u);
  for (const auto& e : r.checks) {
    EXPECT_TRUE(e.check.fired) << e.check.step;
    EXPECT_EQ(e.action, Strategy::none);
    EXPECT_EQ(e.reason, "the plan predicts no gain worth its cost");
    EXPECT_GT(e.rebalance.elements_moved, 0);
  }
  EXPECT_EQ(r.final.offsets, BlockDistribution::uniform(N, P).offsets);
}

TEST(BlockBalancer, RefusedWhenTheCostExceedsTheGain) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 100 * P;
  BlockBalancerOptions o = quiet_options();
  o.pipeline.comm = isocost::CommModel{1e9, 0};  // a rebalance would take 1e9 s
  const LoopRun r = run_loop(o, N, 10, step_change(N, P, 1.5), true);
  const BlockEvent* e = first_fired(r);
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

TEST(BlockBalancer, ChoiceIsPearcesPredictionOnTheSameNumbers) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 100 * P;
  BlockBalancerOptions o = quiet_options();
  o.pipeline.policy = BalancePolicy::choose;
  o.pipeline.comm = isocost::CommModel{1e-3, 1e-6};
  o.pipeline.decision_seconds = 0.5;
  const LoopRun r = run_loop(o, N, 10, step_change(N, P, 1.5), true);
  const BlockEvent* e = first_fired(r);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->choice.has_value());
  std::vector<double> loads(P, 100.0), counts(P);
  loads[0] = 150;
  const auto d = BlockDistribution::uniform(N, P);
  for (int k = 0; k < P; ++k) counts[k] = static_cast<double>(d.count(k));
  isocost::StrategyOptions so;
  so.cost.decision_seconds = 0.5;
  so.diffusion_decision_seconds = 0.5;
  so.cost.steps_ahead = o.pipeline.steps_ahead;
  so.cost.comm = *o.pipeline.comm;
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

TEST(BlockBalancer, OverlappedCheckDecidesAsTheBlockingOneOneStepLater) {
  const int P = size_of();
  const std::int64_t N = 100 * P;
  BlockBalancerOptions o = quiet_options();
  o.pipeline.trigger.every = 3;
  const Weight w = step_change(N, P, 1.5);
  const LoopRun blocking = run_loop(o, N, 12, w, true);
  o.pipeline.overlap = true;
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
    EXPECT_EQ(v.rebalance.offsets, b.rebalance.offsets);
    if (b.action != Strategy::none) break;
  }
}

// next_decide_is_check() says which decide() reads the costs, blocking or
// overlapped, on every step (a code computes its costs only then).
TEST(BlockBalancer, NextDecideIsCheckPredictsEveryCheck) {
  const int P = size_of();
  for (const bool overlap : {false, true}) {
    BlockBalancerOptions o = quiet_options();
    o.pipeline.trigger.every = 3;
    o.pipeline.trigger.drift_threshold = 1e9;  // never fires: the distribution stays
    o.pipeline.overlap = overlap;
    BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(10 * P, P), o);
    int checks = 0;
    for (int s = 0; s < 10; ++s) {
      bool inside = false;  // asked inside the step (odd steps) or after it
      {
        auto scope = b.step();
        if (s % 2 == 1) inside = b.next_decide_is_check();
      }
      const bool predicted = s % 2 == 1 ? inside : b.next_decide_is_check();
      const auto plan = b.decide();
      EXPECT_EQ(predicted, plan.checked) << "step " << s << (overlap ? " overlapped" : "");
      checks += plan.checked ? 1 : 0;
    }
    EXPECT_EQ(checks, 3);  // steps 3, 6, 9 (overlapped: one call later each, 4, 7, 10 → 3 too)
  }
}

// Eijkhout §4's moving bell: w(x, t) = 1 + 9·exp(−((x − s(t))/0.08)²) with the
// peak s moving from 0.15 to 0.85 over the run.
TEST(BlockBalancer, MovingBellEndsMoreEfficientThanNoBalancing) {
  const int P = size_of();
  const std::int64_t N = 256 * P;
  const int steps = 120;
  const Weight bell = moving_bell(N, steps, 0.15, 0.85, 0.08);
  BlockBalancerOptions o;
  o.pipeline.comm = isocost::CommModel{1e-4, 1e-9};
  o.pipeline.trigger.every = 4;
  o.pipeline.monitor.window = 2;
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
  // The goal for the bell (docs/results.md), ≥ 25 % less time, from 3 ranks: with 2,
  // one cut placed from 3 cumulative points overshoots the narrow bell.
  if (P >= 3) {
    EXPECT_LT(with.total_time, 0.75 * without.total_time);
  }
}

// Watts' measured cost of rebalancing, per plan: each earlier rebalance's
// decision time, plus the comm model's latency, plus the rest of its
// migration time scaled by this plan's bytes over the bytes it moved
// (Pearce eq. 6), averaged. On the moving bell the plans move different
// amounts, so the scaled mean differs from the plain one.
TEST(BlockBalancer, MeasuredCostsAreScaledToEachPlansBytes) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never migrates";
  const std::int64_t N = 256 * P;
  const int steps = 120;
  const Weight bell = moving_bell(N, steps, 0.15, 0.85, 0.08);
  BlockBalancerOptions o;
  const double latency = 1e-6;
  o.pipeline.comm = isocost::CommModel{latency, 1e-9};
  o.pipeline.trigger.every = 4;
  o.pipeline.monitor.window = 2;
  const LoopRun run = run_loop(o, N, steps, bell, true);
  struct Spent {
    double decision, migration, bytes;
  };
  std::vector<Spent> spent;
  int scaled = 0, compared = 0;
  for (const BlockEvent& e : run.checks) {
    if (e.profit && !spent.empty() && e.received_bytes > 0) {
      double sum = 0, plain = 0;
      for (const Spent& s : spent) {
        const double l = std::min(latency, s.migration);
        sum += s.bytes > 0 ? s.decision + l + (s.migration - l) * e.received_bytes / s.bytes
                           : s.decision + s.migration;
        plain += s.decision + s.migration;
      }
      const double want = sum / static_cast<double>(spent.size());
      EXPECT_NEAR(e.profit->cost, want, 1e-12 * want) << "step " << e.step;
      EXPECT_EQ(e.profit->source, isocost::CostSource::measured);
      ++compared;
      if (std::abs(want - plain / static_cast<double>(spent.size())) > 1e-9 * want) ++scaled;
    }
    if (e.action != Strategy::none)
      spent.push_back({e.decision_seconds, e.seconds - e.decision_seconds, e.received_bytes});
  }
  EXPECT_GT(spent.size(), 1u);
  EXPECT_GT(compared, 0);
  EXPECT_GT(scaled, 0);
}

TEST(BlockBalancer, LogHasOneJsonLinePerCheck) {
  const int P = size_of(), rank = rank_of();
  // One path for all ranks: rank 0's pid.
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string path =
      ::testing::TempDir() + "isocost_balancer_" + std::to_string(pid) + ".jsonl";
  BlockBalancerOptions o = quiet_options();
  o.pipeline.log_path = path;
  const std::int64_t N = 100 * P;
  int observed = 0;
  std::vector<double> received;  // each check's received_bytes, -1 without a profit test
  {
    BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), o);
    b.set_observer([&](const BlockEvent& e) {
      EXPECT_TRUE(e.checked);
      ++observed;
      received.push_back(e.profit ? e.received_bytes : -1.0);
    });
    std::vector<double> data(static_cast<std::size_t>(b.distribution().count(rank)), 0.0);
    const Weight w = step_change(N, P, 1.5);
    for (int s = 0; s < 10; ++s) {
      b.record_step(step_loads(b.distribution(), w, s)[rank]);
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
      if (received[k] >= 0) {
        EXPECT_EQ(lines[k].at("profit").at("received_bytes").get<double>(), received[k]);
      } else {
        EXPECT_FALSE(lines[k].contains("profit"));
      }
    }
    if (P > 1) {
      EXPECT_EQ(lines[2].at("action"), "global");
      EXPECT_TRUE(lines[2].contains("plan"));
      EXPECT_GT(received[2], 0);  // the plan moves 8 B elements into some rank
      EXPECT_TRUE(lines[3].contains("gain"));
    }
    std::remove(path.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(BlockBalancer, BadInputThrowsTheSameErrorOnEveryRank) {
  const int P = size_of(), rank = rank_of();
  const std::int64_t N = 10 * P;
  const auto uniform = BlockDistribution::uniform(N, P);
  // Options that differ on the last rank.
  BlockBalancerOptions differ = quiet_options();
  if (rank == P - 1) differ.pipeline.trigger.every = 3;
  std::string msg = error_of([&] { BlockBalancer b(MPI_COMM_WORLD, uniform, differ); });
  if (P > 1) {
    EXPECT_NE(msg.find("rank " + std::to_string(P - 1) +
                       ": options differ from rank 0's: pipeline.trigger.every 3 (rank 0: 2)"),
              std::string::npos)
        << msg;
  } else {
    EXPECT_EQ(msg, "");
  }
  // Invalid options and distributions, on every rank.
  BlockBalancerOptions window = quiet_options();
  window.pipeline.monitor.window = 0;
  msg = error_of([&] { BlockBalancer b(MPI_COMM_WORLD, uniform, window); });
  EXPECT_NE(msg.find("window"), std::string::npos) << msg;
  BlockBalancerOptions every = quiet_options();
  every.pipeline.trigger.every = 0;
  msg = error_of([&] { BlockBalancer b(MPI_COMM_WORLD, uniform, every); });
  EXPECT_NE(msg.find("every"), std::string::npos) << msg;
  BlockDistribution bad = uniform;
  if (P > 1) bad.offsets[1] = bad.offsets[2] + 1;  // offsets decrease
  msg = error_of([&] { BlockBalancer b(MPI_COMM_WORLD, bad, quiet_options()); });
  if (P > 1) {
    EXPECT_NE(msg.find("distribution"), std::string::npos) << msg;
  }
  msg = error_of([&] {
    BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P + 1), quiet_options());
  });
  EXPECT_NE(msg.find("parts for a communicator of"), std::string::npos) << msg;
  // Data of the wrong size on the last rank: caught at the check, everywhere.
  BlockBalancer b(MPI_COMM_WORLD, uniform, quiet_options());
  std::vector<double> data(static_cast<std::size_t>(uniform.count(rank)) + (rank == P - 1 ? 1 : 0));
  b.record_step(1.0);
  EXPECT_EQ(error_of([&] { b.maybe_rebalance(data); }), "") << "step 1 is not a check";
  b.record_step(1.0);
  msg = error_of([&] { b.maybe_rebalance(data); });
  EXPECT_NE(msg.find("rank " + std::to_string(P - 1) + ": holds"), std::string::npos) << msg;
  // Every rank has the same message.
  int length = static_cast<int>(msg.size()), lo = 0, hi = 0;
  MPI_Allreduce(&length, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&length, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
}

// ---------------------------------------------------------------------------
// decide() and apply() with several arrays; per-element costs; callbacks.

struct Particle {  // 20 bytes: an element type that is not a multiple of 8
  std::int32_t id;
  float x, y, z, w;
};

// Three arrays of one distribution's elements (a struct of arrays), moved
// together: each holds a value derived from the element's global index.
TEST(BlockBalancer, DecideAndApplyMoveSeveralArraysTogether) {
  const int P = size_of(), rank = rank_of();
  const std::int64_t N = 60 * P;
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), quiet_options());
  auto fill = [&](std::vector<double>& a, std::vector<std::int32_t>& c, std::vector<Particle>& d) {
    a.clear();
    c.clear();
    d.clear();
    for (std::int64_t i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i) {
      a.push_back(0.5 * static_cast<double>(i));
      c.push_back(static_cast<std::int32_t>(3 * i + 1));
      d.push_back({static_cast<std::int32_t>(i), float(i), float(2 * i), 1.f, -1.f});
    }
  };
  std::vector<double> a;
  std::vector<std::int32_t> c;
  std::vector<Particle> d;
  fill(a, c, d);
  const Weight w = step_change(N, P, 2.0);
  int moved = 0;
  for (int s = 0; s < 10; ++s) {
    b.record_step(step_loads(b.distribution(), w, s)[rank]);
    const auto plan = b.decide(sizeof(double) + sizeof(std::int32_t) + sizeof(Particle));
    if (!plan.moves()) continue;
    ++moved;
    EXPECT_EQ(plan.from.offsets, b.distribution().offsets);
    EXPECT_NE(plan.to.offsets, plan.from.offsets);
    const auto summary = b.apply(plan, a, c, d);
    EXPECT_EQ(summary.element_size, sizeof(double) + sizeof(std::int32_t) + sizeof(Particle));
    EXPECT_EQ(b.distribution().offsets, plan.to.offsets);
    // A plan applies once.
    EXPECT_NE(error_of([&] { b.apply(plan, a, c, d); }), "");
  }
  if (P > 1) {
    EXPECT_GE(moved, 1);
  }
  std::vector<double> ea;
  std::vector<std::int32_t> ec;
  std::vector<Particle> ed;
  fill(ea, ec, ed);
  EXPECT_EQ(a, ea);
  EXPECT_EQ(c, ec);
  ASSERT_EQ(d.size(), ed.size());
  for (std::size_t k = 0; k < d.size(); ++k) {
    EXPECT_EQ(d[k].id, ed[k].id);
    EXPECT_EQ(d[k].y, ed[k].y);
  }
  // Arrays of unequal lengths: the same error on every rank, nothing moved.
  if (P > 1) {
    BlockBalancer u(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), quiet_options());
    std::vector<double> x(static_cast<std::size_t>(u.local_count()));
    std::vector<int> y(x.size() + (rank == P - 1 ? 1 : 0));
    std::string msg;
    for (int s = 0; s < 10 && msg.empty(); ++s) {
      u.record_step(step_loads(u.distribution(), w, s)[rank]);
      msg = error_of([&] { u.maybe_rebalance(x, y); });
    }
    expect_agreed_error(msg, "rank " + std::to_string(P - 1) + ": holds " +
                                 std::to_string(x.size() + 1) + " elements");
  }
}

// A code that moves its data itself (particles through exchange()): apply()
// and maybe_rebalance() with no arrays adopt the plan's distribution.
TEST(BlockBalancer, WithNoArraysThePlanIsAdoptedAndNothingMoves) {
  const int P = size_of(), rank = rank_of();
  const std::int64_t N = 60 * P;
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), quiet_options());
  const Weight w = step_change(N, P, 2.0);
  int adopted = 0;
  for (int s = 0; s < 10; ++s) {
    b.record_step(step_loads(b.distribution(), w, s)[rank]);
    const auto plan = b.decide();
    if (!plan.moves()) continue;
    const auto summary = b.apply(plan);
    ++adopted;
    EXPECT_EQ(summary.elements_sent, 0);
    EXPECT_EQ(summary.elements_received, 0);
    EXPECT_EQ(b.distribution().offsets, plan.to.offsets);
    EXPECT_EQ(b.local_begin(), plan.to.begin(rank));
    EXPECT_EQ(b.local_count(), plan.to.count(rank));
  }
  if (P > 1) {
    EXPECT_GE(adopted, 1);
  }
  // The one-line form with no arrays decides and adopts in the same way.
  BlockBalancer m(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), quiet_options());
  int rebalanced = 0;
  for (int s = 0; s < 10; ++s) {
    m.record_step(step_loads(m.distribution(), w, s)[rank]);
    const auto e = m.maybe_rebalance();
    if (!e.moves()) continue;
    ++rebalanced;
    EXPECT_EQ(m.distribution().offsets, e.to.offsets);
  }
  EXPECT_EQ(rebalanced, adopted);
}

// Per-element costs the code knows: the plan is rebalance_weights() of them,
// whatever the per-rank loads suggest.
TEST(BlockBalancer, PerElementCostsShapeTheGlobalPlan) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 50 * P;
  // The cost of element i: heavy in the last tenth.
  auto cost = [&](std::int64_t i) { return i >= N - N / 10 ? 9.0 : 1.0; };
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), quiet_options());
  std::vector<double> data;
  for (std::int64_t i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i)
    data.push_back(double(i));
  const Weight w = step_change(N, P, 1.5);  // the loads fire the trigger
  std::optional<BlockEvent> moved;
  for (int s = 0; s < 10 && !moved; ++s) {
    std::vector<double> mine;
    for (std::int64_t i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i)
      mine.push_back(cost(i));
    b.set_costs(mine);
    b.record_step(step_loads(b.distribution(), w, s)[rank]);
    const auto e = b.maybe_rebalance(data);
    if (e.migration) moved = e;
  }
  ASSERT_TRUE(moved.has_value());
  EXPECT_TRUE(moved->used_costs);
  std::vector<double> all(static_cast<std::size_t>(N));
  for (std::int64_t i = 0; i < N; ++i) all[static_cast<std::size_t>(i)] = cost(i);
  const auto expect =
      isocost::rebalance_weights(BlockDistribution::uniform(N, P).offsets, all, Speeds::uniform(P));
  EXPECT_EQ(moved->rebalance.offsets, expect.offsets);
  EXPECT_EQ(b.distribution().offsets, expect.offsets);
  // Costs of the wrong count on one rank: the same error everywhere.
  std::vector<double> wrong(static_cast<std::size_t>(b.local_count()) + (rank == 0 ? 2 : 0), 1.0);
  b.set_costs(wrong);
  std::string msg;
  for (int s = 0; s < 4 && msg.empty(); ++s) {
    b.record_step(1.0);
    msg = error_of([&] { b.decide(); });
  }
  expect_agreed_error(msg, "rank 0: set_costs() gave");
}

// Elements that are not trivially copyable move through the callbacks, with
// their global index as id.
TEST(BlockBalancer, ApplyWithCallbacksMovesEveryElementThatChangesOwner) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 40 * P;
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), quiet_options());
  std::map<std::int64_t, std::string> items;  // variable-size elements by index
  for (std::int64_t i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i)
    items[i] = std::string(static_cast<std::size_t>(i % 7 + 1), char('a' + i % 26));
  isocost::mpi::MigrationCallbacks cb;
  cb.size = [&](std::int64_t id) { return items.at(id).size(); };
  cb.pack = [&](std::int64_t id, std::span<std::byte> out) {
    std::memcpy(out.data(), items.at(id).data(), out.size());
  };
  cb.unpack = [&](std::int64_t id, std::span<const std::byte> in) {
    items[id] = std::string(reinterpret_cast<const char*>(in.data()), in.size());
    return true;
  };
  cb.free = [&](std::int64_t id) { items.erase(id); };
  const Weight w = step_change(N, P, 2.0);
  int moved = 0;
  for (int s = 0; s < 10; ++s) {
    b.record_step(step_loads(b.distribution(), w, s)[rank]);
    const auto plan = b.decide();
    if (plan.moves()) {
      b.apply(plan, cb);
      ++moved;
    }
  }
  EXPECT_GE(moved, 1);
  ASSERT_EQ(static_cast<std::int64_t>(items.size()), b.local_count());
  for (const auto& [i, v] : items) {
    EXPECT_GE(i, b.distribution().begin(rank));
    EXPECT_LT(i, b.distribution().end(rank));
    EXPECT_EQ(v, std::string(static_cast<std::size_t>(i % 7 + 1), char('a' + i % 26)));
  }
}

}  // namespace
