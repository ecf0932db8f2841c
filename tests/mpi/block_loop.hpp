// The application loop of the BlockBalancer tests: synthetic, deterministic
// loads (element i costs w(i, step) seconds; every rank computes every rank's
// step time from the distribution in force and records its own), and a check
// at the end that every element (carrying its global index) is in place.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#include "isocost/mpi/block_balancer.hpp"
#include "mpi_test_support.hpp"

namespace isocost::testing {

using isocost::mpi::BalancePolicy;
using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BlockEvent;

// Element cost: w(i, step) seconds.
using Weight = std::function<double(std::int64_t, int)>;

// Every rank's step time under distribution `d`.
inline std::vector<double> step_loads(const BlockDistribution& d, const Weight& w, int step) {
  std::vector<double> t(static_cast<std::size_t>(d.parts()), 0.0);
  for (int r = 0; r < d.parts(); ++r)
    for (std::int64_t i = d.begin(r); i < d.end(r); ++i) t[r] += w(i, step);
  return t;
}

// Settings that make decisions reproducible: a given comm model, fixed costs,
// and the drift trigger alone (the profit trigger weighs the measured cost of
// the earlier rebalances).
inline BlockBalancerOptions quiet_options() {
  BlockBalancerOptions o;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.profit_trigger = false;
  o.pipeline.monitor.window = 1;
  o.pipeline.trigger.every = 2;
  o.pipeline.trigger.drift_threshold = 0.1;
  o.pipeline.steps_ahead = 100;
  o.pipeline.policy = BalancePolicy::global;
  return o;
}

// Eijkhout §4's moving bell in ms: w(x, t) = 1 + 9·exp(−((x − s(t))/width)²)
// over N elements, the peak s moving from `from` to `to` over `steps` steps.
inline Weight moving_bell(std::int64_t N, int steps, double from, double to, double width) {
  return [=](std::int64_t i, int step) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(N);
    const double z = (x - (from + (to - from) * step / steps)) / width;
    return 1e-3 * (1 + 9 * std::exp(-z * z));
  };
}

struct LoopRun {
  std::vector<BlockEvent> checks;  // every event with checked = true
  std::vector<BlockEvent> calls;   // every event
  double mean_efficiency = 0;      // mean over steps of T_avg/T_max
  double total_time = 0;           // Σ_steps T_max + Σ rebalance seconds
  BlockDistribution final;
};

// The application loop: `steps` steps, loads from `w`, maybe_rebalance() after
// every step when `balance`. Checks the data at the end.
inline LoopRun run_loop(const BlockBalancerOptions& o, std::int64_t N, int steps, const Weight& w,
                        bool balance) {
  const int rank = rank_of(), P = size_of();
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(N, P), o);
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
    b.record_step(t[rank]);
    if (!balance) continue;
    const BlockEvent e = b.maybe_rebalance(data);
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

}  // namespace isocost::testing
