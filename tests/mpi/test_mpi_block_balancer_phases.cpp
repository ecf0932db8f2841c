// isocost/mpi/block_balancer.hpp's balance_phases under mpiexec -n N (CTest:
// N = 1, 2, 3, 4, 8), on synthetic per-phase loads that every rank knows, so
// the trigger's numbers are known exactly (Watts §4.2: a step whose phases
// synchronise waits, in each phase, for that phase's slowest rank).
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "isocost/mpi/block_balancer.hpp"

#include "block_loop.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::Strategy;
using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BlockEvent;
using isocost::testing::quiet_options;
using isocost::testing::rank_of;
using isocost::testing::size_of;

TEST(BlockBalancer, PhaseSynchronisedPlans) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never fires";
  const std::int64_t N = 100 * P;
  BlockBalancerOptions o = quiet_options();
  o.balance_phases = true;
  const int rank = rank_of();
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), o);
  const auto a = b.add_phase("a");
  const auto c = b.add_phase("c");
  std::vector<double> data(static_cast<std::size_t>(b.distribution().count(rank)), 0.0);
  BlockEvent fired;
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
    b.record_step(ta + tc, phases);
    const auto e = b.maybe_rebalance(data);
    if (e.checked && e.check.fired) fired = e;
  }
  ASSERT_EQ(fired.action, Strategy::global);
  EXPECT_EQ(fired.rebalance.method(), isocost::PlanMethod::phases);
  EXPECT_LT(fired.rebalance.predicted_synchronised, fired.rebalance.measured_synchronised);
}

TEST(BlockBalancer, PhaseTriggerFiresWhenOnlyThePhasesAreUnbalanced) {
  // Every rank's total is P: rank 0 spends it all in phase a, the others all
  // in phase c. The totals have drift 0 and efficiency 1, so the trigger on
  // them never fires; synchronised, phase a waits P for an average of 1 and
  // phase c P for P − 1: Σ T_min 0, Σ T_avg P, Σ T_max 2P, so the drift is 2
  // and the efficiency 1/2.
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "one rank has no imbalance";
  for (const bool phases : {false, true}) {
    BlockBalancerOptions o = quiet_options();
    o.balance_phases = phases;
    BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(10 * P, P), o);
    const auto a = b.add_phase("a");
    const auto c = b.add_phase("c");
    std::vector<double> data(10, 0.0), split(2, 0.0);
    split[a.index] = rank == 0 ? P : 0;
    split[c.index] = rank == 0 ? 0 : P;
    BlockEvent e;
    for (int s = 0; s < 2; ++s) {
      b.record_step(P, split);
      e = b.maybe_rebalance(data);
    }
    ASSERT_TRUE(e.checked);
    EXPECT_EQ(e.check.drift, 0.0);
    EXPECT_EQ(e.check.efficiency, 1.0);
    if (!phases) {
      EXPECT_FALSE(e.phase_check.has_value());
      EXPECT_FALSE(e.check.fired);
      EXPECT_EQ(e.action, Strategy::none);
      continue;
    }
    ASSERT_TRUE(e.phase_check.has_value());
    EXPECT_EQ(e.phase_check->t_min, 0.0);
    EXPECT_EQ(e.phase_check->t_avg, P);
    EXPECT_EQ(e.phase_check->t_max, 2.0 * P);
    EXPECT_EQ(e.phase_check->drift, 2.0);
    EXPECT_EQ(e.phase_check->efficiency, 0.5);
    EXPECT_TRUE(e.phase_check->fired);
    EXPECT_TRUE(e.check.fired);
    EXPECT_NE(e.brief_report().find("phases synchronised: drift 2, efficiency 0.5, fired"),
              std::string::npos)
        << e.brief_report();
    EXPECT_EQ(e.action, Strategy::global) << e.reason << "; " << e.rebalance.brief_report();
    EXPECT_EQ(e.rebalance.method(), isocost::PlanMethod::phases);
  }
}

}  // namespace
