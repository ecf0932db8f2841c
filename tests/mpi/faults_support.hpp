// Shared by the fault tests (test_mpi_faults.cpp, test_mpi_migration_faults.cpp):
// which ranks fail, and a BlockBalancer whose first check moves elements.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "isocost/mpi/block_balancer.hpp"
#include "mpi_test_support.hpp"

namespace isocost::testing {

/// The first, the middle and the last rank.
inline std::set<int> faulty_ranks() {
  const int P = size_of();
  return {0, P / 2, P - 1};
}

/// Settings with reproducible decisions: no calibration, no decision time,
/// a check every 2 steps on a window of 1, the global plan.
inline mpi::BalancerOptions quiet_pipeline() {
  mpi::BalancerOptions o;
  o.comm = CommModel{};
  o.decision_seconds = 0.0;
  o.monitor.window = 1;
  o.trigger.every = 2;
  o.trigger.min_efficiency = 0.9;
  o.policy = mpi::BalancePolicy::global;
  return o;
}

inline mpi::BlockBalancerOptions block_options() {
  mpi::BlockBalancerOptions o;
  o.pipeline = quiet_pipeline();
  return o;
}

/// All n elements on the last of P ranks.
inline mpi::BlockDistribution all_on_last(std::int64_t n, int P) {
  mpi::BlockDistribution d;
  d.offsets.assign(static_cast<std::size_t>(P) + 1, 0);
  d.offsets.back() = n;
  return d;
}

/// Steps to the first check with every element costing 1 (set_costs): with
/// all elements on the last rank it fires and the global plan spreads them.
inline mpi::BlockPlan first_check(mpi::BlockBalancer& b, double bytes = 8) {
  mpi::BlockPlan plan;
  for (int s = 0; s < 2; ++s) {
    b.set_costs(std::vector<double>(static_cast<std::size_t>(b.local_count()), 1.0));
    b.record_step(static_cast<double>(b.local_count()));
    plan = b.decide(bytes);
  }
  return plan;
}

}  // namespace isocost::testing
