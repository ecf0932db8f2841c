// Distributed partitions (issue #13): isocost::mpi::partition_weights(),
// partition_points() and decompose_grid() at scale. Run it under mpiexec:
//   mpiexec -n 4 bench_mpi_partition [--case all|weights|weights-plain|points|grid[,…]]
//       [--size N | --per-rank N] [--repetitions 5] [--parts 1024] [--csv]
//       [--cells 1e7] [--points 1e7] [--grid 4096]
// Google Benchmark is not used: its iteration counts are chosen per process,
// and every rank must make the same number of collective calls.
// scripts/scaling runs it for strong and weak scaling and plots the CSV.
//
// Cases (spread evenly over the ranks):
//  - weights/spikes: `cells` 1-D weights, 100 with probability 1 % else 1
//    (the random spikes), into `parts` parts.
//  - weights/spikes plain (--case weights-plain): the same cut by the glue a
//    user would write instead: a plain double prefix sum into a std::vector,
//    MPI_Exscan of the slice totals, each cut the boundary nearest its target
//    by binary search and MPI_MINLOC, the winner's boundary and sum by
//    MPI_MAX. On these integer weights its cuts must equal the library's.
//  - points/clustered-3d: `points` 3-D points, three Gaussian clusters over a
//    uniform background (the clustered points), weights 1-9.
//  - grid/spikes-2d: a `grid`² grid of spiky weights held in row slabs,
//    decomposed 64×64 (decompose_grid(); `parts` is not used).
// --size N sets the total of the chosen cases (cells, points, grid cells: the
// grid is the nearest square); --per-rank N sets N per rank, N × ranks in
// all (weak scaling; reported as such).
//
// Measures, per repetition (after a barrier) the slowest rank's value of:
// wall time of the call; its thread CPU time (CLOCK_THREAD_CPUTIME_ID); the
// wall and CPU time inside MPI calls (mpi_time.cpp, a PMPI wrapper) and the
// rest, compute; the peak resident memory the call added (rank_memory.hpp).
// Each is a median over the repetitions; each is its own slowest rank, so
// compute + MPI need not add up to the wall time. With more ranks than cores
// the wall time includes waiting to be scheduled, and so does MPI time (a
// collective waits for descheduled ranks); the CPU times do not.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_weights.hpp"
#include "mpi_bench_support.hpp"
#include "mpi_time.hpp"
#include "rank_memory.hpp"

namespace {

using isocost::bench::median;
using isocost::bench::thread_cpu;

struct Settings {
  int repetitions = 5;
  double cells = 1e7, points = 1e7, grid_cells = 4096.0 * 4096.0;
  int parts = 1024;
  bool weights_case = true, plain_case = true, points_case = true, grid_case = true;
  double size = 0, per_rank = 0;  // 0: not given
  bool csv = false;
};

// One case's medians over the repetitions, each the slowest rank's.
struct Row {
  std::string name;
  std::int64_t total = 0;
  int parts = 0;
  double input_mib = 0;  // this rank's input arrays (not part of the growth)
  double wall = 0, cpu = 0, mpi_wall = 0, mpi_cpu = 0, compute_wall = 0, compute_cpu = 0;
  double calls = 0, growth_mib = 0, peak_mib = 0, max_over_avg = 0;
  const char* memory_method = "";
};

constexpr const char* kCsvHeader =
    "case,scaling,ranks,total,per_rank,parts,repetitions,wall_s,cpu_s,compute_cpu_s,mpi_wall_s,"
    "mpi_cpu_s,compute_wall_s,mpi_calls,mem_growth_mib,mem_peak_mib,input_mib,mem_method,"
    "max_over_avg";

void print(const Row& row, const Settings& s, int ranks) {
  if (!s.csv) {
    std::printf(
        "%-22s ranks %d  n %.3g  wall %8.4f s  cpu %8.4f s (compute %8.4f, MPI %8.4f)  "
        "MPI wall %8.4f s  +mem %7.1f MiB  max/avg %.7f\n",
        row.name.c_str(), ranks, static_cast<double>(row.total), row.wall, row.cpu, row.compute_cpu,
        row.mpi_cpu, row.mpi_wall, row.growth_mib, row.max_over_avg);
    return;
  }
  std::printf(
      "%s,%s,%d,%lld,%.0f,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.0f,%.4g,%.4g,%.4g,%s,%.9g\n",
      row.name.c_str(), s.per_rank > 0 ? "weak" : "strong", ranks,
      static_cast<long long>(row.total), static_cast<double>(row.total) / ranks, row.parts,
      s.repetitions, row.wall, row.cpu, row.compute_cpu, row.mpi_wall, row.mpi_cpu,
      row.compute_wall, row.calls, row.growth_mib, row.peak_mib, row.input_mib, row.memory_method,
      row.max_over_avg);
}

// Runs `call` (returning max/avg of its result) s.repetitions times and
// prints the medians.
template <class F>
void time_case(Row row, const Settings& s, F&& call) {
  const auto r = isocost::bench::ranks_of();
  enum { kWall, kCpu, kMpiWall, kMpiCpu, kComputeWall, kComputeCpu, kCalls, kGrowth, kPeak, kN };
  std::vector<std::vector<double>> series(kN);
  isocost::bench::MemoryWatch memory;
  for (int k = 0; k < s.repetitions; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    memory.start();
    isocost::bench::mpi_time_start();
    const double t0 = MPI_Wtime(), c0 = thread_cpu();
    row.max_over_avg = call();
    const double wall = MPI_Wtime() - t0, cpu = thread_cpu() - c0;
    const isocost::bench::MpiTime mpi = isocost::bench::mpi_time_stop();
    const isocost::bench::PeakMemory mem = memory.stop();
    double mine[kN], worst[kN];
    mine[kWall] = wall;
    mine[kCpu] = cpu;
    mine[kMpiWall] = mpi.wall;
    mine[kMpiCpu] = mpi.cpu;
    mine[kComputeWall] = wall - mpi.wall;
    mine[kComputeCpu] = cpu - mpi.cpu;
    mine[kCalls] = static_cast<double>(mpi.calls);
    mine[kGrowth] = mem.growth_mib;
    mine[kPeak] = mem.peak_mib;
    MPI_Allreduce(mine, worst, kN, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < kN; ++i) series[i].push_back(worst[i]);
  }
  row.wall = median(series[kWall]);
  row.cpu = median(series[kCpu]);
  row.mpi_wall = median(series[kMpiWall]);
  row.mpi_cpu = median(series[kMpiCpu]);
  row.compute_wall = median(series[kComputeWall]);
  row.compute_cpu = median(series[kComputeCpu]);
  row.calls = median(series[kCalls]);
  row.growth_mib = median(series[kGrowth]);
  row.peak_mib = median(series[kPeak]);
  row.memory_method = memory.method();
  double input = row.input_mib;  // the largest rank's
  MPI_Allreduce(&input, &row.input_mib, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (r.rank == 0) print(row, s, r.size);
}

constexpr double kMiB = 1024.0 * 1024.0;

// This rank's share [lo, hi) of n items spread evenly over the ranks.
std::pair<std::int64_t, std::int64_t> share(std::int64_t n, isocost::bench::Ranks r) {
  return {n * r.rank / r.size, n * (r.rank + 1) / r.size};
}

// The plain version a user would write (see the top): its cuts and max/avg.
struct PlainCuts {
  std::vector<std::int64_t> cuts;  // the P - 1 inner ones
  double max_over_avg = 0;
};
PlainCuts plain_weights(const std::vector<double>& w, int parts) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> pre(w.size() + 1);
  for (std::size_t i = 0; i < w.size(); ++i) pre[i + 1] = pre[i] + w[i];
  double offset = 0, total = 0;
  const double mine = pre.back();
  MPI_Exscan(&mine, &offset, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) offset = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::int64_t first = static_cast<std::int64_t>(w.size());
  MPI_Exscan(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) first = 0;
  struct DoubleInt {
    double distance;
    int rank;
  };
  std::vector<DoubleInt> near(static_cast<std::size_t>(parts) - 1);
  std::vector<std::int64_t> at(near.size());
  for (std::size_t k = 0; k < near.size(); ++k) {
    const double target = total * static_cast<double>(k + 1) / parts - offset;
    auto j =
        static_cast<std::size_t>(std::lower_bound(pre.begin(), pre.end(), target) - pre.begin());
    if (j == pre.size() || (j > 0 && target - pre[j - 1] <= pre[j] - target)) --j;
    near[k] = {std::abs(pre[j] - target), rank};
    at[k] = static_cast<std::int64_t>(j);
  }
  MPI_Allreduce(MPI_IN_PLACE, near.data(), static_cast<int>(near.size()), MPI_DOUBLE_INT,
                MPI_MINLOC, MPI_COMM_WORLD);
  // Each cut's boundary and t from its winner, -1 and 0 elsewhere.
  PlainCuts out;
  out.cuts.assign(near.size(), -1);
  std::vector<double> t(near.size(), 0.0);
  for (std::size_t k = 0; k < near.size(); ++k)
    if (near[k].rank == rank) {
      out.cuts[k] = first + at[k];
      t[k] = offset + pre[static_cast<std::size_t>(at[k])];
    }
  MPI_Allreduce(MPI_IN_PLACE, out.cuts.data(), static_cast<int>(t.size()), MPI_INT64_T, MPI_MAX,
                MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
  double largest = 0, before = 0;
  for (std::size_t k = 0; k <= t.size(); ++k) {
    const double end = k < t.size() ? t[k] : total;
    largest = std::max(largest, end - before);
    before = end;
  }
  out.max_over_avg = largest / (total / parts);
  return out;
}

void run(const Settings& s) {
  const auto r = isocost::bench::ranks_of();
  const isocost::Speeds speeds = isocost::Speeds::uniform(s.parts);
  std::mt19937_64 rng(static_cast<std::uint64_t>(r.rank) + 1);
  std::uniform_real_distribution<double> u(0, 1);
  if (s.weights_case) {
    const auto n = static_cast<std::int64_t>(std::llround(s.cells));
    const auto [lo, hi] = share(n, r);
    std::vector<double> w(static_cast<std::size_t>(hi - lo));
    for (auto& v : w) v = u(rng) < 0.01 ? 100 : 1;
    time_case({"weights/spikes", n, s.parts, 8.0 * static_cast<double>(w.size()) / kMiB}, s, [&] {
      return 1 + isocost::mpi::partition_weights(MPI_COMM_WORLD, w, speeds).imbalance();
    });
  }
  if (s.plain_case) {
    std::mt19937_64 same(static_cast<std::uint64_t>(r.rank) + 1);  // the weights case's weights
    const auto n = static_cast<std::int64_t>(std::llround(s.cells));
    const auto [lo, hi] = share(n, r);
    std::vector<double> w(static_cast<std::size_t>(hi - lo));
    for (auto& v : w) v = u(same) < 0.01 ? 100 : 1;
    time_case({"weights/spikes plain", n, s.parts, 8.0 * static_cast<double>(w.size()) / kMiB}, s,
              [&] { return plain_weights(w, s.parts).max_over_avg; });
    // Integer weights sum exactly both ways: the same cuts.
    const PlainCuts plain = plain_weights(w, s.parts);
    const auto library = isocost::mpi::partition_weights(MPI_COMM_WORLD, w, speeds);
    if (!std::equal(plain.cuts.begin(), plain.cuts.end(), library.cuts.begin() + 1))
      throw isocost::Error(
          "weights/spikes plain: its cuts differ from the library's; expected equal");
  }
  if (s.points_case) {
    const auto all = static_cast<std::int64_t>(std::llround(s.points));
    const auto [lo, hi] = share(all, r);
    const auto n = static_cast<std::size_t>(hi - lo);
    std::normal_distribution<double> gauss(0, 0.05);
    std::vector<double> xyz(3 * n), w(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = rng() % 4;
      for (std::size_t a = 0; a < 3; ++a)
        xyz[3 * i + a] = c == 3 ? u(rng) : 0.25 * static_cast<double>(c + 1) + gauss(rng);
      w[i] = static_cast<double>(1 + rng() % 9);
    }
    time_case({"points/clustered-3d", all, s.parts, 32.0 * static_cast<double>(n) / kMiB}, s, [&] {
      return 1 + isocost::mpi::partition_points(MPI_COMM_WORLD, 3, xyz, w, speeds).imbalance();
    });
  }
  if (s.grid_case) {
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(s.grid_cells)));
    const isocost::GridShape shape{2, {side, side, 1}};
    const auto [row_lo, row_hi] = share(side, r);
    const std::array<std::int64_t, 3> lo{0, row_lo, 0}, hi{side, row_hi, 1};
    std::vector<double> cells(static_cast<std::size_t>(side * (row_hi - row_lo)));
    for (auto& v : cells) v = u(rng) < 0.01 ? 100 : 1;
    time_case({"grid/spikes-2d-64x64", side * side, 64 * 64,
               8.0 * static_cast<double>(cells.size()) / kMiB},
              s, [&] {
                const isocost::Decomposition d = isocost::mpi::decompose_grid(
                    MPI_COMM_WORLD, shape, lo, hi, cells, {{64, 64}, {0, 1}},
                    isocost::Speeds::uniform(64 * 64));
                return d.max_time / (d.total_cost / (64 * 64));
              });
  }
}

// "--case a,b": the listed cases only.
bool choose_cases(Settings& s, const std::string& list) {
  s.weights_case = s.plain_case = s.points_case = s.grid_case = false;
  std::stringstream in(list);
  for (std::string c; std::getline(in, c, ',');) {
    if (c == "all")
      s.weights_case = s.plain_case = s.points_case = s.grid_case = true;
    else if (c == "weights")
      s.weights_case = true;
    else if (c == "weights-plain")
      s.plain_case = true;
    else if (c == "points")
      s.points_case = true;
    else if (c == "grid")
      s.grid_case = true;
    else
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  isocost::bench::steady_malloc();
  Settings s;
  bool cases_ok = true;
  const char* usage =
      "usage: bench_mpi_partition [--case all|weights|weights-plain|points|grid[,...]] [--size N | "
      "--per-rank N]"
      " [--repetitions 5] [--parts 1024] [--csv] [--cells 1e7] [--points 1e7] [--grid 4096]";
  bool ok = isocost::bench::parse_args(
      argc, argv,
      {{"--repetitions", [&](const char* v) { s.repetitions = std::atoi(v); }},
       {"--cells", [&](const char* v) { s.cells = std::atof(v); }},
       {"--points", [&](const char* v) { s.points = std::atof(v); }},
       {"--parts", [&](const char* v) { s.parts = std::atoi(v); }},
       {"--grid", [&](const char* v) { s.grid_cells = std::pow(std::atof(v), 2); }},
       {"--case", [&](const char* v) { cases_ok = choose_cases(s, v); }},
       {"--size", [&](const char* v) { s.size = std::atof(v); }},
       {"--per-rank", [&](const char* v) { s.per_rank = std::atof(v); }},
       {"--csv", [&](const char*) { s.csv = true; }, true}},
      usage);
  const auto r = isocost::bench::ranks_of();
  if (ok && (!cases_ok || s.repetitions < 1 || s.parts < 1 || s.size < 0 || s.per_rank < 0 ||
             (s.size > 0 && s.per_rank > 0))) {
    if (r.rank == 0) std::fprintf(stderr, "%s\n", usage);
    ok = false;
  }
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  const double total = s.per_rank > 0 ? s.per_rank * r.size : s.size;
  if (total > 0) s.cells = s.points = s.grid_cells = total;
  if (s.csv && r.rank == 0) std::printf("%s\n", kCsvHeader);
  const int code = isocost::bench::run_cases("bench_mpi_partition", [&] { run(s); });
  MPI_Finalize();
  return code;
}
