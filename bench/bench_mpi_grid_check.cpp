// What a GridBalancer check costs with per-cell costs (issue #24), against
// the check a code would write itself. Run it under mpiexec:
//   mpiexec -n 4 bench_mpi_grid_check [--cells 1024] [--repetitions 11]
//
// P ranks in a jagged process grid of P/2 columns of 2 (rows for odd P) over
// an n × n grid whose cells cost 1, and 21 in a hot square. Every call is a
// check that plans (window 1, a check every step, any drift fires, free
// rebalances); nothing is applied, so every call plans from the same layout.
// Ways:
//  - `global`, `diffusion`: GridBalancer::decide() after record_step() and
//    set_costs(), policy global or diffusion; `loads global`, `loads
//    diffusion`: the same from the loads alone (no set_costs());
//  - `plain`: the code's own check: MPI_Allreduce of the x-marginal, column
//    cuts at equal prefix sums, MPI_Allreduce of every new column's
//    y-marginal, row cuts likewise;
//  - `gathered`: MPI_Allgatherv of every cell's cost, then
//    rebalance_grid_diffusive() on the whole grid: the diffusive plan as it
//    was before it read marginals (the same plan, checked).
// Time per call: the slowest rank's wall time and the largest per-rank CPU
// time (CLOCK_THREAD_CPUTIME_ID), medians over repetitions.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "isocost/mpi/grid_balancer.hpp"
#include "mpi_bench_support.hpp"

namespace {

using i64 = std::int64_t;
using isocost::bench::median;
using isocost::mpi::CellBox;

using isocost::bench::Timing;

template <class F>
Timing time_it(MPI_Comm comm, int repetitions, F&& call) {
  return isocost::bench::time_calls(
      comm, repetitions, [] {}, call);
}

// Cuts of `m` (per-index costs) into `parts` ranges of equal prefix sums.
std::vector<i64> equal_cuts(const std::vector<double>& m, int parts) {
  std::vector<double> prefix(m.size() + 1, 0.0);
  std::partial_sum(m.begin(), m.end(), prefix.begin() + 1);
  std::vector<i64> cuts{0};
  for (int k = 1; k < parts; ++k)
    cuts.push_back(std::lower_bound(prefix.begin(), prefix.end(), prefix.back() * k / parts) -
                   prefix.begin());
  cuts.push_back(static_cast<i64>(m.size()));
  return cuts;
}

// The code's own check: two reductions of marginals and prefix-sum cuts.
std::vector<i64> plain_check(MPI_Comm comm, i64 n, const CellBox& b, const std::vector<double>& c,
                             int px, int py) {
  std::vector<double> mx(static_cast<std::size_t>(n), 0.0);
  std::size_t at = 0;
  for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
    for (i64 i = b.lo[0]; i < b.hi[0]; ++i) mx[static_cast<std::size_t>(i)] += c[at++];
  MPI_Allreduce(MPI_IN_PLACE, mx.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, comm);
  std::vector<i64> cuts = equal_cuts(mx, px);
  std::vector<double> my(static_cast<std::size_t>(px * n), 0.0);
  at = 0;
  for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
    for (i64 i = b.lo[0]; i < b.hi[0]; ++i) {
      const auto col = std::upper_bound(cuts.begin(), cuts.end(), i) - cuts.begin() - 1;
      my[static_cast<std::size_t>(col * n + j)] += c[at++];
    }
  MPI_Allreduce(MPI_IN_PLACE, my.data(), static_cast<int>(my.size()), MPI_DOUBLE, MPI_SUM, comm);
  for (int col = 0; col < px; ++col) {
    const std::vector<double> m(my.begin() + col * n, my.begin() + (col + 1) * n);
    const std::vector<i64> rows = equal_cuts(m, py);
    cuts.insert(cuts.end(), rows.begin(), rows.end());
  }
  return cuts;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int cells = 1024, repetitions = 11;
  const bool parsed = isocost::bench::parse_args(
      argc, argv,
      {{"--cells", [&](const char* v) { cells = std::atoi(v); }},
       {"--repetitions", [&](const char* v) { repetitions = std::max(1, std::atoi(v)); }}},
      "usage: bench_mpi_grid_check [--cells 1024] [--repetitions 11]");
  if (!parsed || cells < 4) {
    MPI_Finalize();
    return 2;
  }
  MPI_Comm comm = MPI_COMM_WORLD;
  const auto [rank, P] = isocost::bench::ranks_of(comm);
  const i64 n = cells;
  const isocost::GridShape shape{2, {n, n, 1}};
  const int px = P % 2 == 0 && P > 2 ? P / 2 : P, py = P / px;
  const isocost::ProcessGrid pg =
      py > 1 ? isocost::ProcessGrid{{px, py}, {0, 1}} : isocost::ProcessGrid{{P}, {0}};
  const auto cost = [n](i64 i, i64 j) {
    return i > n / 2 && i < 3 * n / 4 && j > n / 4 && j < n / 2 ? 21.0 : 1.0;
  };
  const int status = isocost::bench::run_cases("bench_mpi_grid_check", [&] {
    const isocost::Decomposition start = isocost::decompose_uniform(shape, pg);
    if (rank == 0) {
      std::printf("# %d ranks (%s), %lld x %lld cells; ms per check: median over %d\n", P,
                  pg.name().c_str(), static_cast<long long>(n), static_cast<long long>(n),
                  repetitions);
      std::printf("%-16s %9s %9s\n", "way", "wall ms", "cpu ms");
    }
    const auto report = [&](const char* way, const Timing& t) {
      if (rank == 0)
        std::printf("%-16s %9.3f %9.3f\n", way, 1e3 * median(t.wall), 1e3 * median(t.cpu));
      std::fflush(stdout);
    };
    isocost::Decomposition diffusive;
    for (const int way : {0, 1, 2, 3}) {
      const auto policy = way % 2 == 0 ? isocost::mpi::BalancePolicy::global
                                       : isocost::mpi::BalancePolicy::diffusion;
      const bool costs = way < 2;
      isocost::mpi::GridBalancerOptions o;
      o.pipeline.comm = isocost::CommModel{};
      o.pipeline.decision_seconds = 0.0;
      o.pipeline.monitor.window = 1;
      o.pipeline.trigger.every = 1;
      o.pipeline.trigger.drift_threshold = 1e-9;
      o.pipeline.policy = policy;
      isocost::mpi::GridBalancer b(comm, shape, start, o);
      const CellBox& box = b.boxes().boxes[static_cast<std::size_t>(rank)];
      std::vector<double> c;
      for (i64 j = box.lo[1]; j < box.hi[1]; ++j)
        for (i64 i = box.lo[0]; i < box.hi[0]; ++i) c.push_back(cost(i, j));
      const double load = 1e-3 * std::accumulate(c.begin(), c.end(), 0.0);
      isocost::mpi::GridPlan plan;
      const Timing t = time_it(comm, repetitions, [&] {
        b.record_step(load);
        if (costs) b.set_costs(c);
        plan = b.decide();
      });
      if (plan.rebalance.method() == isocost::PlanMethod::none)
        throw isocost::Error("the check did not plan");
      if (way == 1) diffusive = plan.rebalance.decomposition;
      const char* names[] = {"global", "diffusion", "loads global", "loads diffusion"};
      report(names[way], t);
    }
    const auto boxes = isocost::mpi::BoxDistribution::from_decomposition(start);
    const CellBox& box = boxes.boxes[static_cast<std::size_t>(rank)];
    std::vector<double> c;
    for (i64 j = box.lo[1]; j < box.hi[1]; ++j)
      for (i64 i = box.lo[0]; i < box.hi[0]; ++i) c.push_back(cost(i, j));
    std::vector<i64> cuts;
    report("plain",
           time_it(comm, repetitions, [&] { cuts = plain_check(comm, n, box, c, px, py); }));
    // The gathered way: every cell's cost on every rank, then the serial plan.
    std::vector<double> loads(static_cast<std::size_t>(P));
    const double mine = 1e-3 * std::accumulate(c.begin(), c.end(), 0.0);
    MPI_Allgather(&mine, 1, MPI_DOUBLE, loads.data(), 1, MPI_DOUBLE, comm);
    isocost::GridRebalance gathered;
    report("gathered", time_it(comm, repetitions, [&] {
             std::vector<int> counts(static_cast<std::size_t>(P)), displ(counts.size(), 0);
             for (int r = 0; r < P; ++r)
               counts[static_cast<std::size_t>(r)] = static_cast<int>(boxes.count(r));
             std::partial_sum(counts.begin(), counts.end() - 1, displ.begin() + 1);
             std::vector<double> all(static_cast<std::size_t>(n * n)), grid(all.size());
             MPI_Allgatherv(c.data(), static_cast<int>(c.size()), MPI_DOUBLE, all.data(),
                            counts.data(), displ.data(), MPI_DOUBLE, comm);
             std::size_t at = 0;
             for (int r = 0; r < P; ++r) {
               const CellBox& q = boxes.boxes[static_cast<std::size_t>(r)];
               for (i64 j = q.lo[1]; j < q.hi[1]; ++j)
                 for (i64 i = q.lo[0]; i < q.hi[0]; ++i)
                   grid[static_cast<std::size_t>(i + n * j)] = all[at++];
             }
             gathered = isocost::rebalance_grid_diffusive(shape, start, loads, {}, grid);
           }));
    for (std::size_t r = 0; r < diffusive.parts.size(); ++r)
      if (diffusive.parts[r].cell_lo != gathered.decomposition.parts[r].cell_lo ||
          diffusive.parts[r].cell_hi != gathered.decomposition.parts[r].cell_hi)
        throw isocost::Error("the diffusive check and the gathered plan differ at part " +
                             std::to_string(r));
  });
  MPI_Finalize();
  return status;
}
