// Balancer overhead (issue 6): what maybe_rebalance() costs when nothing is
// moved — on the k − 1 steps between checks (no communication) and on a check
// step (one MPI_Allreduce; with --overlap an MPI_Iallreduce completed at the
// next call). Run it under mpiexec:
//   mpiexec -n 4 bench_mpi_balancer [--steps 20000] [--every 10] [--overlap]
// A plain MPI program (Google Benchmark picks iteration counts per process;
// every rank must make the same collective calls). Each call is timed with
// the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and with wall time;
// the report gives medians over calls of the slowest rank's figure. The loads
// are recorded with LoadMonitor::record_step (equal on every rank), so no
// check ever fires.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "isocost/mpi/block_balancer.hpp"
#include "mpi_bench_support.hpp"

using isocost::bench::median;
using isocost::bench::thread_cpu;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const auto [rank, P] = isocost::bench::ranks_of();
  int steps = 20000, every = 10;
  bool overlap = false;
  const bool parsed = isocost::bench::parse_args(
      argc, argv,
      {{"--steps", [&](const char* v) { steps = std::atoi(v); }},
       {"--every", [&](const char* v) { every = std::atoi(v); }},
       {"--overlap", [&](const char*) { overlap = true; }, true}},
      "usage: mpiexec -n P bench_mpi_balancer [--steps N] [--every K] [--overlap]");
  if (!parsed) {
    MPI_Finalize();
    return 2;
  }
  if (steps < 1 || every < 1) {
    if (rank == 0) std::fprintf(stderr, "bench_mpi_balancer: --steps and --every must be >= 1\n");
    MPI_Finalize();
    return 2;
  }
  isocost::mpi::BlockBalancerOptions o;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.trigger.every = every;
  o.pipeline.overlap = overlap;
  {  // the balancer must be gone before MPI_Finalize
    isocost::mpi::BlockBalancer b(MPI_COMM_WORLD,
                                  isocost::mpi::BlockDistribution::uniform(1000 * P, P), o);
    std::vector<double> data(1000, 1.0);
    // Per call: (cpu, wall) of this rank, and whether the call communicated.
    std::vector<double> cpu(static_cast<std::size_t>(steps)), wall(cpu.size());
    std::vector<char> collective(cpu.size());
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < steps; ++s) {
      b.record_step(1e-3);
      // Wall time inside the CPU-time interval, so it excludes the (system
      // call) thread clock; the CPU figure includes about half of one.
      const double c0 = thread_cpu(), w0 = MPI_Wtime();
      const auto e = b.maybe_rebalance(data);
      const double w1 = MPI_Wtime();
      cpu[s] = thread_cpu() - c0;
      wall[s] = w1 - w0;
      // A call communicates on a check step, and with overlap on the step after.
      const long long done = s + 1;
      collective[s] = done % every == 0 || (overlap && done % every == 1 && done > 1) ? 1 : 0;
      if (e.action != isocost::Strategy::none) std::fprintf(stderr, "unexpected rebalance\n");
    }
    // The slowest rank per call.
    std::vector<double> cpu_max(cpu.size()), wall_max(cpu.size());
    MPI_Reduce(cpu.data(), cpu_max.data(), steps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(wall.data(), wall_max.data(), steps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::vector<double> quiet_cpu, quiet_wall, check_cpu, check_wall;
      for (int s = 0; s < steps; ++s) {
        (collective[s] ? check_cpu : quiet_cpu).push_back(cpu_max[s]);
        (collective[s] ? check_wall : quiet_wall).push_back(wall_max[s]);
      }
      std::printf(
          "maybe_rebalance() on %d ranks, every %d steps%s, %d calls; medians of the "
          "slowest rank\n",
          P, every, overlap ? ", overlapped check" : "", steps);
      std::printf("%-28s %8s %14s %14s\n", "call", "count", "cpu_us", "wall_us");
      std::printf("%-28s %8zu %14.3f %14.3f\n", "between checks", quiet_cpu.size(),
                  1e6 * median(quiet_cpu), 1e6 * median(quiet_wall));
      std::printf("%-28s %8zu %14.3f %14.3f\n", overlap ? "post or complete a check" : "check step",
                  check_cpu.size(), 1e6 * median(check_cpu), 1e6 * median(check_wall));
    }
  }
  MPI_Finalize();
  return 0;
}
