// Distributed partitions (issue #13): isocost::mpi::partition_weights() and
// partition_points() at scale. Run it under mpiexec:
//   mpiexec -n 4 bench_mpi_partition [--repetitions 5] [--cells 1e7] [--points 1e7]
//                                    [--parts 1024]
// Google Benchmark is not used: its iteration counts are chosen per process,
// and every rank must make the same number of collective calls.
//
// Cases (sizes are totals over the ranks, spread evenly):
//  - weights/spikes: `cells` 1-D weights, 100 with probability 1 % else 1
//    (the random spikes), into `parts` parts.
//  - points/clustered-3d: `points` 3-D points, three Gaussian clusters over a
//    uniform background (the clustered points), weights 1-9.
//  - grid/spikes-2d: a `grid`² grid of spiky weights held in row slabs,
//    decomposed 64×64 (decompose_grid(); `parts` is not used).
//
// Time: per repetition, after a barrier, the slowest rank's wall time of one
// call and the slowest rank's CPU time (CLOCK_THREAD_CPUTIME_ID); the line
// gives their medians and max/avg of the result. With more ranks than cores
// the wall time includes waiting to be scheduled; the CPU time does not.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_weights.hpp"
#include "mpi_bench_support.hpp"

namespace {

using isocost::bench::median;
using isocost::bench::thread_cpu;

struct Settings {
  int repetitions = 5;
  double cells = 1e7, points = 1e7;
  std::int64_t grid = 4096;
  int parts = 1024;
};

// Runs `call` `reps` times; prints the medians of the slowest rank's wall and
// CPU seconds and the result's max/avg.
template <class F>
void time_case(const char* name, int reps, F&& call) {
  const auto r = isocost::bench::ranks_of();
  std::vector<double> wall, cpu;
  double max_over_avg = 0;
  for (int k = 0; k < reps; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime(), c0 = thread_cpu();
    max_over_avg = call();
    double mine[2] = {MPI_Wtime() - t0, thread_cpu() - c0}, worst[2];
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    wall.push_back(worst[0]);
    cpu.push_back(worst[1]);
  }
  if (r.rank == 0)
    std::printf("%-28s ranks %d  wall %9.4f s  cpu %9.4f s  max/avg %.7f\n", name, r.size,
                median(wall), median(cpu), max_over_avg);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Settings s;
  const bool ok = isocost::bench::parse_args(
      argc, argv,
      {{"--repetitions", [&](const char* v) { s.repetitions = std::atoi(v); }},
       {"--cells", [&](const char* v) { s.cells = std::atof(v); }},
       {"--points", [&](const char* v) { s.points = std::atof(v); }},
       {"--parts", [&](const char* v) { s.parts = std::atoi(v); }},
       {"--grid", [&](const char* v) { s.grid = std::atoll(v); }}},
      "usage: bench_mpi_partition [--repetitions 5] [--cells 1e7] [--points 1e7] [--parts 1024] "
      "[--grid 4096]");
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  const int code = isocost::bench::run_cases("bench_mpi_partition", [&] {
    const auto r = isocost::bench::ranks_of();
    const isocost::Speeds speeds = isocost::Speeds::uniform(s.parts);
    std::mt19937_64 rng(static_cast<std::uint64_t>(r.rank) + 1);
    std::uniform_real_distribution<double> u(0, 1);
    {
      const auto n = static_cast<std::size_t>(s.cells / r.size);
      std::vector<double> w(n);
      for (auto& v : w) v = u(rng) < 0.01 ? 100 : 1;
      time_case("weights/spikes", s.repetitions, [&] {
        return 1 + isocost::mpi::partition_weights(MPI_COMM_WORLD, w, speeds).imbalance();
      });
    }
    const auto n = static_cast<std::size_t>(s.points / r.size);
    std::normal_distribution<double> gauss(0, 0.05);
    std::vector<double> xyz(3 * n), w(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = rng() % 4;
      for (std::size_t a = 0; a < 3; ++a)
        xyz[3 * i + a] = c == 3 ? u(rng) : 0.25 * static_cast<double>(c + 1) + gauss(rng);
      w[i] = static_cast<double>(1 + rng() % 9);
    }
    time_case("points/clustered-3d", s.repetitions, [&] {
      return 1 + isocost::mpi::partition_points(MPI_COMM_WORLD, 3, xyz, w, speeds).imbalance();
    });
    const isocost::GridShape shape{2, {s.grid, s.grid, 1}};
    const std::array<std::int64_t, 3> lo{0, s.grid * r.rank / r.size, 0},
        hi{s.grid, s.grid * (r.rank + 1) / r.size, 1};
    std::vector<double> cells(static_cast<std::size_t>(s.grid * (hi[1] - lo[1])));
    for (auto& v : cells) v = u(rng) < 0.01 ? 100 : 1;
    time_case("grid/spikes-2d 64x64", s.repetitions, [&] {
      const isocost::Decomposition d =
          isocost::mpi::decompose_grid(MPI_COMM_WORLD, shape, lo, hi, cells, {{64, 64}, {0, 1}},
                                       isocost::Speeds::uniform(64 * 64));
      return d.max_time / (d.total_cost / (64 * 64));
    });
  });
  MPI_Finalize();
  return code;
}
