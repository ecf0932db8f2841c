// Migration throughput (issue 6): isocost::mpi::redistribute() and migrate()
// versus data size. Run it under mpiexec:
//   mpiexec -n 4 bench_mpi_migrate [--repetitions 11] [--max-elements 1e7] [--filter REGEX]
// Google Benchmark is not used: its iteration counts are chosen per process,
// and every rank must make the same number of collective calls.
//
// Cases (N elements in all, P ranks, 25 % of the elements change owner):
//  - BM_Redistribute1D/N: N doubles, uniform blocks → every interior boundary
//    moved right by s = N/(4(P − 1)) (so (P − 1)·s = N/4 elements move, each to
//    the next rank), alternating there and back; redistribute_into() reusing
//    the output vector. `raw` is a hand-written MPI_Alltoallv of the same pieces
//    (MPI_DOUBLE, straight between the vectors): the floor the library's
//    validation, agreement and summary reductions add to.
//  - BM_Redistribute1D_Verify/N: the same with options.verify (checksums).
//  - BM_RedistributeBox3D_{z,x}/N: an n³ grid of doubles (n³ ≈ N) in P slabs
//    cut along z (pieces are whole planes: contiguous) or along x (pieces are
//    short rows: packed row by row), boundaries moved by n/(4(P − 1)) planes.
//  - BM_MigrateTasks/N: N/128 tasks of 1 KiB (std::vector<double> of 128), a
//    quarter of them moving to the next rank, with size/pack/unpack/free
//    callbacks over a std::unordered_map; alternating there and back.
//
// Time: per repetition, wall time of one call on each rank after a barrier;
// the line reports the median over repetitions of the slowest rank's wall
// time, MB/s = global bytes moved / that time (1 MB = 10^6 bytes), and the
// median of the slowest rank's CPU time (CLOCK_THREAD_CPUTIME_ID). With more
// ranks than cores the wall time includes waiting to be scheduled; OpenMPI
// polls while it waits, so CPU time is an upper bound on a rank's work.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/migrate.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "mpi_bench_support.hpp"

namespace {

using i64 = std::int64_t;
using isocost::bench::median;
using isocost::bench::thread_cpu;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BoxDistribution;

struct Settings {
  int repetitions = 11;
  double max_elements = 1e7;
  std::string filter = ".";
};

struct Timing {
  std::vector<double> wall, cpu;  // slowest rank, per repetition
};

// Times `call(rep)` on every rank: barrier, call, MAX over ranks.
template <class F>
Timing time_it(MPI_Comm comm, int repetitions, F&& call) {
  call(-1);  // warm-up (first touch of buffers, MPI connections)
  Timing t;
  for (int rep = 0; rep < repetitions; ++rep) {
    MPI_Barrier(comm);
    const double w0 = MPI_Wtime(), c0 = thread_cpu();
    call(rep);
    const double mine[2] = {MPI_Wtime() - w0, thread_cpu() - c0};
    double worst[2] = {0, 0};
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, comm);
    t.wall.push_back(worst[0]);
    t.cpu.push_back(worst[1]);
  }
  return t;
}

void print(MPI_Comm comm, const std::string& label, i64 n, double bytes_moved, const Timing& t,
           const Timing* raw = nullptr) {
  const auto [rank, P] = isocost::bench::ranks_of(comm);
  if (rank != 0) return;
  const double w = median(t.wall), c = median(t.cpu);
  std::printf("%-34s %3d %10lld %11.3f %10.3f %10.1f %10.3f", label.c_str(), P,
              static_cast<long long>(n), bytes_moved / 1e6, 1e3 * w, bytes_moved / w / 1e6,
              1e3 * c);
  if (raw)
    std::printf(" %10.1f %7.2f", bytes_moved / median(raw->wall) / 1e6, w / median(raw->wall));
  std::printf("\n");
  std::fflush(stdout);
}

bool selected(const Settings& s, const std::string& label) {
  return std::regex_search(label, std::regex(s.filter));
}

// Uniform blocks and the same with every interior boundary moved right by s.
std::pair<BlockDistribution, BlockDistribution> shifted_blocks(i64 N, int P) {
  const auto from = BlockDistribution::uniform(N, P);
  auto to = from;
  if (P > 1) {
    const i64 s = std::min(N / (4 * (P - 1)), N / P);
    for (int r = 1; r < P; ++r) to.offsets[static_cast<std::size_t>(r)] += s;
  }
  return {from, to};
}

void bench_1d(MPI_Comm comm, const Settings& s, i64 N, bool verify) {
  const std::string label =
      std::string(verify ? "BM_Redistribute1D_Verify/" : "BM_Redistribute1D/") + std::to_string(N);
  if (!selected(s, label)) return;
  const auto [rank, P] = isocost::bench::ranks_of(comm);
  const auto dists = shifted_blocks(N, P);
  const BlockDistribution& from = dists.first;
  const BlockDistribution& to = dists.second;
  std::vector<double> a(static_cast<std::size_t>(from.count(rank))), b;
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<double>(from.begin(rank)) + static_cast<double>(i);
  isocost::mpi::RedistributeOptions o;
  o.verify = verify;
  double moved = 0;
  // Alternate there (a → b) and back (b → a): the same volume each way.
  bool there = true;
  const auto t = time_it(comm, s.repetitions, [&](int) {
    const auto sum = there ? isocost::mpi::redistribute_into(comm, from, to, a, b, o)
                           : isocost::mpi::redistribute_into(comm, to, from, b, a, o);
    moved = static_cast<double>(sum.global_bytes_moved);
    there = !there;
  });
  if (!there) std::swap(a, b);  // the data are back in `a`'s distribution

  // The floor: the same pieces with a bare MPI_Alltoallv between the vectors.
  Timing raw;
  if (!verify) {
    const auto uP = static_cast<std::size_t>(P);
    auto counts = [&](const BlockDistribution& f, const BlockDistribution& g, std::vector<int>& sc,
                      std::vector<int>& sd, std::vector<int>& rc, std::vector<int>& rd) {
      sc.assign(uP, 0);
      sd.assign(uP, 0);
      rc.assign(uP, 0);
      rd.assign(uP, 0);
      const auto ur = static_cast<std::size_t>(rank);
      for (std::size_t q = 0; q < uP; ++q) {
        const i64 slo = std::max(f.offsets[ur], g.offsets[q]);
        const i64 shi = std::min(f.offsets[ur + 1], g.offsets[q + 1]);
        const i64 rlo = std::max(f.offsets[q], g.offsets[ur]);
        const i64 rhi = std::min(f.offsets[q + 1], g.offsets[ur + 1]);
        if (shi > slo) {
          sc[q] = static_cast<int>(shi - slo);
          sd[q] = static_cast<int>(slo - f.offsets[ur]);
        }
        if (rhi > rlo) {
          rc[q] = static_cast<int>(rhi - rlo);
          rd[q] = static_cast<int>(rlo - g.offsets[ur]);
        }
      }
    };
    std::vector<int> sc1, sd1, rc1, rd1, sc2, sd2, rc2, rd2;
    counts(from, to, sc1, sd1, rc1, rd1);
    counts(to, from, sc2, sd2, rc2, rd2);
    b.resize(static_cast<std::size_t>(to.count(rank)));
    there = true;
    raw = time_it(comm, s.repetitions, [&](int) {
      if (there)
        MPI_Alltoallv(a.data(), sc1.data(), sd1.data(), MPI_DOUBLE, b.data(), rc1.data(),
                      rd1.data(), MPI_DOUBLE, comm);
      else
        MPI_Alltoallv(b.data(), sc2.data(), sd2.data(), MPI_DOUBLE, a.data(), rc2.data(),
                      rd2.data(), MPI_DOUBLE, comm);
      there = !there;
    });
  }
  print(comm, label, N, moved, t, verify ? nullptr : &raw);
}

void bench_box(MPI_Comm comm, const Settings& s, i64 N, int axis) {
  const std::string label =
      std::string("BM_RedistributeBox3D_") + (axis == 2 ? "z/" : "x/") + std::to_string(N);
  if (!selected(s, label)) return;
  const auto [rank, P] = isocost::bench::ranks_of(comm);
  const i64 n = std::max<i64>(static_cast<i64>(std::llround(std::cbrt(static_cast<double>(N)))), P);
  const auto cuts = shifted_blocks(n, P);
  const BlockDistribution& f1 = cuts.first;
  const BlockDistribution& t1 = cuts.second;
  BoxDistribution from, to;
  from.cells = to.cells = {n, n, n};
  const auto ua = static_cast<std::size_t>(axis);
  for (int r = 0; r < P; ++r) {
    isocost::mpi::CellBox a{{0, 0, 0}, {n, n, n}}, b = a;
    a.lo[ua] = f1.begin(r);
    a.hi[ua] = f1.end(r);
    b.lo[ua] = t1.begin(r);
    b.hi[ua] = t1.end(r);
    from.boxes.push_back(a);
    to.boxes.push_back(b);
  }
  std::vector<double> a(static_cast<std::size_t>(from.count(rank)), 1.0), b;
  double moved = 0;
  bool there = true;
  const auto t = time_it(comm, s.repetitions, [&](int) {
    const auto sum = there ? isocost::mpi::redistribute_into(comm, from, to, a, b)
                           : isocost::mpi::redistribute_into(comm, to, from, b, a);
    moved = static_cast<double>(sum.global_bytes_moved);
    there = !there;
  });
  print(comm, label, n * n * n, moved, t);
}

void bench_tasks(MPI_Comm comm, const Settings& s, i64 N) {
  const std::string label = "BM_MigrateTasks/" + std::to_string(N);
  if (!selected(s, label)) return;
  const auto [rank, P] = isocost::bench::ranks_of(comm);
  const i64 tasks = std::max<i64>(N / 128, P);
  std::unordered_map<i64, std::vector<double>> store;
  for (i64 id = rank; id < tasks; id += P) store[id] = std::vector<double>(128, 1.0 * id);
  // A quarter of the tasks (ids ≡ 0 mod 4) move to the next rank, and back.
  std::vector<isocost::TaskMove> there, back;
  for (i64 id = 0; id < tasks; id += 4) {
    const int home = static_cast<int>(id % P), next = (home + 1) % P;
    there.push_back({id, home, next, 1.0});
    back.push_back({id, next, home, 1.0});
  }
  isocost::mpi::MigrationCallbacks cb;
  cb.size = [&](i64 id) { return store.at(id).size() * sizeof(double); };
  cb.pack = [&](i64 id, std::span<std::byte> buf) {
    std::memcpy(buf.data(), store.at(id).data(), buf.size());
  };
  cb.unpack = [&](i64 id, std::span<const std::byte> bytes) {
    std::vector<double> v(bytes.size() / sizeof(double));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    store[id] = std::move(v);
    return true;
  };
  cb.free = [&](i64 id) { store.erase(id); };
  std::vector<i64> held;
  bool go = true;
  double moved = 0;
  const auto t = time_it(comm, s.repetitions, [&](int) {
    held.clear();
    for (const auto& [id, v] : store) held.push_back(id);
    const auto sum = isocost::mpi::migrate(comm, held, go ? there : back, cb);
    moved = static_cast<double>(sum.global_bytes_moved);
    go = !go;
  });
  print(comm, label, tasks * 128, moved, t);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rank = isocost::bench::ranks_of().rank;
  Settings s;
  const bool parsed = isocost::bench::parse_args(
      argc, argv,
      {{"--repetitions", [&](const char* v) { s.repetitions = std::max(1, std::atoi(v)); }},
       {"--max-elements", [&](const char* v) { s.max_elements = std::atof(v); }},
       {"--filter", [&](const char* v) { s.filter = v; }}},
      "usage: mpiexec -n P bench_mpi_migrate [--repetitions R] [--max-elements N] "
      "[--filter REGEX]");
  if (!parsed) {
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    std::printf(
        "Wall time of the slowest rank (MPI_Wtime), medians of %d repetitions; 25 %% of the "
        "elements change owner; MB = 1e6 bytes\n"
        "%-34s %3s %10s %11s %10s %10s %10s %10s %7s\n",
        s.repetitions, "case", "P", "elements", "MB_moved", "wall_ms", "MB/s", "cpu_ms", "raw_MB/s",
        "vs_raw");
  const int status = isocost::bench::run_cases("bench_mpi_migrate", [&] {
    for (double n = 1e4; n <= s.max_elements * (1 + 1e-9); n *= 10) {
      const auto N = static_cast<i64>(n);
      bench_1d(MPI_COMM_WORLD, s, N, false);
      bench_1d(MPI_COMM_WORLD, s, N, true);
      bench_box(MPI_COMM_WORLD, s, N, 2);
      bench_box(MPI_COMM_WORLD, s, N, 0);
      bench_tasks(MPI_COMM_WORLD, s, N);
    }
  });
  MPI_Finalize();
  return status;
}
