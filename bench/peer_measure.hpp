// bench_peers' measurement (issue #13): medians of the slowest rank's wall
// and CPU time, and every partitioner's balance summed from the raw weights
// by the same code, whatever form its result takes (a part per object, 1-D
// cuts, or boxes of cells).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"

namespace isocost::bench {

/// Medians over the repetitions of the slowest rank's wall time and of the
/// largest per-rank CPU time (this thread's CLOCK_THREAD_CPUTIME_ID), seconds,
/// and the CPU time's least and largest repetition: the spread a rerun on a
/// shared machine should be compared with.
struct Timing {
  double wall = 0, cpu = 0;
  double cpu_min = 0, cpu_max = 0;
  int repetitions = 0;
};

/// Runs `call` `reps` times, each after a barrier, and times it.
template <class F>
Timing time_it(int reps, F&& call);

/// Each part's total weight over all ranks (the same on every rank), from
/// this rank's objects' parts. Throws isocost::Error on any rank if an
/// object has no part in [0, P).
std::vector<double> weights_by_part(std::span<const int> part, std::span<const double> w, int P);

/// The same for 1-D cuts (P + 1 global cell boundaries) and this rank's cells
/// [first, first + w.size()).
std::vector<double> weights_by_cuts(std::span<const std::int64_t> cuts, std::int64_t first,
                                    std::span<const double> w);

/// Each local cell's part, for parts given as boxes of cells (2-D, x
/// fastest) and this rank's rows [y0, y1) of an nx-wide grid; -1 where no
/// box covers a cell.
std::vector<int> parts_of_boxes(const std::vector<std::array<std::int64_t, 4>>& boxes,
                                std::int64_t nx, std::int64_t y0, std::int64_t y1);
/// The boxes (x0, x1, y0, y1) of a decomposition's parts.
std::vector<std::array<std::int64_t, 4>> boxes_of(const Decomposition& d);

/// Prints (rank 0) one line: case, method, ranks, max/avg of the part
/// weights, the heaviest part over `optimum` (when > 0), wall and CPU time,
/// and the settings the method was called with.
void report(const std::string& name, const std::string& method, const Timing& t,
            std::span<const double> part_weights, const std::string& settings, double optimum = 0);

/// Prints (rank 0) a case's input: how it is made, which objects each rank
/// holds, the object count, the total weight and a fingerprint, a sum over
/// all objects of a hash of (global index, weight, coordinates) modulo 2^64.
/// The fingerprint does not depend on the layout, so two runs, at any rank
/// counts, had the same input exactly when their fingerprints agree.
/// Collective over MPI_COMM_WORLD.
void describe_input(const std::string& name, const std::string& formula, const std::string& layout,
                    std::int64_t first, std::span<const double> w, std::span<const double> coords,
                    int dims);

double thread_seconds();

/// The time to touch a fresh page the first time (the kernel's fault and
/// zeroing), microseconds: the median of 3 times 64 MiB of anonymous memory,
/// touched page by page. Zoltan and MultiJagged allocate, fill and free
/// arrays as large as their input at every call, so on large inputs their
/// times move with this machine-wide cost; it is printed with every run.
double page_fault_microseconds();

template <class F>
Timing time_it(int reps, F&& call) {
  std::vector<double> wall, cpu;
  for (int k = 0; k < reps; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime(), c0 = thread_seconds();
    call();
    double mine[2] = {MPI_Wtime() - t0, thread_seconds() - c0}, worst[2];
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    wall.push_back(worst[0]);
    cpu.push_back(worst[1]);
  }
  Timing t;
  t.repetitions = reps;
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  // The median (the mean of the middle two for an even count).
  const auto mid = [](const std::vector<double>& v) {
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  };
  t.wall = mid(wall);
  t.cpu = mid(cpu);
  t.cpu_min = cpu.front();
  t.cpu_max = cpu.back();
  return t;
}

}  // namespace isocost::bench
