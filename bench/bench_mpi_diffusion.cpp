// Distributed diffusion timing (issue 5): CPU time per step of
// isocost::mpi::diffuse() with one mesh node per rank. Run it under mpiexec:
//   mpiexec -n 8 bench_mpi_diffusion [--repetitions 21] [--min-time 0.05] [--filter REGEX]
// Google Benchmark is not used: its iteration counts are chosen per process,
// and every rank must make the same number of collective calls.
//
// Times are CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), per
// rank: with more ranks than cores a rank's wall time is mostly waiting for
// the others to be scheduled. Per repetition, each rank times `inner` calls;
// the line reports the median over repetitions of the slowest rank's CPU time
// per step (and of the ranks' mean), the wall time per step on rank 0 (after a
// barrier), and, for comparison, the serial diffuse() of the same mesh on one
// rank (CPU time per step). Waiting inside MPI still costs CPU time (OpenMPI
// polls, yielding when oversubscribed), so the per-rank figure is an upper
// bound on the work a rank does.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/diffusion.hpp"
#include "mpi_bench_support.hpp"

namespace {

using isocost::DiffusionOptions;
using isocost::DiffusionScheme;
using isocost::bench::median;
using isocost::bench::thread_cpu;

std::string mesh_name(const std::vector<int>& dims, bool torus) {
  std::string s;
  for (std::size_t a = 0; a < dims.size(); ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s + (torus ? "_torus" : "");
}

struct Settings {
  int repetitions = 21;
  double min_time = 0.05;  // seconds of wall time per repetition, at least
  std::string filter = ".";
};

// One case on every rank: loads by rank (the same vector everywhere).
void run(MPI_Comm world, const Settings& s, std::vector<int> dims, bool torus, bool hot,
         DiffusionScheme scheme) {
  const auto [rank, P] = isocost::bench::ranks_of(world);
  MPI_Comm cart = isocost::mpi::mesh_communicator(world, dims, torus);
  const auto g = isocost::mpi::cart_graph(cart);
  const std::string label = "BM_MpiDiffuse/" + mesh_name(g.mesh, torus) + "/" +
                            (hot ? "hot" : "random") + "/" + std::string(to_string(scheme));
  if (!std::regex_search(label, std::regex(s.filter))) {
    MPI_Comm_free(&cart);
    return;
  }
  std::vector<double> loads(static_cast<std::size_t>(P), 0.0);
  if (hot) {
    loads[static_cast<std::size_t>((P - 1) / 2)] = P;
  } else {
    unsigned x = 12345;  // a fixed LCG: the same loads on every rank
    for (auto& v : loads) {
      x = x * 1103515245u + 12345u;
      v = static_cast<double>((x >> 8) & 0xffff) / 65536.0;
    }
  }
  DiffusionOptions o;  // α = 0.05
  o.scheme = scheme;
  const double mine = loads[static_cast<std::size_t>(rank)];

  // Warm up, and choose the inner count on rank 0's wall time.
  MPI_Barrier(cart);
  double w0 = MPI_Wtime();
  auto r = isocost::mpi::diffuse(cart, mine, o);
  int inner = static_cast<int>(std::ceil(s.min_time / std::max(MPI_Wtime() - w0, 1e-7)));
  inner = std::clamp(inner, 1, 100000);
  MPI_Bcast(&inner, 1, MPI_INT, 0, cart);
  const double steps = std::max(r.steps, 1);

  std::vector<double> cpu_max, cpu_mean, wall;
  for (int rep = 0; rep < s.repetitions; ++rep) {
    MPI_Barrier(cart);
    w0 = MPI_Wtime();
    const double c0 = thread_cpu();
    for (int i = 0; i < inner; ++i) r = isocost::mpi::diffuse(cart, mine, o);
    const double per_step = (thread_cpu() - c0) / inner / steps;
    const double w = (MPI_Wtime() - w0) / inner / steps;
    double mx = 0, sum = 0;
    MPI_Reduce(&per_step, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
    MPI_Reduce(&per_step, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
    cpu_max.push_back(mx);
    cpu_mean.push_back(sum / P);
    wall.push_back(w);
  }

  // The serial diffuse() of the same mesh, on rank 0 alone.
  double serial = 0;
  if (rank == 0) {
    const auto u = loads;
    auto sr = isocost::diffuse(g, u, o);
    const double c0 = thread_cpu();
    int n = 0;
    do {
      sr = isocost::diffuse(g, u, o);
      ++n;
    } while (thread_cpu() - c0 < s.min_time);
    serial = (thread_cpu() - c0) / n / std::max(sr.steps, 1);
  }
  MPI_Barrier(cart);
  if (rank == 0)
    std::printf("%-40s %3d %6d %3d %9.2f %14.3f %15.3f %14.3f %13.3f %12.3f\n", label.c_str(), P,
                r.steps, r.sweeps_per_step, static_cast<double>(r.neighbour_exchanges) / steps,
                1e6 * median(cpu_max), 1e6 * median(cpu_mean), 1e6 * median(wall), 1e6 * serial,
                1e3 * median(cpu_max) * steps);
  std::fflush(stdout);
  MPI_Comm_free(&cart);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const auto [rank, P] = isocost::bench::ranks_of();
  Settings s;
  const bool parsed = isocost::bench::parse_args(
      argc, argv,
      {{"--repetitions", [&](const char* v) { s.repetitions = std::max(1, std::atoi(v)); }},
       {"--min-time", [&](const char* v) { s.min_time = std::atof(v); }},
       {"--filter", [&](const char* v) { s.filter = v; }}},
      "usage: mpiexec -n P bench_mpi_diffusion [--repetitions R] [--min-time SECONDS] "
      "[--filter REGEX]");
  if (!parsed) {
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    std::printf(
        "CPU time per rank (CLOCK_THREAD_CPUTIME_ID); medians of %d repetitions; alpha = 0.05\n"
        "%-40s %3s %6s %3s %9s %14s %15s %14s %13s %12s\n",
        s.repetitions, "case", "P", "steps", "nu", "exch/step", "cpu_us/step", "mean_us/step",
        "wall_us/step", "serial_us/st", "cpu_ms/call");
  const int status = isocost::bench::run_cases("bench_mpi_diffusion", [&] {
    const DiffusionScheme schemes[] = {DiffusionScheme::explicit_euler, DiffusionScheme::implicit,
                                       DiffusionScheme::crank_nicolson,
                                       DiffusionScheme::least_squares};
    const std::vector<std::pair<std::vector<int>, bool>> meshes{
        {{0, 0, 0}, true}, {{0, 0, 0}, false}, {{0, 0}, false}, {{P}, true}, {{P}, false}};
    for (const auto& [dims, torus] : meshes)
      for (bool hot : {true, false})
        for (auto scheme : schemes) run(MPI_COMM_WORLD, s, dims, torus, hot, scheme);
  });
  MPI_Finalize();
  return status;
}
